import http from 'node:http';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { v1 } from './helpers/v1.ts';

type Svc = Awaited<ReturnType<typeof startService>>;

async function storedSha(svc: Svc, key: string) {
  const row = await svc.services.repos.uploads.byId(key)!;
  const parts: Buffer[] = [];
  for await (const c of svc.services.uploads.read(row!)) parts.push(c as Buffer);
  return sha256(Buffer.concat(parts));
}

/** A v1 upload with 1000 of its 10 MiB stored, and the helpers to poke it. */
async function halfway(t: { teardown(fn: () => unknown): void }) {
  const svc = await startService();
  t.teardown(() => svc.close());
  const client = v1(svc.url.clearnet, (await svc.account()).key);
  const data = payload(10 * 1024 * 1024);
  const key = client.keyOf((await client.create('a.bin', data.length)).headers.get('location')!);
  await client.patch(key, 0, data.subarray(0, 1000));
  const before = await storedSha(svc, key);
  const unchanged = async () => (await storedSha(svc, key)) === before && (await client.head(key)).headers.get('upload-offset') === '1000';
  return { svc, client, key, data, unchanged };
}

test('v1 offsets: negative, non-numeric, oversized and wrong are 422 with the current offset, bytes unchanged', async (t) => {
  const { client, key, data, unchanged } = await halfway(t);
  for (const [offset, why] of [
    ['-5', /negative/],
    ['abc', /whole number/],
    ['1e3', /whole number/],
    ['', /whole number/],
    ['99999999999999999999999', /out of range/],
    ['0', /does not match/],
    ['2000', /does not match/],
  ] as const) {
    const r = await client.patch(key, offset, data.subarray(1000, 2000));
    t.is(r.status, 422, offset);
    t.regex(r.body.message, why, offset);
    t.regex(r.body.message, /offset 1000/, `${offset}: the message gives the current offset`);
    t.is(r.headers.get('upload-offset'), '1000');
  }
  t.true(await unchanged());
});

test('v1 chunks: over 5 MiB, past the declared size, or empty are 422; bytes unchanged', async (t) => {
  const { client, key, data, unchanged } = await halfway(t);
  const big = await client.patch(key, 1000, data.subarray(1000, 1000 + 5 * 1024 * 1024 + 1));
  t.is(big.status, 422);
  t.regex(big.body.message, /limit of 5242880 bytes/);
  t.true(await unchanged());
  const exactly = await client.patch(key, 1000, data.subarray(1000, 1000 + 5 * 1024 * 1024));
  t.is(exactly.status, 200, 'exactly 5 MiB is fine');
  const k2 = client.keyOf((await client.create('b.bin', 100)).headers.get('location')!);
  const past = await client.patch(k2, 0, payload(101));
  t.is(past.status, 422);
  t.regex(past.body.message, /past the declared size of 100/);
  const empty = await client.patch(k2, 0, new Uint8Array(0));
  t.is(empty.status, 422);
  t.is((await client.head(k2)).headers.get('upload-offset'), '0');
});

test('v1 multipart: missing, repeated and unexpected parts, and non-multipart bodies are 422; bytes unchanged', async (t) => {
  const { client, key, unchanged } = await halfway(t);
  const form = (parts: [string, string | Blob][]) => {
    const f = new FormData();
    for (const [n, v] of parts) f.append(n, v);
    return f;
  };
  const chunk = () => new Blob([payload(100)]);
  const cases: [FormData | string, RegExp][] = [
    [form([['file', chunk()]]), /offset field is missing/],
    [form([['offset', '1000']]), /file part is missing/],
    [form([['offset', '1000'], ['offset', '1000'], ['file', chunk()]]), /more than once/],
    [form([['offset', '1000'], ['file', chunk()], ['file', chunk()]]), /more than once/],
    [form([['offset', '1000'], ['file', chunk()], ['extra', 'x']]), /Unexpected part/],
  ];
  for (const [body, why] of cases) {
    const r = await client.send('PATCH', `/v1/upload/resumable/${key}`, { form: body as FormData });
    t.is(r.status, 422, String(why));
    t.regex(r.body.message, why);
  }
  const json = await client.send('PATCH', `/v1/upload/resumable/${key}`, { json: { offset: 1000, file: 'aGVsbG8=' } });
  t.is(json.status, 422);
  t.regex(json.body.message, /multipart\/form-data/);
  const broken = await client.send('PATCH', `/v1/upload/resumable/${key}`, {
    body: '--x\r\nContent-Disposition: form-data; name="offset"\r\n\r\n1000\r\n--x\r\nContent-Disp',
    headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
  });
  t.is(broken.status, 422);
  const noBoundary = await client.send('PATCH', `/v1/upload/resumable/${key}`, { body: 'x', headers: { 'Content-Type': 'multipart/form-data' } });
  t.is(noBoundary.status, 422);
  t.true(await unchanged());
});

