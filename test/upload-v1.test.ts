import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { v1 } from './helpers/v1.ts';

async function stored(svc: Awaited<ReturnType<typeof startService>>, key: string): Promise<Buffer> {
  const row = await svc.services.repos.uploads.byId(key)!;
  const parts: Buffer[] = [];
  for await (const c of svc.services.uploads.read(row!)) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

test('(none) -> active: create-media-url answers 201 with Location, Upload-Expires and Tus-Resumable', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const client = v1(svc.url.onion, (await svc.account()).key);
  const r = await client.create('holiday.jpg', 1234);
  t.is(r.status, 201);
  const location = r.headers.get('location')!;
  t.regex(location, new RegExp(`^${svc.url.onion}/v1/upload/resumable/st_[A-Za-z0-9_-]+$`), 'absolute, on the onion network');
  t.is(r.headers.get('tus-resumable'), '1.0.0');
  const expires = Date.parse(r.headers.get('upload-expires')!);
  t.true(Math.abs(expires - (Date.now() + 24 * 3600_000)) < 60_000);
  const head = await client.head(client.keyOf(location));
  t.is(head.status, 200);
  t.is(head.headers.get('upload-offset'), '0');
  t.is(head.headers.get('tus-resumable'), '1.0.0');
  t.truthy(head.headers.get('upload-expires'));
});

test('active -> active: a chunk at the current offset answers 200 with the advanced Upload-Offset', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const client = v1(svc.url.clearnet, (await svc.account()).key);
  const key = client.keyOf((await client.create('a.bin', 1000)).headers.get('location')!);
  const data = payload(1000);
  const r = await client.patch(key, 0, data.subarray(0, 600));
  t.is(r.status, 200);
  t.is(r.headers.get('upload-offset'), '600');
  t.truthy(r.headers.get('upload-expires'));
  t.is(r.headers.get('tus-resumable'), '1.0.0');
  t.is((await client.head(key)).headers.get('upload-offset'), '600');
});

test('active -> complete: the chunk that reaches the declared size answers 204', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const client = v1(svc.url.clearnet, (await svc.account()).key);
  const key = client.keyOf((await client.create('a.bin', 1000)).headers.get('location')!);
  const data = payload(1000);
  await client.patch(key, 0, data.subarray(0, 600));
  const r = await client.patch(key, 600, data.subarray(600));
  t.is(r.status, 204);
  t.is(r.headers.get('upload-offset'), '1000');
  t.true((await stored(svc, key)).equals(data));
  const again = await client.patch(key, 1000, Buffer.from('x'));
  t.is(again.status, 422, 'a complete upload takes no more bytes');
  t.regex(again.body.message, /already complete/);
});

test('active -> deleted: DELETE answers 204, then 410; unknown keys 404; later use 422', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const client = v1(svc.url.clearnet, (await svc.account()).key);
  const key = client.keyOf((await client.create('a.bin', 1000)).headers.get('location')!);
  await client.patch(key, 0, payload(500));
  t.is((await client.del(key)).status, 204);
  t.is(await svc.services.repos.keyRing.get(key), undefined, 'the bytes are destroyed');
  const again = await client.del(key);
  t.is(again.status, 410);
  t.is(typeof again.body.message, 'string');
  t.is((await client.del('st_neverexistedatall00')).status, 404);
  t.is((await client.head(key)).status, 422);
  const p = await client.patch(key, 500, payload(10));
  t.is(p.status, 422);
  t.regex(p.body.message, /deleted/);
});

test('active -> expired: after Upload-Expires HEAD and PATCH answer 422, DELETE 410, and the bytes are destroyed', async (t) => {
  const svc = await startService({ OBSCURA_MEDIA_URL_LIFE: '1s' });
  t.teardown(() => svc.close());
  const client = v1(svc.url.clearnet, (await svc.account()).key);
  const keys = [];
  for (let i = 0; i < 3; i++) {
    const key = client.keyOf((await client.create('a.bin', 1000)).headers.get('location')!);
    await client.patch(key, 0, payload(400));
    keys.push(key);
  }
  await new Promise((r) => setTimeout(r, 1100));
  const head = await client.head(keys[0]);
  t.is(head.status, 422);
  t.is(await svc.services.repos.keyRing.get(keys[0]), undefined, 'touching an expired upload destroys it');
  const patch = await client.patch(keys[1], 400, payload(10));
  t.is(patch.status, 422);
  t.regex(patch.body.message, /expired/);
  // the janitor destroys what nobody touches
  t.truthy(svc.services.repos.keyRing.get(keys[2]));
  t.true((await svc.services.uploads.expire()) >= 1);
  t.is(await svc.services.repos.keyRing.get(keys[2]), undefined);
  t.is((await client.del(keys[2])).status, 410);
});

test('a client uploading in 400,000-byte chunks sees each new offset, and the file arrives whole', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const client = v1(svc.url.i2p, (await svc.account()).key);
  const data = payload(3_000_000 + 12_345);
  const created = await client.create('interview.mp4', data.length);
  const key = client.keyOf(created.headers.get('location')!);
  let offset = 0;
  while (offset < data.length) {
    const resume = Number((await client.head(key)).headers.get('upload-offset'));
    t.is(resume, offset);
    const chunk = data.subarray(offset, offset + 400_000);
    const r = await client.patch(key, offset, chunk);
    offset += chunk.length;
    t.is(r.status, offset === data.length ? 204 : 200);
    t.is(r.headers.get('upload-offset'), String(offset));
  }
  t.is(sha256(await stored(svc, key)), sha256(data));
});

test('v1 refuses a missing or wrong key with 401 and a message', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const none = await v1(svc.url.clearnet, '').create('a', 1);
  t.is(none.status, 401);
  t.is(none.body.error, 'missing_api_key');
  const bad = await v1(svc.url.clearnet, 'sw_' + 'x'.repeat(43)).create('a', 1);
  t.is(bad.status, 401);
  t.is(bad.body.error, 'invalid_api_key');
});

test("another account's media-url does not exist for you", async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const alice = v1(svc.url.clearnet, (await svc.account()).key);
  const bob = v1(svc.url.clearnet, (await svc.account()).key);
  const key = alice.keyOf((await alice.create('a.bin', 10)).headers.get('location')!);
  t.is((await bob.head(key)).status, 422);
  t.is((await bob.patch(key, 0, payload(10))).status, 422);
  t.is((await bob.del(key)).status, 404);
  t.is((await alice.head(key)).status, 200);
});

test('one store, one lock: racing chunks at the same offset, one wins whole and the other is refused', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const client = v1(svc.url.clearnet, (await svc.account()).key);
  const key = client.keyOf((await client.create('race.bin', 4_000_000)).headers.get('location')!);
  const a = payload(2_000_000);
  const b = payload(2_000_000);
  const results = await Promise.all([client.patch(key, 0, a), client.patch(key, 0, b), client.patch(key, 0, a)]);
  const ok = results.filter((r) => r.status === 200);
  t.is(ok.length, 1, results.map((r) => r.status).join(','));
  t.true(results.filter((r) => r.status === 422).every((r) => /does not match/.test(r.body.message)));
  const got = await stored(svc, key);
  t.is(got.length, 2_000_000);
  t.true(got.equals(a) || got.equals(b));
});
