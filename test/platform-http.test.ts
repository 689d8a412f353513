import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';

test('GET /api/status answers UP on all three listeners, without a key', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  for (const network of ['clearnet', 'onion', 'i2p'] as const) {
    const res = await fetch(`${svc.url[network]}/api/status`);
    t.is(res.status, 200, network);
    const body = (await res.json()) as any;
    t.is(body.status, 'UP');
    t.is(body.service, 'obscura');
    t.regex(body.version, /^\d+\.\d+\.\d+/);
    t.true(Math.abs(Date.parse(body.timestamp) - Date.now()) < 60_000);
  }
});

test('every response carries the hardening headers and no server banner', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  for (const path of ['/api/status', '/nowhere', '/api/account']) {
    const res = await fetch(`${svc.url.clearnet}${path}`);
    t.is(res.headers.get('server'), null, path);
    t.is(res.headers.get('x-powered-by'), null, path);
    t.is(res.headers.get('x-content-type-options'), 'nosniff', path);
    t.is(res.headers.get('referrer-policy'), 'no-referrer', path);
    t.regex(res.headers.get('content-security-policy') ?? '', /default-src 'none'/, path);
    t.regex(res.headers.get('cache-control') ?? '', /no-store/, path);
    t.regex(res.headers.get('x-request-id') ?? '', /^[0-9a-f]{16}$/, path);
  }
});

test('unknown paths and methods answer JSON {error, message}', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const res = await fetch(`${svc.url.onion}/no/such/thing`);
  t.is(res.status, 404);
  t.like((await res.json()) as any, { error: 'not_found' });
  const del = await fetch(`${svc.url.clearnet}/api/status`, { method: 'DELETE' });
  t.is(del.status, 405);
  const body = (await del.json()) as any;
  t.is(body.error, 'method_not_allowed');
  t.is(typeof body.message, 'string');
});

test('an unexpected failure is a 500 with a generic message and a request id, never a stack trace', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  await svc.services.jobs.stop();
  svc.services.db!.close(); // the row store goes away under the running service
  const res = await fetch(`${svc.url.clearnet}/api/account`, { headers: { 'X-Api-Key': key } });
  t.is(res.status, 500);
  const body = (await res.json()) as any;
  t.is(body.error, 'internal_error');
  t.is(body.request_id, res.headers.get('x-request-id'));
  t.true(body.message.includes(body.request_id));
  const text = JSON.stringify(body);
  t.false(/at .*\.ts:\d+|database|sqlite/i.test(text), text);
  // the server side keeps a trace of the failure, by request id
  t.true(svc.logs.some((l) => l.includes('unexpected error') && l.includes(body.request_id)));
  svc.services.close = async () => {}; // already closed
});

test('oversized request headers get a JSON 431', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(`${svc.url.clearnet}/api/status`, { headers: { 'X-Filename': 'a'.repeat(40_000) } }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: b }));
    });
    req.on('error', reject);
    req.end();
  });
  t.is(status, 431);
  t.is(JSON.parse(body).error, 'headers_too_large');
});

test('maintenance mode from the configuration: every route answers 503 with Retry-After', async (t) => {
  const svc = await startService({ OBSCURA_MAINTENANCE: 'on', OBSCURA_MAINTENANCE_RETRY_AFTER: '120' });
  t.teardown(() => svc.close());
  for (const path of ['/api/status', '/api/account', '/v1/job/status/x', '/nowhere']) {
    const res = await fetch(`${svc.url.i2p}${path}`, { method: path.startsWith('/v1') ? 'POST' : 'GET' });
    t.is(res.status, 503, path);
    t.is(res.headers.get('retry-after'), '120', path);
    const body = (await res.json()) as any;
    t.is(body.status, 'MAINTENANCE');
    t.is(typeof body.message, 'string');
  }
});

test('maintenance mode from the CLI reaches the running service without a restart', async (t) => {
  const dataDir = tempDir();
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['src/cli.ts', ...args], { env: { ...process.env, OBSCURA_DATA_DIR: dataDir }, encoding: 'utf8' });
  t.is(cli('maintenance', 'on').status, 0);
  t.is((await fetch(`${svc.url.clearnet}/api/status`)).status, 503);
  t.is(cli('maintenance', 'off').status, 0);
  t.is((await fetch(`${svc.url.clearnet}/api/status`)).status, 200);
});

test('an onion listener on a unix socket serves the same API', async (t) => {
  const dir = tempDir();
  const sock = `${dir}/onion.sock`;
  const svc = await startService({ OBSCURA_ONION_LISTEN: `unix:${sock}`, OBSCURA_I2P_LISTEN: 'off', OBSCURA_ONION_ORIGIN: 'http://abcdefghijklmnop.onion' });
  t.teardown(() => svc.close());
  t.is(svc.listeners.length, 2);
  const body = await new Promise<string>((resolve, reject) => {
    http
      .get({ socketPath: sock, path: '/api/status' }, (res) => {
        let b = '';
        res.on('data', (c) => (b += c));
        res.on('end', () => resolve(b));
      })
      .on('error', reject);
  });
  t.is(JSON.parse(body).status, 'UP');
});