test('traversal and garbage in keys never reach the disk: 422 for v1 resumable, 404 elsewhere', async (t) => {
  const { svc, client, unchanged } = await halfway(t);
  for (const k of ['..', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'st_..', 'st_abc%00def', 'x'.repeat(300), 'st_%2F%2F']) {
    const head = await client.head(k);
    t.true([422, 404].includes(head.status), `${k}: ${head.status}`);
    const del = await client.del(k);
    t.true([404, 422].includes(del.status), `${k}: ${del.status}`);
  }
  const key = (await svc.account()).key;
  for (const path of ['/api/tus/..%2F..%2Fobscura.db', '/api/tus/%2e%2e', '/api/session/..%2F..%2F/files']) {
    const r = await fetch(`${svc.url.clearnet}${path}`, { method: 'HEAD', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
    t.true([404, 400].includes(r.status), `${path}: ${r.status}`);
  }
  t.true(await unchanged());
});

test('very long names and headers are refused with a clear message', async (t) => {
  const { svc, client } = await halfway(t);
  const longName = await client.create('n'.repeat(300) + '.jpg', 10);
  t.is(longName.status, 422);
  t.regex(longName.body.message, /longer than 255 bytes/);
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  const r = await fetch(`${svc.url.clearnet}/api/upload`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': 'a'.repeat(1000) },
    body: payload(10),
  });
  t.is(r.status, 422);
  const huge = await new Promise<{ status: number; body: string }>((resolve) => {
    const req = http.request(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Filename': 'a'.repeat(20_000) } }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: b }));
    });
    req.end();
  });
  t.is(huge.status, 431);
  t.is(JSON.parse(huge.body).error, 'headers_too_large');
  const badClientId = await fetch(`${svc.url.clearnet}/api/upload`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Client-Upload-Id': 'c'.repeat(500) },
    body: payload(10),
  });
  t.is(badClientId.status, 422);
  t.deepEqual((await svc.api('GET', `/api/convert/session/${uid}/files`, key)).body.files, []);
});

test('unknown and foreign sessions: 404 for direct and TUS, and nothing stored', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const alice = await svc.account();
  const bob = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', alice.key, {})).body.upload_uid;
  for (const [key, u] of [[alice.key, 'up_unknownunknownunknow'], [bob.key, uid], [alice.key, '../../etc']] as const) {
    const r = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': u, 'X-Upload-Step': '1' }, body: payload(10) });
    t.is(r.status, 404, u);
    t.is(((await r.json()) as any).error, 'session_not_found');
  }
  const missing = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': alice.key, 'X-Upload-Step': '1' }, body: payload(10) });
  t.is(missing.status, 422);
  t.is((svc.services.db!.prepare('SELECT COUNT(*) AS n FROM uploads').get() as { n: number }).n, 0);
});

test('v1 never answers an undocumented status', async (t) => {
  const svc = await startService({ OBSCURA_FILE_MAX: '1MiB', OBSCURA_CHUNK_MAX: '512KiB' });
  t.teardown(() => svc.close());
  const client = v1(svc.url.clearnet, (await svc.account()).key);
  const responses = [
    await client.create('a', 10 * 1024 * 1024), // too large: 413 elsewhere
    await client.send('POST', '/v1/upload/create-media-url', { body: '{"name":', headers: { 'Content-Type': 'application/json' } }), // bad JSON: 400 elsewhere
    await client.send('POST', '/v1/upload/create-media-url', { json: [] }),
    await client.send('POST', '/v1/upload/create-media-url', { json: { name: 'a', size: -1 } }),
    await client.send('POST', '/v1/upload/create-media-url', { json: { name: 'a', size: '12' } }),
    await client.send('POST', '/v1/upload/create-media-url', { json: { size: 12 } }),
  ];
  for (const r of responses) {
    t.true([401, 404, 410, 422, 500].includes(r.status), `${r.status}`);
    t.is(typeof r.body.message, 'string');
  }
  t.deepEqual(responses.map((r) => r.status), [422, 422, 422, 422, 422, 422]);
});
