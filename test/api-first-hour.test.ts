// The rough edges a newcomer hit in the first hour (issue 25, points 1, 3, 4, 5 and 10), each
// on the real service over HTTP: where v1 takes its key, a file name sent as raw UTF-8, the
// step a one-step session needs no header for, v1's status table for a wrong method, and an
// old v1 client that wants 200 for every chunk.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService, type RunningService } from './helpers/service.ts';
import { rawConnection } from './helpers/raw-http.ts';
import { payload } from './helpers/payload.ts';
import { until } from './helpers/until.ts';
import { v1 } from './helpers/v1.ts';
import { loadConfig } from '../src/config.ts';

const tiny = () => sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).png().toBuffer();

async function files(svc: RunningService, key: string, uid: string, kind: string) {
  return (await svc.api('GET', `/api/${kind}session/${uid}/files`, key)).body.files as { name: string; step: number; status: string }[];
}

// ---- 1. v1 takes its key in the api_key header, and says so ----------------------------

test('v1: a key sent as X-Api-Key or ?api_key= is 401 missing_api_key saying where v1 takes it; the query string is never read', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const base = svc.url.clearnet;
  const body = JSON.stringify({ name: 'a.png', size: 10 });
  const json = { 'Content-Type': 'application/json' };

  const newer = await fetch(`${base}/v1/upload/create-media-url`, { method: 'POST', headers: { ...json, 'X-Api-Key': key }, body });
  t.is(newer.status, 401);
  const a = (await newer.json()) as { error: string; message: string };
  t.is(a.error, 'missing_api_key');
  t.is(a.message, "v1 takes the key in the `api_key` request header; X-Api-Key is the newer API's.");

  const query = await fetch(`${base}/v1/upload/create-media-url?api_key=${encodeURIComponent(key)}`, { method: 'POST', headers: json, body });
  t.is(query.status, 401, 'a good key in the query string does not authenticate');
  const b = (await query.json()) as { error: string; message: string };
  t.is(b.error, 'missing_api_key');
  t.is(b.message, 'v1 takes the key in the `api_key` request header; a query parameter is never read: keys in URLs end up in logs.');
  t.false(svc.logs.join('').includes(key), 'the key in the URL is in no log line');

  const none = await fetch(`${base}/v1/job/status/job_whatever`, { method: 'POST' });
  t.is(none.status, 401);
  t.regex(((await none.json()) as { message: string }).message, /`api_key` request header.*underscores_in_headers on;/, 'no key at all: the proxy that drops underscores is named');

  // the other way round, the newer API names its own header
  const v1Header = await fetch(`${base}/api/session`, { method: 'POST', headers: { ...json, api_key: key }, body: JSON.stringify({ type: 'hide' }) });
  t.is(v1Header.status, 401);
  t.like(await v1Header.json(), { error: 'missing_api_key', message: "The newer API takes the key in the `X-Api-Key` request header; api_key is v1's." });

  // and the right header works, as before
  t.is((await v1(base, key).create('a.png', 10)).status, 201);
});

// ---- 3. X-Filename as raw UTF-8 bytes ---------------------------------------------------

