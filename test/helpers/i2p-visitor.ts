// A visitor's HTTP client on an I2P client tunnel, reached through a unix socket (the tunnel
// itself listens inside the test's network namespace). Each request is a fresh connection,
// hence a fresh I2P stream, and names the site in Host as a browser would. Every exchange is
// kept, so a test can search all that was sent and received.
import http from 'node:http';

export interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Request and response, head and body, as text: what a leak check searches. */
  transcript: string;
  body: Buffer;
  json: any;
}

export function i2pVisitor(socketPath: string, site: string, timeoutMs: number) {
  const exchanges: Exchange[] = [];
  const request = (method: string, pathOrUrl: string, init: { headers?: Record<string, string>; body?: Buffer | string; timeoutMs?: number } = {}) =>
    new Promise<Exchange>((resolve, reject) => {
      const p = pathOrUrl.startsWith('/') ? pathOrUrl : new URL(pathOrUrl).pathname + new URL(pathOrUrl).search;
      const headers: Record<string, string | number> = { Host: site, ...init.headers };
      if (init.body !== undefined) headers['Content-Length'] = Buffer.byteLength(init.body);
      const req = http.request({ socketPath, path: p, method, headers, agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const body = Buffer.concat(parts);
          let json: unknown;
          try {
            json = body.length ? JSON.parse(body.toString('utf8')) : undefined;
          } catch {
            /* not JSON */
          }
          const sent = `${method} ${p}\n${JSON.stringify(headers)}\n${typeof init.body === 'string' ? init.body : ''}`;
          const got = `${res.statusCode}\n${JSON.stringify(res.rawHeaders)}\n${body.toString('latin1')}`;
          const x = { method, path: p, status: res.statusCode!, headers: res.headers, transcript: `${sent}\n${got}`, body, json };
          exchanges.push(x);
          resolve(x);
        });
        res.on('error', fail);
      });
      const timer = setTimeout(() => {
        req.destroy();
        fail(new Error(`${method} ${p} through the I2P tunnel: no answer within ${(init.timeoutMs ?? timeoutMs) / 1000} s`));
      }, init.timeoutMs ?? timeoutMs);
      function fail(e: Error) {
        clearTimeout(timer);
        reject(e);
      }
      req.on('error', fail);
      req.end(init.body);
    });
  return { request, exchanges };
}
