// HTTP through a tor's SOCKS port, the way a Tor client reaches the onion: socks5h, so the
// .onion name is resolved by tor and never by this process. Every exchange is kept, so a test
// can check every header and body the service sent over the onion.
import http from 'node:http';
import { SocksProxyAgent } from 'socks-proxy-agent';

export interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface SocksHttp {
  agent: SocksProxyAgent;
  seen: Exchange[];
  request(method: string, url: string, init?: { headers?: Record<string, string>; body?: Buffer | string; timeoutMs?: number }): Promise<Exchange>;
  /** request() with a JSON body (if given) and a JSON answer. */
  json(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<Exchange & { json: any }>;
}

/** `isolation`: a SOCKS username, which tor (IsolateSOCKSAuth, on by default) gives circuits of its own. */
export function socksHttp(socksPort: number, isolation?: string): SocksHttp {
  const auth = isolation === undefined ? '' : `${encodeURIComponent(isolation)}:x@`;
  const agent = new SocksProxyAgent(`socks5h://${auth}127.0.0.1:${socksPort}`);
  const seen: Exchange[] = [];
  const request: SocksHttp['request'] = (method, url, init = {}) =>
    new Promise((resolve, reject) => {
      const body = init.body === undefined ? undefined : Buffer.from(init.body);
      const headers = { ...init.headers, ...(body ? { 'Content-Length': String(body.length) } : {}) };
      const req = http.request(url, { method, agent, headers, timeout: init.timeoutMs ?? 60_000 }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const ex = { method, url, status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) };
          seen.push(ex);
          resolve(ex);
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${(init.timeoutMs ?? 60_000) / 1000} s`)));
      req.on('error', reject);
      req.end(body);
    });
  return {
    agent,
    seen,
    request,
    async json(method, url, headers, body) {
      const ex = await request(method, url, {
        headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      let json: unknown;
      try {
        json = ex.body.length ? JSON.parse(ex.body.toString()) : undefined;
      } catch {
        json = ex.body.toString();
      }
      return { ...ex, json };
    },
  };
}
