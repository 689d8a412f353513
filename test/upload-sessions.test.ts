import http from 'node:http';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { payload, sha256 } from './helpers/payload.ts';

type Svc = Awaited<ReturnType<typeof startService>>;

function direct(svc: Svc, key: string, headers: Record<string, string>, body: Uint8Array) {
  return fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, ...headers }, body });
}

/** A raw request, for bodies fetch will not send (chunked, lying lengths, cut short). */
function raw(svc: Svc, headers: Record<string, string | number>, write: (req: http.ClientRequest) => void): Promise<{ status: number; body: any }> {
  return new Promise((resolve) => {
    const req = http.request(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: b ? JSON.parse(b) : undefined }));
    });
    req.on('error', () => resolve({ status: 0, body: undefined }));
    write(req);
  });
}

test('the three session kinds: create, describe, list files', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  for (const [path, body, type] of [
    ['/api/session', { type: 'hide' }, 'hide'],
    ['/api/session', { type: 'reveal' }, 'reveal'],
    ['/api/analyse/session', {}, 'analyse'],
    ['/api/convert/session', undefined, 'convert'],
  ] as const) {
    const r = await svc.api('POST', path, key, body);
    t.is(r.status, 201, path);
    t.regex(r.body.upload_uid, /^up_[A-Za-z0-9_-]{22}$/);
    t.is(r.body.type, type);
    t.is(r.body.max_upload_bytes, 100 * 1024 * 1024);
    t.true(Date.parse(r.body.expires_at) > Date.now() + 23 * 3600_000);
    const files = await svc.api('GET', `${path}/${r.body.upload_uid}/files`, key);
    t.is(files.status, 200);
    t.deepEqual(files.body.files, []);
  }
  const bad = await svc.api('POST', '/api/session', key, { type: 'analyse' });
  t.is(bad.status, 422);
  t.regex(bad.body.message, /"hide" or "reveal"/);
  t.is((await svc.api('POST', '/api/analyse/session', key, { colour: 'red' })).status, 422);
  t.is((await svc.api('POST', '/api/session', key, '{not json' as unknown)).status, 422, 'a JSON string is not an object');
  const garbage = await fetch(`${svc.url.clearnet}/api/session`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: '{"type":' });
  t.is(garbage.status, 400);
  t.is(((await garbage.json()) as any).error, 'invalid_json');
});

test("sessions are the account's own: another account gets 404; a session of another kind is 404 too", async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const alice = await svc.account();
  const bob = await svc.account();
  const s = await svc.api('POST', '/api/session', alice.key, { type: 'hide' });
  t.is((await svc.api('GET', `/api/session/${s.body.upload_uid}/files`, bob.key)).status, 404);
  t.is((await svc.api('GET', `/api/analyse/session/${s.body.upload_uid}/files`, alice.key)).status, 404);
  const up = await direct(svc, bob.key, { 'X-Upload-Uid': s.body.upload_uid, 'X-Upload-Step': '1' }, payload(10));
  t.is(up.status, 404);
});

