// Abuse resistance, finding 2: a body sent a byte at a time must not hold a connection open
// for ever. On the real service with a minimum rate of 1 KiB/s measured over 2 s: a direct
// upload, a TUS PATCH, a v1 chunk and a JSON body that stall are each answered 408
// body_too_slow with the security headers; the TUS bytes that arrived stay resumable (HEAD
// gives their offset, a PATCH from there completes the file), a v1 chunk and a direct upload
// keep nothing; a body that keeps the rate is served whole.
import { test } from './helpers/test.ts';
import { startService, type RunningService } from './helpers/service.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { rawConnection, type RawAnswer } from './helpers/raw-http.ts';
import { until } from './helpers/until.ts';
import { v1 } from './helpers/v1.ts';
import { SECURITY_HEADERS } from '../src/http/middleware/security-headers.ts';

const SLOW = { OBSCURA_MIN_BODY_RATE: '1KiB', OBSCURA_MIN_BODY_RATE_WINDOW: '2s' };
const SIZE = 10_000;

const b64 = (s: string) => Buffer.from(s).toString('base64');

function assertTooSlow(t: any, a: RawAnswer, expected = 408) {
  t.is(a.status, expected, a.body);
  t.is(a.json?.error, 'body_too_slow');
  t.regex(a.json.message, /1024 bytes a second over 2 s/);
  t.is(a.headers.connection, 'close');
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) t.is(a.headers[name.toLowerCase()], value, name);
}

/** A request whose head goes out whole and whose body stops after `sent` bytes. */
async function stalled(svc: RunningService, head: string, body: Buffer, sent: number): Promise<RawAnswer> {
  const c = await rawConnection(svc.url.clearnet);
  c.write(`${head}Content-Length: ${body.length}\r\n\r\n`);
  c.write(body.subarray(0, sent));
  try {
    return await c.answer();
  } finally {
    c.close();
  }
}

async function session(svc: RunningService, key: string): Promise<string> {
  const s = await svc.api('POST', '/api/convert/session', key, {});
  return s.body.upload_uid;
}

async function storedBytes(svc: RunningService, id: string): Promise<Buffer> {
  const row = await svc.services.repos.uploads.byId(id)!;
  const parts: Buffer[] = [];
  for await (const c of svc.services.uploads.read(row!)) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

test('a TUS PATCH that stalls is answered 408 body_too_slow; HEAD gives the offset of the bytes that came, and a PATCH from there completes the file', async (t) => {
  t.timeout(60_000, 'without a minimum rate the server would wait for ever');
  const svc = await startService(SLOW);
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await session(svc, key);
  const created = await fetch(`${svc.url.clearnet}/api/tus`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Length': String(SIZE), 'Upload-Metadata': `upload_uid ${b64(uid)},step ${b64('1')},name ${b64('slow.bin')}` },
  });
  t.is(created.status, 201);
  const location = created.headers.get('location')!;
  const id = location.split('/').pop()!;
  const data = payload(SIZE);

  const head = `PATCH /api/tus/${id} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\n`;
  assertTooSlow(t, await stalled(svc, head, data, 1500));

  const offset = await fetch(location, { method: 'HEAD', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
  t.is(offset.status, 200);
  t.is(offset.headers.get('upload-offset'), '1500', 'the bytes that arrived are kept');

  const rest = await fetch(location, {
    method: 'PATCH',
    headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Offset': '1500', 'Content-Type': 'application/offset+octet-stream' },
    body: data.subarray(1500),
  });
  t.is(rest.status, 204, await rest.text());
  t.is(rest.headers.get('upload-offset'), String(SIZE));
  t.is(sha256(await storedBytes(svc, id)), sha256(data), 'the file is whole and in order');
});

test('a direct upload that stalls is answered 408 and stores nothing; one that keeps the rate over several windows is served', async (t) => {
  t.timeout(60_000, 'without a minimum rate the server would wait for ever');
  const svc = await startService(SLOW);
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await session(svc, key);
  const head = `POST /api/upload HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nX-Upload-Uid: ${uid}\r\nX-Upload-Step: 1\r\nX-Filename: slow.bin\r\n`;
  assertTooSlow(t, await stalled(svc, head, payload(SIZE), 500));
  // all or nothing: the cut body is discarded once its connection is gone
  await until('the cut upload discarded', 10_000, async () => {
    const files = (await svc.api('GET', `/api/convert/session/${uid}/files`, key)).body.files;
    return files.length === 0 ? true : undefined;
  });

  // a body that keeps the rate is served whole, however many windows it takes
  const data = payload(24 * 1024);
  const c = await rawConnection(svc.url.clearnet);
  t.teardown(() => c.close());
  c.write(`POST /api/upload HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nX-Upload-Uid: ${uid}\r\nX-Upload-Step: 1\r\nContent-Length: ${data.length}\r\n\r\n`);
  // 3 KiB every half second: six times the floor of 2 KiB per 2 s window, over about 4 s
  for (let off = 0; off < data.length; off += 3072) {
    c.write(data.subarray(off, off + 3072));
    await new Promise((r) => setTimeout(r, 500));
  }
  const steady = await c.answer();
  t.is(steady.status, 201, steady.body);
  t.is(steady.json.file.size, data.length);
});

test('a v1 chunk that stalls is answered (500 on v1, body_too_slow), the media-url stays at offset 0, and the whole chunk then completes it', async (t) => {
  t.timeout(60_000, 'without a minimum rate the server would wait for ever');
  const svc = await startService(SLOW);
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const client = v1(svc.url.clearnet, key);
  const created = await client.create('slow.jpg', SIZE);
  t.is(created.status, 201);
  const media = created.body.key;
  const data = payload(SIZE);
  const form = new FormData();
  form.append('offset', '0');
  form.append('file', new Blob([data]), 'chunk');
  const r = new Response(form);
  const body = Buffer.from(await r.arrayBuffer());
  const head = `PATCH /v1/upload/resumable/${media} HTTP/1.1\r\nHost: x\r\napi_key: ${key}\r\nContent-Type: ${r.headers.get('content-type')}\r\n`;
  assertTooSlow(t, await stalled(svc, head, body, 800), 500); // v1: "500 stands for all other 4XX and 5XX"
  const at = await client.head(media);
  t.is(at.headers.get('upload-offset'), '0', 'a v1 chunk is all or nothing');
  const whole = await client.patch(media, 0, data);
  t.is(whole.status, 204, JSON.stringify(whole.body));
});

test('a JSON body that stalls is answered 408 too', async (t) => {
  t.timeout(60_000, 'without a minimum rate the server would wait for ever');
  const svc = await startService(SLOW);
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const json = Buffer.from(JSON.stringify({ type: 'hide', padding: 'x'.repeat(200) }));
  const head = `POST /api/session HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\n`;
  assertTooSlow(t, await stalled(svc, head, json, 10));
});
