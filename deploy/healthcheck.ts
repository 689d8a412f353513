// Container healthcheck (Dockerfile, docker-compose.yml): asks the service's own clearnet
// listener, as configured by the same environment, for GET /api/status. Node only, no curl.
//   .tools/node/bin/node deploy/healthcheck.ts      exit 0: UP (or MAINTENANCE), 1: anything else
// Maintenance counts as healthy: the process serves, and the operator chose to answer 503.
import http from 'node:http';
import { loadConfig, type ListenAddress } from '../src/config.ts';

const HEALTHY = ['UP', 'MAINTENANCE'];

/** The status the listener reports (the "status" field of /api/status); rejects when it cannot tell. */
export function statusOf(addr: ListenAddress, timeoutMs = 5_000): Promise<string> {
  if (addr.kind === 'off') return Promise.reject(new Error('the clearnet listener is off: nothing to ask'));
  // a wildcard listener is asked on loopback, the only address sure to be in this namespace
  const where =
    addr.kind === 'unix'
      ? { socketPath: addr.path }
      : { host: addr.host === '0.0.0.0' ? '127.0.0.1' : addr.host === '::' ? '::1' : addr.host, port: addr.port };
  return new Promise((resolve, reject) => {
    const req = http.get({ ...where, path: '/api/status', timeout: timeoutMs, headers: { accept: 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (body.length < 65_536) body += c; // a status is small; anything bigger is not one
      });
      res.on('end', () => {
        try {
          const status = JSON.parse(body).status;
          if (typeof status === 'string') return resolve(status);
        } catch {
          /* not JSON */
        }
        reject(new Error(`HTTP ${res.statusCode} without a status field`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
  });
}

if (import.meta.main) {
  let code = 1;
  try {
    const status = await statusOf(loadConfig().listen.clearnet);
    code = HEALTHY.includes(status) ? 0 : 1;
    process.stdout.write(`obscura: ${status}\n`);
  } catch (err) {
    process.stderr.write(`obscura healthcheck: ${(err as Error).message}\n`);
  }
  process.exit(code);
}