test('a session past its life answers 410 on every call', async (t) => {
  const svc = await startService({ OBSCURA_SESSION_LIFE: '1s' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const s = await svc.api('POST', '/api/convert/session', key, {});
  const ok = await direct(svc, key, { 'X-Upload-Uid': s.body.upload_uid, 'X-Upload-Step': '1', 'X-Filename': 'a.png' }, payload(100));
  t.is(ok.status, 201);
  await new Promise((r) => setTimeout(r, 1100));
  t.is((await svc.api('GET', `/api/convert/session/${s.body.upload_uid}/files`, key)).status, 410);
  t.is((await svc.api('GET', `/api/convert/session/${s.body.upload_uid}`, key)).status, 410);
  const late = await direct(svc, key, { 'X-Upload-Uid': s.body.upload_uid, 'X-Upload-Step': '1' }, payload(100));
  t.is(late.status, 410);
  t.is(((await late.json()) as any).error, 'session_expired');
  t.is(await svc.services.uploads.expire(), 1, "the session's files are destroyed with it");
});

test('steps are checked against the session type', async (t) => {
  const svc = await startService({ OBSCURA_SESSION_MAX_FILES: '2' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const up = (uid: string, step: string) => direct(svc, key, { 'X-Upload-Uid': uid, 'X-Upload-Step': step }, payload(64));
  const hide = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  t.is((await up(hide, '1')).status, 201);
  t.is((await up(hide, '1')).status, 201);
  const third = await up(hide, '1');
  t.is(third.status, 422, 'secrets up to the configured count');
  t.is((await up(hide, '2')).status, 201);
  const cover2 = await up(hide, '2');
  t.is(cover2.status, 422);
  t.regex(((await cover2.json()) as any).message, /at most 1 cover/);
  // step 3: a decoy's files, as many as secrets (the start checks that a decoy_password comes with them)
  t.is((await up(hide, '3')).status, 201);
  t.is((await up(hide, '4')).status, 422);
  t.is((await up(hide, 'one')).status, 422);

  const reveal = (await svc.api('POST', '/api/session', key, { type: 'reveal' })).body.upload_uid;
  t.is((await up(reveal, '2')).status, 422);
  t.is((await up(reveal, '1')).status, 201);
  t.is((await up(reveal, '1')).status, 422, 'a reveal takes one file');

  const analyse = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  t.is((await up(analyse, '2')).status, 422);
  const files = await svc.api('GET', `/api/session/${hide}/files`, key);
  t.deepEqual(files.body.files.map((f: any) => f.step), [1, 1, 2, 3]);
});

test('direct upload stores the file whole and answers its description', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  const data = payload(2_500_000);
  const r = await direct(svc, key, { 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': encodeURIComponent('Zeugenaussage März.pdf') }, data);
  t.is(r.status, 201);
  const { file } = (await r.json()) as any;
  t.like(file, { name: 'Zeugenaussage März.pdf', step: 1, size: data.length, status: 'completed' });
  const row = await svc.services.repos.uploads.byId(file.storage_uid)!;
  const parts: Buffer[] = [];
  for await (const c of svc.services.uploads.read(row!)) parts.push(c as Buffer);
  t.is(sha256(Buffer.concat(parts)), sha256(data));
});

test('direct: no Content-Length (chunked) -> 411', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  const r = await raw(svc, { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': 1, 'Transfer-Encoding': 'chunked' }, (req) => {
    req.write(payload(1000));
    req.end();
  });
  t.is(r.status, 411);
  t.is(r.body.error, 'length_required');
  t.deepEqual((await svc.api('GET', `/api/convert/session/${uid}/files`, key)).body.files, []);
});

test('direct: over max_upload_bytes -> 413 before the body is read', async (t) => {
  const svc = await startService({ OBSCURA_DIRECT_UPLOAD_MAX: '1MiB' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  // declare 50 MiB and send only 1 KiB: the answer must come without waiting for the rest
  const r = await raw(svc, { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': 1, 'Content-Length': 50 * 1024 * 1024 }, (req) => {
    req.write(payload(1024));
  });
  t.is(r.status, 413);
  t.is(r.body.max_upload_bytes, 1024 * 1024);
  t.deepEqual((await svc.api('GET', `/api/convert/session/${uid}/files`, key)).body.files, []);
});

test('direct: the same X-Client-Upload-Id twice returns the first answer and stores one file', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  const headers = { 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': 'a.jpg', 'X-Client-Upload-Id': 'retry-7' };
  const first = (await (await direct(svc, key, headers, payload(5000))).json()) as any;
  const second = await direct(svc, key, headers, payload(5000));
  t.is(second.status, 201);
  t.deepEqual(await second.json(), first);
  const files = await svc.api('GET', `/api/analyse/session/${uid}/files`, key);
  t.is(files.body.files.length, 1);
  // another id is another file
  await direct(svc, key, { ...headers, 'X-Client-Upload-Id': 'retry-8' }, payload(5000));
  t.is((await svc.api('GET', `/api/analyse/session/${uid}/files`, key)).body.files.length, 2);
});

test('direct: a body cut short commits nothing', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  const r = await raw(svc, { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': 1, 'Content-Length': 400_000, 'X-Client-Upload-Id': 'cut' }, (req) => {
    req.write(payload(150_000), () => setTimeout(() => req.destroy(), 100));
  });
  t.is(r.status, 0, 'the client hung up');
  // the server learns of the hang-up when its socket closes; wait for that, however slow the machine
  const files = async () => (await svc.api('GET', `/api/convert/session/${uid}/files`, key)).body.files;
  for (const deadline = Date.now() + 30_000; (await files()).length > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
  t.deepEqual(await files(), []);
  t.is((svc.services.db!.prepare('SELECT COUNT(*) AS n FROM uploads').get() as { n: number }).n, 0);
  t.is((svc.services.db!.prepare('SELECT COUNT(*) AS n FROM blob_keys').get() as { n: number }).n, 0);
  // the retry with the same client id goes through
  const retry = await direct(svc, key, { 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Client-Upload-Id': 'cut' }, payload(400_000));
  t.is(retry.status, 201);
});
