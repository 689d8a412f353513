// The operator's listener: GET /metrics in Prometheus' text format, nothing else. It is apart
// from the three networks' listeners so that no visitor reaches it (config.ts keeps it on
// loopback unless the operator allows more) and a scrape never waits behind their limits.
import http from 'node:http';
import type { ListenAddress } from '../config.ts';
import type { Metrics } from '../metrics.ts';
import { bind } from './listeners.ts';

export interface MetricsListener {
  server: http.Server;
  /** Where it listens, for the start-up banner and the tests. */
  address: string;
  close(): Promise<void>;
}

const HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

export async function listenMetrics(addr: ListenAddress, metrics: Metrics): Promise<MetricsListener | undefined> {
  if (addr.kind === 'off') return undefined;
  metrics.withProcessMetrics();
  const server = http.createServer({ maxHeaderSize: 16 * 1024, headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return answer(res, 404, 'not_found', 'Only /metrics is served here.');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return answer(res, 405, 'method_not_allowed', 'Use GET /metrics.');
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { ...HEADERS, 'Content-Type': metrics.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => answer(res, 500, 'internal_error', 'The metrics could not be collected.'),
    );
  });
  const address = await bind(server, addr, 'metrics');
  return {
    server,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function answer(res: http.ServerResponse, status: number, error: string, message: string): void {
  res.writeHead(status, { ...HEADERS, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ error, message }));
}
