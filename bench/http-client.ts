// A lean HTTP/1.1 client for the benchmarks: node:http over one keep-alive agent, whole
// bodies in and out. undici's fetch spent about 35 ms more than this on each 19 MB upload
// here (measured against a server that discards the body): the client's cost, not the
// service's, so the end-to-end figures use this.
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export interface Reply {
  status: number;
  body: Buffer;
  json<T = any>(): T;
}

export function request(url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<Reply> {
  const body = typeof opts.body === 'string' ? Buffer.from(opts.body) : opts.body;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', agent, headers: { ...opts.headers, ...(body ? { 'Content-Length': String(body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const whole = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, body: whole, json: () => JSON.parse(whole.toString('utf8')) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Closes the idle keep-alive sockets, so the process can exit. */
export function closeClient(): void {
  agent.destroy();
}
