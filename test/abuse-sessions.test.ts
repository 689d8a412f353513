// Abuse resistance, the races and leftovers an attacker finds first (issue "Abuse resistance",
// findings 3-9, 11 and 12), each on the real service: one job per session under a burst of
// starts, a session's files frozen while its job waits, TUS termination only for TUS uploads,
// refused creations that leave nothing, JSON for every TUS refusal, client hang-ups that are
// not server errors, names without invisible characters, results gone the moment they
// expire, and v1's statuses as SEED-SPEC.md gives them.
import net from 'node:net';
import sharp from 'sharp';
import * as tus from 'tus-js-client';
import { test } from './helpers/test.ts';
import { startService, tempDir, type RunningService } from './helpers/service.ts';
import { PHOTO } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { v1 } from './helpers/v1.ts';
import { until } from './helpers/until.ts';

const PASSWORD = 'a long and private passphrase';

async function direct(svc: RunningService, key: string, uid: string, step: number, body: Buffer, name = 'file.bin') {
  const res = await fetch(`${svc.url.clearnet}/api/upload`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': String(step), 'X-Filename': name },
    body,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function tusCreate(svc: RunningService, key: string, uid: string, step: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new tus.Upload(bytes, {
      endpoint: `${svc.url.clearnet}/api/tus`,
      retryDelays: [],
      headers: { 'X-Api-Key': key },
      metadata: { upload_uid: uid, step: String(step), name: 'cover.png' },
      onError: reject,
      onSuccess: () => resolve(u.url!),
    });
    u.start();
  });
}

async function files(svc: RunningService, key: string, uid: string, kind = '') {
  return (await svc.api('GET', `/api/${kind}session/${uid}/files`, key)).body.files as { storage_uid: string; name: string; step: number; status: string }[];
}

async function settle(svc: RunningService, key: string, path: string) {
  return until(`${path} finishing`, 90_000, async () => {
    const r = await svc.api('GET', `${path}?wait=10`, key);
    return ['completed', 'partial', 'failed'].includes(r.body?.status) ? r.body : undefined;
  }, 50);
}

const cover = () => sharp(PHOTO).resize(480, 360).png().toBuffer();

test('one job per session: 10 parallel hide starts and 20 parallel convert starts make exactly one job each; the others get 409 naming it', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();

  const hide = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  t.is((await direct(svc, key, hide, 1, payload(2000))).status, 201);
  t.is((await direct(svc, key, hide, 2, await cover(), 'cover.png')).status, 201);
  const hides = await Promise.all(Array.from({ length: 10 }, () => svc.api('POST', '/api/job', key, { upload_uid: hide, password: PASSWORD })));
  const made = hides.filter((r) => r.status === 201);
  t.is(made.length, 1, `statuses: ${hides.map((r) => r.status).join(' ')}`);
  for (const r of hides.filter((x) => x.status !== 201)) {
    t.is(r.status, 409);
    t.is(r.body.error, 'session_used');
    t.is(r.body.job_uid, made[0].body.job_uid, 'the loser is told which job runs');
  }

  const conv = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  t.is((await direct(svc, key, conv, 1, await sharp(PHOTO).resize(200).jpeg().toBuffer(), 'a.jpg')).status, 201);
  const starts = await Promise.all(Array.from({ length: 20 }, () => svc.api('POST', '/api/convert/job', key, { upload_uid: conv, image_format: 'png' })));
  t.is(starts.filter((r) => r.status === 201).length, 1, `statuses: ${starts.map((r) => r.status).join(' ')}`);
  t.true(starts.every((r) => r.status === 201 || (r.status === 409 && r.body.error === 'session_used')));

  // the one job runs and is the one the session answers with; it holds the session, ended too
  const done = await settle(svc, key, `/api/job/${hide}`);
  t.is(done.status, 'completed');
  t.is(done.job_uid, made[0].body.job_uid);
  t.is((await settle(svc, key, `/api/convert/job/${conv}`)).status, 'completed');
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: conv, image_format: 'webp' })).status, 409, 'a finished job still holds the session');
  // the database holds the rule, not only the check before it
  const rows = svc.services.db!.prepare('SELECT COUNT(*) AS n FROM jobs WHERE session_id = ?').get(conv) as { n: number };
  t.is(rows.n, 1);
});

