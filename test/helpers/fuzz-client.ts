// A bare HTTP/1.1 client for the HTTP fuzz tests: keep-alive sockets (10,000 requests over
// loopback stay fast), headers sent exactly as generated (no fetch normalisation), a body sent
// whole with its length or chunked, and the answer read as status, headers and text.
import http from 'node:http';

export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent chunked (no Content-Length), in two pieces. */
  chunked?: boolean;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export function keepAlive(sockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: sockets });
}

export function send(agent: http.Agent, base: string, r: Sent): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...r.headers };
    if (r.body && !r.chunked) headers['content-length'] = String(r.body.length);
    // named, or Node frames no body for GET, HEAD, DELETE and OPTIONS and its bytes would read as the next request
    if (r.body && r.chunked) headers['transfer-encoding'] = 'chunked';
    const req = http.request({ agent, host: url.hostname, port: url.port, method: r.method, path: r.path, headers, setHost: true }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (r.body && r.chunked) {
      const half = r.body.length >> 1;
      req.write(r.body.subarray(0, half));
      req.end(r.body.subarray(half));
    } else req.end(r.body);
  });
}