/** A direct upload whose X-Filename header carries exactly these bytes. */
async function rawUpload(svc: RunningService, key: string, uid: string, filename: Buffer, body: Buffer) {
  const conn = await rawConnection(svc.url.clearnet);
  try {
    const head = Buffer.concat([
      Buffer.from(`POST /api/upload HTTP/1.1\r\nHost: ${new URL(svc.url.clearnet).host}\r\nX-Api-Key: ${key}\r\nX-Upload-Uid: ${uid}\r\nX-Upload-Step: 1\r\nX-Filename: `),
      filename,
      Buffer.from(`\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
    ]);
    conn.write(Buffer.concat([head, body]));
    return await conn.answer();
  } finally {
    conn.close();
  }
}

test('X-Filename: raw UTF-8 (as curl sends it) is stored and shown as written; percent-encoding still works; raw text is never percent-decoded; Latin-1 bytes stay Latin-1', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid as string;
  const cases: [string, Buffer, string][] = [
    ['raw UTF-8', Buffer.from('café photo.jpg', 'utf8'), 'café photo.jpg'],
    ['percent-encoded UTF-8', Buffer.from('caf%C3%A9%20photo.jpg'), 'café photo.jpg'],
    ['raw UTF-8 with a percent sign: a literal %', Buffer.from('café 100%25.jpg', 'utf8'), 'café 100%25.jpg'],
    ['raw Latin-1, not UTF-8', Buffer.from('caf\u00e9.jpg', 'latin1'), 'café.jpg'],
    ['raw UTF-8 of other scripts', Buffer.from('写真 фото.jpg', 'utf8'), '写真 фото.jpg'],
  ];
  const answered: string[] = [];
  for (const [what, header, _] of cases) {
    const a = await rawUpload(svc, key, uid, header, payload(300));
    t.is(a.status, 201, `${what}: ${a.body}`);
    answered.push(a.json.file.name);
  }
  t.deepEqual(answered, cases.map((c) => c[2]), 'the upload answers the name as meant');
  t.deepEqual((await files(svc, key, uid, 'convert/')).map((f) => f.name), cases.map((c) => c[2]), 'and the session lists it so');
});

// ---- 4. X-Upload-Step defaults to 1 where a session has one step ---------------------------

test('X-Upload-Step and TUS step: absent, they are 1 on a convert, analyse or reveal session; a hide still needs them (422 invalid_step)', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const png = await tiny();
  const direct = (uid: string) =>
    fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Filename': 'a.png' }, body: png });
  const tusCreate = (uid: string) =>
    fetch(`${svc.url.clearnet}/api/tus`, {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Length': String(png.length), 'Upload-Metadata': `upload_uid ${Buffer.from(uid).toString('base64')}` },
    });
  for (const [kind, path, body] of [
    ['convert', '/api/convert/session', {}],
    ['analyse', '/api/analyse/session', {}],
    ['reveal', '/api/session', { type: 'reveal' }],
  ] as const) {
    const uid = (await svc.api('POST', path, key, body)).body.upload_uid as string;
    const r = await direct(uid);
    t.is(r.status, 201, `${kind}: ${await r.clone().text()}`);
    t.is(((await r.json()) as { file: { step: number } }).file.step, 1);
    if (kind === 'reveal') continue; // a reveal takes one file
    const c = await tusCreate(uid);
    t.is(c.status, 201, `${kind} TUS: ${await c.text()}`);
  }
  const hide = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid as string;
  const r = await direct(hide);
  t.is(r.status, 422);
  t.like(await r.json(), { error: 'invalid_step', message: 'A hide session takes step 1, 2 or 3; got null.' });
  const c = await tusCreate(hide);
  t.is(c.status, 422);
  t.like(await c.json(), { error: 'invalid_step' });
  const bad = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': hide, 'X-Upload-Step': 'one' }, body: png });
  t.is(bad.status, 422, 'a step that is sent must still be a step');
});

// ---- 5. v1 answers only the statuses of its table -------------------------------------------

test('v1: another method on a v1 operation (GET on a status URL, on create-media-url) is 500 method_not_allowed with Allow, as SEED-SPEC.md\'s table says; a path that is no v1 operation stays 404', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const client = v1(svc.url.clearnet, key);
  for (const [method, path, allow] of [
    ['GET', '/v1/job/status/job_whatever', /POST/],
    ['GET', '/v1/upload/create-media-url', /POST/],
    ['PUT', '/v1/upload/resumable/st_whatever00000', /PATCH/],
    ['POST', '/v1/job/result/job_whatever', /GET/],
  ] as const) {
    const r = await client.send(method, path);
    t.is(r.status, 500, `${method} ${path}`);
    t.is(r.body.error, 'method_not_allowed', `${method} ${path}`);
    t.regex(r.headers.get('allow') ?? '', allow, `${method} ${path}`);
    t.regex(r.body.message, new RegExp(`^${method} is not allowed here; this path takes `), `${method} ${path}`);
  }
  const nothing = await client.send('GET', '/v1/nothing/here');
  t.is(nothing.status, 404);
  t.is(nothing.body.error, 'not_found');
  // the newer interface keeps its 405
  const newer = await fetch(`${svc.url.clearnet}/api/session`, { headers: { 'X-Api-Key': key } });
  t.is(newer.status, 405);
});

// ---- 10. old v1 clients: 200 for every chunk -------------------------------------------------

/**
 * A v1 client as the published examples of this kind of service are written: 400 kB chunks,
 * anything but 200 to a PATCH is a failure (the last chunk too), then analyse, status until
 * COMPLETED, and the result.
 */
async function oldV1Client(base: string, key: string, name: string, file: Buffer): Promise<{ result: any }> {
  const CHUNK = 400_000;
  const call = async (method: string, url: string, init: { json?: unknown; form?: FormData } = {}) => {
    const headers: Record<string, string> = { api_key: key };
    if (init.json !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url.startsWith('http') ? url : `${base}${url}`, { method, headers, body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const created = await call('POST', '/v1/upload/create-media-url', { json: { name, size: file.length } });
  if (created.status !== 201) throw new Error(`create-media-url: ${created.status}`);
  const mediaUrl = created.headers.get('location')!;
  const mediaKey = mediaUrl.split('/').pop()!;
  for (let offset = 0; offset < file.length; offset += CHUNK) {
    const form = new FormData();
    form.append('offset', String(offset));
    form.append('file', new Blob([file.subarray(offset, offset + CHUNK)]), name);
    const r = await call('PATCH', mediaUrl, { form });
    if (r.status !== 200) throw new Error(`upload failed: the chunk at offset ${offset} answered ${r.status}`);
  }
  const started = await call('POST', '/v1/job/analyse', { json: { key: mediaKey, enableTips: true, enableExtraAnalysis: false } });
  if (started.status !== 200) throw new Error(`analyse: ${started.status}`);
  const jobUrl = started.headers.get('location')!;
  const status = await until('the v1 job COMPLETED', 120_000, async () => {
    const s = await call('POST', jobUrl);
    if (s.status !== 200 || s.body.status === 'FAILED') throw new Error(`status: ${s.status} ${JSON.stringify(s.body)}`);
    return s.body.status === 'COMPLETED' ? s.body : undefined;
  }, 250);
  const result = await call('GET', status.resultUrl);
  if (result.status !== 200) throw new Error(`result: ${result.status}`);
  return { result: result.body };
}

/** A real PNG of about 415 kB: random pixels do not compress. */
async function png415k(): Promise<Buffer> {
  const side = 372;
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

test('OBSCURA_V1_PATCH_DONE_STATUS=200: an old v1 client that wants 200 on every PATCH uploads 415 kB in 400 kB chunks, analyses and reads its result; with the default 204 it stops on the last chunk', async (t) => {
  const file = await png415k();
  t.true(file.length > 410_000 && file.length < 420_000, `${file.length} bytes`);

  const old = await startService({ OBSCURA_V1_PATCH_DONE_STATUS: '200' });
  t.teardown(() => old.close());
  const a = await old.account();
  const { result } = await oldV1Client(old.url.clearnet, a.key, 'noise.png', file);
  t.is(result.results.status, 'COMPLETED');
  t.is(result.results.files.length, 1);
  t.is(result.results.files[0].name, 'noise.png');

  const spec = await startService();
  t.teardown(() => spec.close());
  const b = await spec.account();
  const err = await t.throwsAsync(oldV1Client(spec.url.clearnet, b.key, 'noise.png', file));
  t.is(err?.message, 'upload failed: the chunk at offset 400000 answered 204', 'the first chunk passed, the last one stopped it');
});

test('OBSCURA_V1_PATCH_DONE_STATUS takes 204 or 200 only', (t) => {
  t.is(loadConfig({}).v1.patchDoneStatus, 204);
  t.is(loadConfig({ OBSCURA_V1_PATCH_DONE_STATUS: '200' }).v1.patchDoneStatus, 200);
  t.throws(() => loadConfig({ OBSCURA_V1_PATCH_DONE_STATUS: '201' }), { message: /OBSCURA_V1_PATCH_DONE_STATUS/ });
});
