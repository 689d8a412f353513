// Abuse resistance, finding 2: a body sent a byte at a time must not hold a connection open
// for ever. On the real service with a minimum rate of 1 KiB/s measured over 2 s: a direct
// upload, a TUS PATCH, a v1 chunk and a JSON body that stall are each answered 408
// body_too_slow with the security headers; the TUS bytes that arrived stay resumable (HEAD
// gives their offset, a PATCH from there completes the file), a v1 chunk and a direct upload
// keep nothing; a body that keeps the rate is served whole. Round 3, finding 3: a body no route
// reads (a 404, a refusal) ends its connection after the answer, and the headers timeout is
// kept to within a second, on every request of a connection, even against a half-open client.
import net from 'node:net';
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

/** Sends one byte every `everyMs` until the server closes the connection; resolves with how many went. */
async function trickle(c: { write(b: string): void; closed(): Promise<void> }, everyMs: number, most: number): Promise<number> {
  let sent = 0;
  let open = true;
  void c.closed().then(() => (open = false));
  while (open && sent < most) {
    c.write('x');
    sent++;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return sent;
}

test('a body no route reads ends its connection: 3 keyless POSTs to /nowhere trickling a byte every 200 ms are answered 404 with Connection: close, then closed, and the full listener serves again', async (t) => {
  t.timeout(90_000, 'before, such a connection stayed open for two minutes');
  const svc = await startService({ ...SLOW, OBSCURA_MAX_CONNECTIONS: '3' });
  t.teardown(() => svc.close());
  const slow = await Promise.all([0, 1, 2].map(() => rawConnection(svc.url.clearnet)));
  t.teardown(() => slow.forEach((c) => c.close()));
  for (const c of slow) c.write('POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 10000000\r\n\r\nx');
  for (const c of slow) {
    const a = await c.answer();
    t.is(a.status, 404, a.body);
    t.is(a.headers.connection, 'close', 'the answer says the connection ends: the rest of the body is not wanted');
  }
  // 5 bytes a second against 1 KiB/s over 2 s: the server closes each within a window or two;
  // 150 bytes (30 s) is far past that, and far short of the two minutes it took before
  const sent = await Promise.all(slow.map((c) => trickle(c, 200, 150)));
  for (const n of sent) t.true(n < 150, `the server closed the connection after ${n} bytes`);
  const c = await rawConnection(svc.url.clearnet);
  c.write('GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n');
  const a = await c.answer();
  c.close();
  t.is(a.status, 200, 'the listener is free again');
});

/** A client that keeps its side open after the server's FIN (allowHalfOpen), as a hostile one may. */
async function halfOpenClient(base: string) {
  const u = new URL(base);
  const socket = net.connect({ host: u.hostname, port: Number(u.port), allowHalfOpen: true });
  await new Promise((r) => socket.once('connect', r));
  socket.on('error', () => {});
  let data = '';
  socket.on('data', (d) => (data += d));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return { write: (b: string) => socket.write(b), closed: () => closed, close: () => socket.destroy(), data: () => data };
}

test('request headers sent a byte at a time, first on a connection or after a kept-alive answer, are answered 408 request_timeout after the headers timeout, and the connection is closed even if the client keeps its side open', async (t) => {
  t.timeout(90_000, 'before, Node looked at the headers timeout every 30 s and a half-open client kept its connection for good');
  const svc = await startService({ OBSCURA_HEADERS_TIMEOUT: '2s', OBSCURA_REQUEST_TIMEOUT: '3s' });
  t.teardown(() => svc.close());
  const first = await halfOpenClient(svc.url.clearnet);
  const again = await halfOpenClient(svc.url.clearnet);
  t.teardown(() => [first, again].forEach((c) => c.close()));
  first.write('GET /api/status HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  again.write('GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n');
  await until('the first answer on the kept-alive connection', 10_000, () => again.data().includes('"UP"') || undefined);
  again.write('GET /api/status HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  // 5 bytes a second: a 2 s headers timeout ends each long before 100 bytes (20 s)
  const sent = await Promise.all([first, again].map((c) => trickle(c, 200, 100)));
  for (const [i, c] of [first, again].entries()) {
    t.true(sent[i] < 100, `closed after ${sent[i]} bytes`);
    t.regex(c.data(), /HTTP\/1\.1 408 [^]*"error":"request_timeout"/);
  }
});
