import Koa from 'koa';
import { Router } from '@koa/router';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { requireKey } from '../src/http/middleware/auth.ts';
import { errorBoundary } from '../src/http/middleware/errors.ts';
import { listen, closeListener } from '../src/http/listeners.ts';
import type { AppState } from '../src/http/context.ts';

async function call(url: string, key?: string, header = 'X-Api-Key') {
  const res = await fetch(`${url}/api/account`, { headers: key === undefined ? {} : { [header]: key } });
  return { status: res.status, body: (await res.json()) as any };
}

test('missing_api_key: no header', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const r = await call(svc.url.clearnet);
  t.is(r.status, 401);
  t.is(r.body.error, 'missing_api_key');
  t.regex(r.body.message, /X-Api-Key/);
});

test('malformed_api_key: a header that is not a key shape', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  for (const bad of ['hello', 'sw_short', 'zz_' + 'a'.repeat(43), 'sw_' + '!'.repeat(43), 'sw_' + 'a'.repeat(200)]) {
    const r = await call(svc.url.clearnet, bad);
    t.is(r.status, 401, bad);
    t.is(r.body.error, 'malformed_api_key', bad);
  }
});

test('invalid_api_key: unknown, revoked and expired keys', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const unknown = 'sw_' + 'A'.repeat(43);
  t.is((await call(svc.url.clearnet, unknown)).body.error, 'invalid_api_key');

  const { email, key } = await svc.account();
  t.is((await call(svc.url.clearnet, key)).status, 200);
  const [listed] = await svc.services.apiKeys.list(email);
  await svc.services.apiKeys.revoke(listed.id);
  const revoked = await call(svc.url.clearnet, key);
  t.is(revoked.status, 401);
  t.is(revoked.body.error, 'invalid_api_key');

  const expired = await svc.services.apiKeys.issue(email, { expiresAt: Date.now() - 1 });
  t.is((await call(svc.url.clearnet, expired.key)).body.error, 'invalid_api_key');
  // a key differing in one character is simply unknown
  const other = (await svc.services.apiKeys.issue(email)).key;
  const flipped = other.slice(0, -1) + (other.endsWith('A') ? 'B' : 'A');
  t.is((await call(svc.url.clearnet, flipped)).body.error, 'invalid_api_key');
});

test('account_not_verified, and the same key works the moment the account is verified', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  await svc.services.accounts.create('late@example.org');
  const { key } = await svc.services.apiKeys.issue('late@example.org');
  const before = await call(svc.url.onion, key);
  t.is(before.status, 401);
  t.is(before.body.error, 'account_not_verified');
  await svc.services.accounts.verify('late@example.org');
  const after = await call(svc.url.onion, key);
  t.is(after.status, 200);
  t.is(after.body.email, 'late@example.org');
});

test('account_inactive: a deactivated account, until it is reactivated', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { email, key } = await svc.account();
  await svc.services.accounts.deactivate(email);
  const r = await call(svc.url.i2p, key);
  t.is(r.status, 401);
  t.is(r.body.error, 'account_inactive');
  await svc.services.accounts.reactivate(email);
  t.is((await call(svc.url.i2p, key)).status, 200);
});

test('keys issued with a former prefix stay valid; the key is stored only as a digest', async (t) => {
  const svc = await startService({ OBSCURA_KEY_FORMER_PREFIXES: 'obs_,old_' });
  t.teardown(() => svc.close());
  const { email, key } = await svc.account();
  t.true(key.startsWith('sw_'));
  t.true(key.length >= 3 + 43);
  const old = (await svc.services.apiKeys.issue(email, { prefix: 'old_' })).key;
  t.is((await call(svc.url.clearnet, old)).status, 200);
  const rows = svc.services.db!.prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[];
  const dump = JSON.stringify(rows, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
  t.false(dump.includes(key.slice(3)));
  t.false(dump.includes(old.slice(4)));
});

test('v1 reads the key from api_key, in any letter case, and answers 401 with a message', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  // the v1 guard on a bare app: the real middleware and the real key store
  const app = new Koa<AppState>();
  const router = new Router<AppState>();
  router.get('/v1/probe', requireKey(svc.services.apiKeys, 'api_key'), (ctx) => {
    ctx.body = { email: ctx.state.account!.email };
  });
  app.use(errorBoundary(svc.services.log)).use(router.routes());
  const l = (await listen('clearnet', { kind: 'tcp', host: '127.0.0.1', port: 0 }, app))!;
  t.teardown(() => closeListener(l));
  const { email, key } = await svc.account();
  for (const header of ['api_key', 'Api_Key', 'API_KEY']) {
    const res = await fetch(`http://${l.address}/v1/probe`, { headers: { [header]: key } });
    t.is(res.status, 200, header);
    t.is(((await res.json()) as any).email, email);
  }
  const none = await fetch(`http://${l.address}/v1/probe`);
  t.is(none.status, 401);
  const body = (await none.json()) as any;
  t.is(body.error, 'missing_api_key');
  t.regex(body.message, /api_key/);
});