test("a job's files are frozen from its start: no upload, TUS creation or deletion while it waits (409); after a restart it runs on exactly the files it validated", async (t) => {
  const dataDir = tempDir();
  let svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  await svc.services.jobs.stop(); // nothing runs: every job started now waits in the queue

  const secret = payload(3000);
  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  t.is((await direct(svc, key, uid, 1, secret, 'notes.bin')).status, 201);
  const coverUrl = await tusCreate(svc, key, uid, 2, await cover());
  const start = await svc.api('POST', '/api/job', key, { upload_uid: uid, password: PASSWORD });
  t.is(start.status, 201, JSON.stringify(start.body));
  const before = await files(svc, key, uid);

  // a large second secret (it would not fit the cover): refused now, not a late "does not fit"
  const late = await direct(svc, key, uid, 1, payload(400_000), 'big.bin');
  t.is(late.status, 409);
  t.is(late.body.error, 'session_busy');
  t.is(late.body.job_uid, start.body.job_uid);
  const tusLate = await fetch(`${svc.url.clearnet}/api/tus`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Length': '10', 'Upload-Metadata': `upload_uid ${Buffer.from(uid).toString('base64')},step MQ==` },
  });
  t.is(tusLate.status, 409);
  t.is(((await tusLate.json()) as any).error, 'session_busy');
  const del = await fetch(coverUrl, { method: 'DELETE', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
  t.is(del.status, 409, 'the cover cannot be deleted under the job');
  t.is(((await del.json()) as any).error, 'session_busy');
  t.deepEqual(await files(svc, key, uid), before, 'the files are exactly as the job found them');

  // a restart: the queued job runs, on its two files, and hides the original secret
  await svc.close();
  svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  const done = await settle(svc, key, `/api/job/${uid}`);
  t.is(done.status, 'completed', done.progress_message);
  const results = (await svc.api('GET', `/api/job/${uid}/results`, key)).body;
  const stego = Buffer.from(await (await fetch(results.result_files[0].download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
  const reveal = (await svc.api('POST', '/api/session', key, { type: 'reveal' })).body.upload_uid;
  t.is((await direct(svc, key, reveal, 1, stego, 'out.png')).status, 201);
  t.is((await svc.api('POST', '/api/job', key, { upload_uid: reveal, password: PASSWORD })).status, 201);
  t.is((await settle(svc, key, `/api/job/${reveal}`)).status, 'completed');
  const got = (await svc.api('GET', `/api/job/${reveal}/results`, key)).body.result_files;
  t.deepEqual(got.map((f: any) => f.name), ['notes.bin'], 'one secret, the one validated at start');
  const back = Buffer.from(await (await fetch(got[0].download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
  t.is(sha256(back), sha256(secret));
  // once the job has ended, the session takes no more files: it holds that one job, ever
  const after = await direct(svc, key, uid, 1, payload(100), 'more.bin');
  t.is(after.status, 409);
  t.is(after.body.error, 'session_used');
});

test('a convert session is frozen too: a ZIP added after the start is refused (409), and the job converts what it validated', async (t) => {
  const dataDir = tempDir();
  let svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  await svc.services.jobs.stop();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  t.is((await direct(svc, key, uid, 1, await sharp(PHOTO).resize(300).jpeg().toBuffer(), 'a.jpg')).status, 201);
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' })).status, 201);
  const zip = Buffer.concat([Buffer.from('PK\x03\x04'), payload(500)]);
  const added = await direct(svc, key, uid, 1, zip, 'archive.zip');
  t.is(added.status, 409);
  t.is(added.body.error, 'session_busy');
  await svc.close();
  svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  const done = await settle(svc, key, `/api/convert/job/${uid}`);
  t.is(done.status, 'completed', 'not partial: the ZIP never joined the job');
  const results = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body;
  t.is(results.result_files.length, 1);
  t.deepEqual(results.failed_files, []);
});

test('TUS DELETE reaches TUS uploads only: a direct upload and a v1 media-url of the same account answer 404 and stay', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  const up = await direct(svc, key, uid, 1, payload(500), 'direct.bin');
  t.is(up.status, 201);
  const client = v1(svc.url.clearnet, key);
  const media = await client.create('v1.bin', 400);
  const mediaKey = client.keyOf(media.headers.get('location')!);
  t.is((await client.patch(mediaKey, 0, payload(400))).status, 204);

  for (const id of [up.body.file.storage_uid, mediaKey]) {
    for (const method of ['DELETE', 'HEAD', 'PATCH']) {
      const r = await fetch(`${svc.url.clearnet}/api/tus/${id}`, {
        method,
        headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
        body: method === 'PATCH' ? Buffer.from('x') : undefined,
      });
      t.is(r.status, 404, `${method} /api/tus/${id.slice(0, 3)}…`);
    }
  }
  t.deepEqual((await files(svc, key, uid, 'analyse/')).map((f) => f.storage_uid), [up.body.file.storage_uid], 'the direct upload is still listed');
  const head = await client.head(mediaKey);
  t.is(head.status, 200, 'the v1 media-url is not deleted');
  t.is(head.headers.get('upload-offset'), '400');
});

test('a refused TUS creation leaves nothing: a body past Upload-Length is 413 with no Location, the session lists no file and a job can start', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  const res = await fetch(`${svc.url.clearnet}/api/tus`, {
    method: 'POST',
    headers: {
      'X-Api-Key': key,
      'Tus-Resumable': '1.0.0',
      'Upload-Length': '100',
      'Upload-Metadata': `upload_uid ${Buffer.from(uid).toString('base64')},step MQ==`,
      'Content-Type': 'application/offset+octet-stream',
    },
    body: payload(5000),
  });
  t.is(res.status, 413);
  t.is(res.headers.get('location'), null);
  const body = (await res.json()) as any;
  t.is(typeof body.error, 'string');
  t.deepEqual(await files(svc, key, uid, 'convert/'), [], 'no 0-byte upload left "uploading"');
  t.is((await direct(svc, key, uid, 1, await sharp(PHOTO).resize(200).jpeg().toBuffer(), 'a.jpg')).status, 201);
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' });
  t.is(start.status, 201, JSON.stringify(start.body));
  const rows = svc.services.db!.prepare("SELECT COUNT(*) AS n FROM uploads WHERE session_id = ? AND via = 'tus'").get(uid) as { n: number };
  t.is(rows.n, 0, 'no row either');
});

test('every TUS refusal is JSON {error, message} with the security headers: 412 without Tus-Resumable, 400 for a bad Upload-Length or Upload-Metadata', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const cases: [Record<string, string>, number, string][] = [
    [{ 'Upload-Length': '10' }, 412, 'tus_version_required'],
    [{ 'Tus-Resumable': '1.0.0', 'Upload-Length': 'abc' }, 400, 'invalid_tus_header'],
    [{ 'Tus-Resumable': '1.0.0', 'Upload-Length': '10', 'Upload-Metadata': 'bad metadata ### !' }, 400, 'invalid_tus_header'],
    [{ 'Tus-Resumable': '1.0.0' }, 400, 'bad_request'], // neither Upload-Length nor Upload-Defer-Length
  ];
  for (const [headers, status, code] of cases) {
    const res = await fetch(`${svc.url.clearnet}/api/tus`, { method: 'POST', headers: { 'X-Api-Key': key, ...headers } });
    const text = await res.text();
    t.is(res.status, status, text);
    t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = JSON.parse(text);
    t.is(body.error, code, text);
    t.true(typeof body.message === 'string' && body.message.length > 5);
    t.is(res.headers.get('x-content-type-options'), 'nosniff');
    t.regex(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    t.is(res.headers.get('cache-control'), 'no-store');
  }
  // methods TUS does not have get the answers every other path gives, with matching codes
  for (const [method, path, status, code] of [['PROPFIND', '/api/tus', 501, 'not_implemented'], ['GET', '/api/tus/st_whatever0000', 405, 'method_not_allowed'], ['PUT', '/api/tus', 405, 'method_not_allowed']] as const) {
    const res = await fetch(`${svc.url.clearnet}${path}`, { method, headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
    t.is(res.status, status, `${method} ${path}`);
    t.is(((await res.json()) as any).error, code, `${method} ${path}`);
  }
});

test('a client that hangs up mid-body is logged once at info as "client aborted" (499), never as a server error; its TUS upload stays resumable', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  const tusUid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  const created = await fetch(`${svc.url.clearnet}/api/tus`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Length': '100000', 'Upload-Metadata': `upload_uid ${Buffer.from(tusUid).toString('base64')},step MQ==` },
  });
  const tusPath = new URL(created.headers.get('location')!).pathname;
  const port = Number(new URL(svc.url.clearnet).port);
  const hangUps: [string, string][] = [
    [`POST /api/upload`, `X-Upload-Uid: ${uid}\r\nX-Upload-Step: 1\r\nContent-Length: 100000\r\n`],
    [`PATCH ${tusPath}`, `Tus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: 100000\r\n`],
    [`POST /api/session`, `Content-Type: application/json\r\nContent-Length: 100\r\n`],
  ];
  const logsBefore = svc.logs.length;
  for (const [line, head] of hangUps) {
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(`${line} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\n${head}\r\n`);
    // the client stops short of Content-Length and hangs up: the server gets the bytes, then EOF
    sock.end(payload(3000).subarray(0, line.includes('session') ? 40 : 3000));
    sock.resume();
    await new Promise((r) => sock.once('close', r));
  }
  const requests = () => svc.logs.slice(logsBefore).filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l));
  await until('three access-log lines', 10_000, () => (requests().filter((r) => r.status === 499).length >= 3 ? true : undefined), 20);
  const lines = svc.logs.slice(logsBefore).map((l) => JSON.parse(l));
  t.deepEqual(lines.filter((l) => l.level >= 50), [], 'no error-level line');
  t.is(lines.filter((l) => l.msg === 'client aborted').length >= 2, true);
  t.false(requests().some((r) => r.status >= 500), 'no 500 in the access log');
  // the TUS upload stays resumable: HEAD gives where it stands and a PATCH from there completes it
  const head = await fetch(`${svc.url.clearnet}${tusPath}`, { method: 'HEAD', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
  const offset = Number(head.headers.get('upload-offset'));
  t.true(offset >= 0 && offset <= 3000, `offset ${offset}`);
  const rest = await fetch(`${svc.url.clearnet}${tusPath}`, {
    method: 'PATCH',
    headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
    body: payload(100000 - offset),
  });
  t.is(rest.status, 204);
});

test('names lose bidi overrides, zero-width and other format characters and look-alike separators, in listings and in downloads', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  const jpeg = await sharp(PHOTO).resize(120).jpeg().toBuffer();
  const names: [string, string][] = [
    ['\u202Egpj.exe', 'gpj.exe'], // shows as "exe.jpg" with the override
    ['in\u200Bvoice\u2066.jpg\u2069', 'invoice.jpg'],
    ['..\u2215..\u2215etc\u2215passwd.jpg', '.._.._etc_passwd.jpg'],
    ['report\uFF0Ffinal\u2044v2.jpg', 'report_final_v2.jpg'],
    ['\uFEFFcafe\u0301.jpg', 'caf\u00e9.jpg'], // BOM gone, NFC
  ];
  for (const [raw] of names) t.is((await direct(svc, key, uid, 1, jpeg, encodeURIComponent(raw))).status, 201);
  const listed = (await files(svc, key, uid, 'convert/')).map((f) => f.name);
  t.deepEqual(listed, names.map(([, clean]) => clean));
  for (const n of listed) t.false(/[\p{Cf}\u2215\u2044\uFF0F]/u.test(n), n);

  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' })).status, 201);
  t.is((await settle(svc, key, `/api/convert/job/${uid}`)).status, 'completed');
  const results = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files;
  for (const f of results) {
    t.false(/[\p{Cf}]/u.test(f.name) || /[\p{Cf}]/u.test(f.output_name), f.output_name);
    const res = await fetch(f.download_url, { headers: { 'X-Api-Key': key } });
    await res.arrayBuffer();
    const cd = decodeURIComponent(res.headers.get('content-disposition') ?? '');
    t.false(/[\p{Cf}\u2215\u2044\uFF0F]/u.test(cd), cd);
  }
});

test('results are gone the moment they expire: results, downloads and the v1 resultUrl answer 410 or nothing before the janitor runs', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  t.is((await direct(svc, key, uid, 1, await sharp(PHOTO).resize(200).jpeg().toBuffer(), 'a.jpg')).status, 201);
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png', expiry: '10m' });
  await settle(svc, key, `/api/convert/job/${uid}`);
  const results = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body;
  const url = results.result_files[0].download_url;
  t.is((await fetch(url, { headers: { 'X-Api-Key': key } })).status, 200);

  // a v1 analyse that finished, for its resultUrl
  const client = v1(svc.url.clearnet, key);
  const jpeg = await sharp(PHOTO).resize(200).jpeg().toBuffer();
  const media = client.keyOf((await client.create('p.jpg', jpeg.length)).headers.get('location')!);
  await client.patch(media, 0, jpeg);
  const v1Job = client.keyOf((await client.send('POST', '/v1/job/analyse', { json: { key: media, enableTips: false, enableExtraAnalysis: false } })).headers.get('location')!);
  await until('the v1 analyse', 90_000, async () => ((await client.send('POST', `/v1/job/status/${v1Job}`)).body.status === 'COMPLETED' ? true : undefined), 100);
  t.not((await client.send('POST', `/v1/job/status/${v1Job}`)).body.resultUrl, '');

  // the clock passes both expiries (as time would); the janitor has not run
  const past = Date.now() - 1;
  await svc.services.repos.jobs.update(start.body.job_uid, { expiresAt: past });
  await svc.services.repos.jobs.update(v1Job, { expiresAt: past });
  const gone = await fetch(url, { headers: { 'X-Api-Key': key } });
  t.is(gone.status, 410);
  t.is(((await gone.json()) as any).error, 'results_expired');
  t.is((await svc.api('GET', `/api/convert/job/${uid}/results`, key)).status, 410);
  const status = await client.send('POST', `/v1/job/status/${v1Job}`);
  t.is(status.body.resultUrl, '', 'no resultUrl once expired');
  t.is((await client.send('GET', `/v1/job/result/${v1Job}`)).status, 422);
  // the janitor then reclaims the space; the answers stay the same
  t.true((await svc.services.results.expire()) >= 2);
  t.is((await fetch(url, { headers: { 'X-Api-Key': key } })).status, 410);
});

test('v1 statuses as SEED-SPEC gives them: an unknown job or media-url key is 422 on analyse, status and result; 404 stays resumableDelete\'s', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const client = v1(svc.url.clearnet, key);
  const answers = [
    await client.send('POST', '/v1/job/analyse', { json: { key: 'st_unknownunknown00', enableTips: false, enableExtraAnalysis: false } }),
    await client.send('POST', '/v1/job/status/job_unknownunknown'),
    await client.send('GET', '/v1/job/result/job_unknownunknown'),
    await client.head('st_unknownunknown00'),
  ];
  t.deepEqual(answers.map((a) => a.status), [422, 422, 422, 422]);
  for (const a of answers.slice(0, 3)) t.true(typeof a.body.error === 'string' && typeof a.body.message === 'string');
  t.is((await client.del('st_unknownunknown00')).status, 404);
  // another account's job: the same 422, nothing to tell the two apart
  const other = v1(svc.url.clearnet, (await svc.account()).key);
  const jpeg = await sharp(PHOTO).resize(100).jpeg().toBuffer();
  const media = client.keyOf((await client.create('p.jpg', jpeg.length)).headers.get('location')!);
  await client.patch(media, 0, jpeg);
  const job = client.keyOf((await client.send('POST', '/v1/job/analyse', { json: { key: media, enableTips: false, enableExtraAnalysis: false } })).headers.get('location')!);
  t.is((await other.send('POST', `/v1/job/status/${job}`)).status, 422);
});
