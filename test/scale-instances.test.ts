// Many instances on one PostgreSQL and one S3-compatible store, as an operator runs them behind
// a load balancer: each is the real service (`node src/main.ts`) in its own process, with its own
// data folder (scratch only), the same master key, and nothing else in common but the two engines.
import test from 'ava';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { exited, freePort, startChild } from './helpers/child.ts';
import { makeVideo } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { startPostgres, type Postgres } from './helpers/postgres.ts';
import { tempDir } from './helpers/service.ts';
import { startSwift, type RunningSwift } from './helpers/swift.ts';
import { until } from './helpers/until.ts';
import { v1 } from './helpers/v1.ts';

const MASTER_KEY = randomBytes(32).toString('base64url');
const SECRET = readFileSync(path.join(import.meta.dirname, 'fixtures/secret-small.png'));
const COVER = readFileSync(path.join(import.meta.dirname, 'fixtures/photo-mountain.jpg'));
const C2PA = readFileSync(path.join(import.meta.dirname, 'fixtures/c2pa-ai-generated.png'));

let pgc: Postgres;
let swift: RunningSwift;
test.before(async () => {
  [pgc, swift] = await Promise.all([startPostgres(), startSwift()]);
});
test.after.always(async () => {
  await Promise.all([pgc?.stop(), swift?.stop()]);
});

/** Each instance's recent output (log lines at warn, exit), by URL: a request that fails without
 *  an answer (the connection dropped) says what its instance printed, not only "fetch failed". */
const OUTPUT = new Map<string, string>();
const KEEP_OUTPUT = 16 * 1024;

/** fetch, whose failure to get any answer names the request, its cause and its instance's output. */
async function fetchOn(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
    const out = OUTPUT.get(new URL(url).origin);
    throw new Error(`${init?.method ?? 'GET'} ${new URL(url).pathname}: no answer (${cause?.code ?? ''} ${cause?.message ?? (err as Error).message})${out ? `; the instance printed:\n${out}` : ''}`, { cause: err });
  }
}

interface Instance {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** One more instance on the shared engines. */
async function instance(engines: { db: string; bucket: string }, env: Record<string, string> = {}): Promise<Instance> {
  const port = await freePort();
  const child = await startChild(tempDir(), port, {
    OBSCURA_DATABASE_URL: engines.db,
    OBSCURA_BLOB_URL: swift.url(engines.bucket),
    AWS_ACCESS_KEY_ID: swift.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: swift.credentials.secretAccessKey,
    OBSCURA_MASTER_KEY: MASTER_KEY,
    OBSCURA_JOB_LEASE: '3s',
    OBSCURA_SWEEP_INTERVAL: '1s',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  const keep = (text: string) => OUTPUT.set(url, ((OUTPUT.get(url) ?? '') + text).slice(-KEEP_OUTPUT));
  child.stdout!.on('data', (c) => keep(String(c)));
  child.stderr!.on('data', (c) => keep(String(c)));
  child.on('exit', (code, signal) => keep(`[exited: ${code ?? signal}]\n`));
  return {
    url,
    child,
    async stop() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

async function engines() {
  return { db: await pgc.database(), bucket: await swift.createBucket() };
}

/** A verified account and its key, made through the shared database (as the CLI would, on any instance). */
async function keyOn(db: string): Promise<string> {
  const { loadConfig } = await import('../src/config.ts');
  const { createServices } = await import('../src/services.ts');
  const s = await createServices(loadConfig({ OBSCURA_DATA_DIR: tempDir(), OBSCURA_DATABASE_URL: db, OBSCURA_MASTER_KEY: MASTER_KEY, OBSCURA_LOG_LEVEL: 'silent', OBSCURA_RUN_JOBS: 'off' }));
  try {
    const email = `scale-${Date.now()}-${Math.random().toString(36).slice(2)}@example.org`;
    await s.accounts.create(email, { verified: true });
    return (await s.apiKeys.issue(email)).key;
  } finally {
    await s.close();
  }
}

const call = async (base: string, key: string, method: string, p: string, body?: unknown) => {
  const r = await fetchOn(`${base}${p}`, { method, headers: { 'X-Api-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
};

const upload = async (base: string, key: string, uid: string, step: number, name: string, bytes: Buffer) => {
  const r = await fetchOn(`${base}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': String(step), 'X-Filename': name }, body: bytes });
  if (r.status !== 201) throw new Error(`upload ${r.status} ${await r.text()}`);
};

const download = async (base: string, key: string, p: string) => Buffer.from(await (await fetchOn(`${base}${p}`, { headers: { 'X-Api-Key': key } })).arrayBuffer());

test.serial('a TUS upload whose chunks alternate between two instances arrives whole; a job started on one runs on the other, and a long poll on the first answers when it ends', async (t) => {
  t.timeout(180_000);
  const e = await engines();
  const key = await keyOn(e.db);
  const front = await instance(e, { OBSCURA_RUN_JOBS: 'off' }); // answers requests, runs no job
  const worker = await instance(e);
  t.teardown(() => Promise.all([front.stop(), worker.stop()]));

  const session = (await call(front.url, key, 'POST', '/api/convert/session', {})).body.upload_uid;
  const video = makeVideo({ seconds: 3, width: 320, height: 240 });
  const created = await fetchOn(`${front.url}/api/tus`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Length': String(video.length), 'Upload-Metadata': `upload_uid ${Buffer.from(session).toString('base64')},step ${Buffer.from('1').toString('base64')},filename ${Buffer.from('clip.mp4').toString('base64')}` },
  });
  t.is(created.status, 201, await created.text());
  const id = new URL(created.headers.get('location')!).pathname.split('/').pop()!;
  const chunk = Math.ceil(video.length / 4);
  for (let i = 0, offset = 0; offset < video.length; i++) {
    const base = i % 2 === 0 ? worker.url : front.url; // every other chunk through the other instance
    const part = video.subarray(offset, offset + chunk);
    const r = await fetchOn(`${base}/api/tus/${id}`, { method: 'PATCH', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' }, body: part });
    t.is(r.status, 204, `chunk ${i} on ${i % 2 === 0 ? 'the worker' : 'the front'}`);
    offset += part.length;
    t.is(r.headers.get('upload-offset'), String(offset));
  }
  for (const base of [front.url, worker.url]) {
    const head = await fetchOn(`${base}/api/tus/${id}`, { method: 'HEAD', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
    t.is(head.headers.get('upload-offset'), String(video.length));
  }

  const start = await call(front.url, key, 'POST', '/api/convert/job', { upload_uid: session, video_format: 'webm' });
  t.is(start.status, 201, JSON.stringify(start.body));
  const began = Date.now();
  let poll = await call(front.url, key, 'GET', `/api/convert/job/${session}?wait=30`);
  while (!['completed', 'partial', 'failed'].includes(poll.body.status) && Date.now() - began < 120_000) poll = await call(front.url, key, 'GET', `/api/convert/job/${session}?wait=30`);
  t.is(poll.body.status, 'completed', poll.body.progress_message);
  const results = await call(front.url, key, 'GET', `/api/convert/job/${session}/results`);
  const webm = await download(front.url, key, results.body.result_files[0].download_path);
  t.is(webm.subarray(0, 4).toString('hex'), '1a45dfa3', 'a WebM, converted from every chunk');
  // the job ran on the worker: only it has a worker that took it
  const db = new pg.Client({ connectionString: e.db });
  await db.connect();
  t.teardown(() => db.end());
  const row = (await db.query('SELECT attempts, lease_owner FROM jobs WHERE id = $1', [start.body.job_uid])).rows[0];
  t.is(row.attempts, 1);
  t.is(row.lease_owner, null, 'the lease is dropped at the end');
});

test.serial('SIGKILL of the instance running a job: another takes it over when the lease runs out, not when it starts, and finishes it', async (t) => {
  t.timeout(180_000);
  const e = await engines();
  const key = await keyOn(e.db);
  const front = await instance(e, { OBSCURA_RUN_JOBS: 'off' });
  const doomed = await instance(e);
  t.teardown(() => front.stop());
  const session = (await call(front.url, key, 'POST', '/api/convert/session', {})).body.upload_uid;
  await upload(front.url, key, session, 1, 'clip.mp4', makeVideo({ seconds: 20, width: 640, height: 480 }));
  const start = await call(front.url, key, 'POST', '/api/convert/job', { upload_uid: session, video_format: 'mp4h265' });
  t.is(start.status, 201);
  await until('the job runs', 30_000, async () => ((await call(front.url, key, 'GET', `/api/convert/job/${session}`)).body.status === 'processing' ? true : undefined));
  await doomed.stop(); // SIGKILL, mid-job
  const killedAt = Date.now();
  const heir = await instance(e);
  t.teardown(() => heir.stop());
  const right = await call(front.url, key, 'GET', `/api/convert/job/${session}`);
  if (Date.now() - killedAt < 2500) t.is(right.body.status, 'processing', 'a new instance does not take a job whose lease still runs');
  let poll = right;
  while (!['completed', 'partial', 'failed'].includes(poll.body.status) && Date.now() - killedAt < 150_000) poll = await call(front.url, key, 'GET', `/api/convert/job/${session}?wait=30`);
  t.is(poll.body.status, 'completed', poll.body.progress_message);
  const db = new pg.Client({ connectionString: e.db });
  await db.connect();
  t.teardown(() => db.end());
  t.is((await db.query('SELECT attempts FROM jobs WHERE id = $1', [start.body.job_uid])).rows[0].attempts, 2, 'run twice: once killed, once whole');
  const results = await call(front.url, key, 'GET', `/api/convert/job/${session}/results`);
  t.is(results.body.result_files.length, 1, 'one result: the killed run left nothing behind');
});

test.serial('v1 upload and a hide/reveal round trip across instances; an expired session’s blobs are gone from the object store', async (t) => {
  t.timeout(180_000);
  const e = await engines();
  const key = await keyOn(e.db);
  const a = await instance(e, { OBSCURA_SESSION_LIFE: '20s' });
  const b = await instance(e, { OBSCURA_SESSION_LIFE: '20s' });
  t.teardown(() => Promise.all([a.stop(), b.stop()]));

  // v1: the media-url made on one, its chunks through both, the job on the other
  const bytes = payload(300_000);
  const onA = v1(a.url, key);
  const onB = v1(b.url, key);
  const media = onA.keyOf((await onA.create('x.bin', bytes.length)).headers.get('location')!);
  t.is((await onB.patch(media, 0, bytes.subarray(0, 150_000))).status, 200);
  t.is((await onA.patch(media, 150_000, bytes.subarray(150_000))).status, 204);
  t.is((await onB.head(media)).headers.get('upload-offset'), String(bytes.length));

  // hide on A (secret through A, cover through B), reveal on B: bit-exact
  const hide = (await call(a.url, key, 'POST', '/api/session', { type: 'hide' })).body.upload_uid;
  await upload(a.url, key, hide, 1, 'secret.png', SECRET);
  await upload(b.url, key, hide, 2, 'cover.jpg', COVER);
  t.is((await call(b.url, key, 'POST', '/api/job', { upload_uid: hide, password: 'four random words here' })).status, 201);
  let poll = await call(a.url, key, 'GET', `/api/job/${hide}?wait=30`);
  while (!['completed', 'failed'].includes(poll.body.status)) poll = await call(a.url, key, 'GET', `/api/job/${hide}?wait=30`);
  t.is(poll.body.status, 'completed', poll.body.progress_message);
  const stego = await download(b.url, key, (await call(b.url, key, 'GET', `/api/job/${hide}/results`)).body.result_files[0].download_path);
  const reveal = (await call(b.url, key, 'POST', '/api/session', { type: 'reveal' })).body.upload_uid;
  await upload(a.url, key, reveal, 1, 'stego.png', stego);
  t.is((await call(a.url, key, 'POST', '/api/job', { upload_uid: reveal, password: 'four random words here' })).status, 201);
  poll = await call(b.url, key, 'GET', `/api/job/${reveal}?wait=30`);
  while (!['completed', 'failed'].includes(poll.body.status)) poll = await call(b.url, key, 'GET', `/api/job/${reveal}?wait=30`);
  t.is(poll.body.status, 'completed', poll.body.progress_message);
  const back = await download(a.url, key, (await call(a.url, key, 'GET', `/api/job/${reveal}/results`)).body.result_files[0].download_path);
  t.is(sha256(back), sha256(SECRET));

  // the object store holds only ciphertext
  const listed = async () => (await swift.client.send(new ListObjectsV2Command({ Bucket: e.bucket }))).Contents ?? [];
  t.true((await listed()).length > 0);

  // a session left to expire: its uploads' objects leave the store (the sweep runs every second)
  const doomed = (await call(a.url, key, 'POST', '/api/convert/session', {})).body.upload_uid;
  await upload(b.url, key, doomed, 1, 'x.jpg', COVER);
  await upload(a.url, key, doomed, 1, 'y.png', SECRET);
  const db = new pg.Client({ connectionString: e.db });
  await db.connect();
  t.teardown(() => db.end());
  const ids = (await db.query('SELECT id FROM uploads WHERE session_id = $1 ORDER BY created_at', [doomed])).rows.map((r) => r.id as string);
  t.is(ids.length, 2);
  const present = async (id: string) => (await listed()).some((o) => o.Key!.startsWith(`${id}/`));
  const rows = async (id: string) => (await db.query('SELECT object_key IS NULL AS here FROM blob_parts WHERE object_id = $1 ORDER BY no', [id])).rows.map((r) => (r.here ? 'index' : 'store'));
  // the photo (415 kB) is in the object store; the small PNG (3 kB) is kept whole in the index
  t.true(await present(ids[0]!));
  t.deepEqual(await rows(ids[0]!), ['index', 'store']);
  t.false(await present(ids[1]!));
  t.deepEqual(await rows(ids[1]!), ['index', 'index']);
  await until('the expired uploads leave the object store and the index', 60_000, async () => {
    for (const id of ids) if ((await present(id)) || (await rows(id)).length) return undefined;
    return true;
  }, 1000);
  t.deepEqual((await db.query('SELECT state FROM uploads WHERE session_id = $1', [doomed])).rows.map((r) => r.state), ['expired', 'expired']);
});

test.serial('an instance with another master key, or credentials the store refuses, stops at start with one clear line and writes nothing', async (t) => {
  t.timeout(60_000);
  const e = await engines();
  const first = await instance(e); // takes the database with MASTER_KEY
  t.teardown(() => first.stop());
  const start = (env: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['src/main.ts'], {
        env: {
          ...process.env,
          OBSCURA_DATA_DIR: tempDir(),
          OBSCURA_CLEARNET_LISTEN: '127.0.0.1:0',
          OBSCURA_ONION_LISTEN: 'off',
          OBSCURA_I2P_LISTEN: 'off',
          OBSCURA_DATABASE_URL: e.db,
          OBSCURA_BLOB_URL: swift.url(e.bucket),
          AWS_ACCESS_KEY_ID: swift.credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: swift.credentials.secretAccessKey,
          OBSCURA_MASTER_KEY: MASTER_KEY,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (c) => (stderr += c));
      child.on('exit', (code) => resolve({ code, stderr }));
    });
  const otherKey = await start({ OBSCURA_MASTER_KEY: randomBytes(32).toString('base64url') });
  t.not(otherKey.code, 0);
  t.regex(otherKey.stderr, /the master key differs from the one this database was first used with/);
  const refused = await start({ AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
  t.not(refused.code, 0);
  t.regex(refused.stderr, /the blob store's bucket cannot be reached \(HTTP 403\)/);
  t.false(refused.stderr.includes('not-the-secret'), 'the secret is never printed');
  t.false(refused.stderr.includes(swift.credentials.secretAccessKey));
});

test.serial('moving off the embedded default: engine copy-accounts carries accounts, passwords and keys to PostgreSQL, and every key keeps working', async (t) => {
  t.timeout(90_000);
  const e = await engines();
  const dataDir = tempDir();
  const { loadConfig } = await import('../src/config.ts');
  const { createServices } = await import('../src/services.ts');
  const embedded = await createServices(loadConfig({ OBSCURA_DATA_DIR: dataDir, OBSCURA_MASTER_KEY: MASTER_KEY, OBSCURA_LOG_LEVEL: 'silent' }));
  const people = ['one@example.org', 'two@example.org'];
  const keys: string[] = [];
  for (const email of people) {
    await embedded.accounts.create(email, { verified: true });
    keys.push((await embedded.apiKeys.issue(email)).key);
  }
  await embedded.selfService.setPassword(await embedded.accounts.get(people[0]), 'a password that moves');
  await embedded.close();
  const cli = (args: string[]) =>
    spawnSync(process.execPath, ['src/cli.ts', ...args], { env: { ...process.env, OBSCURA_DATA_DIR: dataDir, OBSCURA_MASTER_KEY: MASTER_KEY, OBSCURA_TARGET_DATABASE_URL: e.db }, encoding: 'utf8' });
  const first = cli(['engine', 'copy-accounts']);
  t.is(first.status, 0, first.stderr);
  t.regex(first.stdout, /copied 2 accounts and 2 keys; 0 already there/);
  t.regex(cli(['engine', 'copy-accounts']).stdout, /copied 0 accounts and 0 keys; 2 already there/, 'a second run changes nothing');
  const app = await instance(e);
  t.teardown(() => app.stop());
  for (const [i, key] of keys.entries()) t.like((await call(app.url, key, 'GET', '/api/account')).body, { email: people[i], verified: true });
  const page = await fetchOn(`${app.url}/sign-in`);
  const cookie = page.headers.get('set-cookie')!.split(';')[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
  const signIn = await fetchOn(`${app.url}/sign-in`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, method: 'password', email: people[0], password: 'a password that moves' }) });
  t.is(signIn.status, 303, 'the web password moved too');
});

test.serial('an account’s limits hold across instances: requests a minute are counted once for all', async (t) => {
  t.timeout(60_000);
  const e = await engines();
  const key = await keyOn(e.db);
  const [a, b] = await Promise.all([instance(e, { OBSCURA_RATE_REQUESTS_PER_MINUTE: '6' }), instance(e, { OBSCURA_RATE_REQUESTS_PER_MINUTE: '6' })]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) statuses.push((await call(i % 2 ? a.url : b.url, key, 'GET', '/api/account')).status);
  t.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429], 'six in the minute, across both instances');
  const refused = await call(a.url, key, 'GET', '/api/account');
  t.regex(refused.headers.get('retry-after')!, /^\d+$/);
});

test.serial('the brake on wrong keys holds across instances: tripped on one, it stops new keys on the other, and keys in use on either pass', async (t) => {
  t.timeout(60_000);
  const e = await engines();
  const [inUse, fresh] = [await keyOn(e.db), await keyOn(e.db)];
  const env = { OBSCURA_RATE_BAD_KEYS: '4', OBSCURA_RATE_BAD_KEYS_BRAKE: '2m' };
  const [a, b] = await Promise.all([instance(e, env), instance(e, env)]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  t.is((await call(a.url, inUse, 'GET', '/api/account')).status, 200, 'a key in use, seen by the first instance only');
  const wrong = () => `sw_${randomBytes(32).toString('base64url')}`;
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await call(i % 2 ? b.url : a.url, wrong(), 'GET', '/api/account')).status);
  t.deepEqual(statuses, [401, 401, 401, 401, 401], 'four wrong keys across both, and the fifth, which trips the brake, were each looked up');
  t.is((await call(a.url, wrong(), 'GET', '/api/account')).status, 429, 'guesses are no longer checked');
  // the other instance reads the brake within a second (a guess it still checks meanwhile counts too)
  await until('the brake reaches the other instance', 10_000, async () => ((await call(b.url, wrong(), 'GET', '/api/account')).status === 429 ? true : undefined), 250);
  const refused = await call(b.url, fresh, 'GET', '/api/account');
  t.is(refused.status, 429, 'a valid key never used waits out the brake like a guess');
  t.is(refused.body.error, 'rate_limited');
  t.true(Number(refused.headers.get('retry-after')) > 60);
  t.is((await call(b.url, inUse, 'GET', '/api/account')).status, 200, 'a key in use on the other instance passes the brake here');
});

test.serial('the sign-in brake holds across instances: failures for one address counted once for all', async (t) => {
  t.timeout(60_000);
  const e = await engines();
  const { loadConfig } = await import('../src/config.ts');
  const { createServices } = await import('../src/services.ts');
  const open = () => createServices(loadConfig({ OBSCURA_DATA_DIR: tempDir(), OBSCURA_DATABASE_URL: e.db, OBSCURA_MASTER_KEY: MASTER_KEY, OBSCURA_LOG_LEVEL: 'silent', OBSCURA_RUN_JOBS: 'off', OBSCURA_SIGN_IN_FAILURES: '4' }));
  const [one, two] = [await open(), await open()];
  t.teardown(() => Promise.all([one.close(), two.close()]));
  const account = await one.accounts.create('person@example.org', { verified: true });
  await one.selfService.setPassword(account, 'correct horse battery staple');
  const tries: string[] = [];
  for (let i = 0; i < 5; i++) {
    const s = i % 2 ? two : one;
    tries.push(await s.selfService.signIn({ email: 'person@example.org', password: `wrong ${i}` }, `client:visitor ${i}`).then(() => 'in', (err: { code: string }) => err.code));
  }
  t.deepEqual(tries, ['sign_in_failed', 'sign_in_failed', 'sign_in_failed', 'sign_in_failed', 'rate_limited']);
  const right = await two.selfService.signIn({ email: 'person@example.org', password: 'correct horse battery staple' }, 'client:the owner').catch((err: { code: string }) => err.code);
  t.is(right, 'rate_limited', 'the address’s password is braked on every instance, even for the right password, whoever tries it');
  const other = await one.accounts.create('other@example.org', { verified: true });
  await one.selfService.setPassword(other, 'another good passphrase');
  t.is((await two.selfService.signIn({ email: 'other@example.org', password: 'another good passphrase' }, 'client:visitor 0')).id, other.id, 'another address is not braked');
});

test.serial('a TUS upload resumed on another instance while its broken PATCH still holds it on the first: the first is asked to let go, and the upload completes', async (t) => {
  t.timeout(90_000);
  const e = await engines();
  const key = await keyOn(e.db);
  // the first instance would keep a stalled body for a long time (no body-rate cut-off within the test)
  const slow = { OBSCURA_MIN_BODY_RATE_WINDOW: '10m' };
  const [a, b] = await Promise.all([instance(e, slow), instance(e, slow)]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  const session = (await call(a.url, key, 'POST', '/api/convert/session', {})).body.upload_uid;
  const data = payload(3 * 1024 * 1024);
  const tus = { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' };
  const created = await fetchOn(`${a.url}/api/tus`, {
    method: 'POST',
    headers: { ...tus, 'Upload-Length': String(data.length), 'Upload-Metadata': `upload_uid ${Buffer.from(session).toString('base64')},step ${Buffer.from('1').toString('base64')},filename ${Buffer.from('big.bin').toString('base64')}` },
  });
  t.is(created.status, 201);
  const path = new URL(created.headers.get('location')!).pathname;
  // a PATCH on the first instance whose client vanished mid-body: 1 MiB sent, then nothing, the socket left open
  const { request } = await import('node:http');
  const stalled = request(`${a.url}${path}`, { method: 'PATCH', headers: { ...tus, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', 'Content-Length': String(data.length) } });
  const ended = new Promise<number>((resolve) => {
    stalled.on('response', (r) => resolve(r.statusCode ?? 0));
    stalled.on('error', () => resolve(-1));
    stalled.on('close', () => resolve(-1));
  });
  t.teardown(() => void stalled.destroy());
  stalled.write(data.subarray(0, 1024 * 1024));
  await new Promise((r) => setTimeout(r, 500));
  // the client comes back through the balancer to the other instance: without a word to the first,
  // this HEAD would wait out tus's 30 s lock timeout and fail
  const began = Date.now();
  const head = await fetchOn(`${b.url}${path}`, { method: 'HEAD', headers: tus });
  t.is(head.status, 200);
  t.log(`HEAD on the other instance answered after ${Date.now() - began} ms`);
  const offset = Number(head.headers.get('upload-offset'));
  t.true(offset >= 0 && offset <= 1024 * 1024, `offset ${offset}`);
  t.not(await ended, 0, 'the stalled request was ended by its instance');
  const rest = await fetchOn(`${b.url}${path}`, { method: 'PATCH', headers: { ...tus, 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' }, body: data.subarray(offset) });
  t.is(rest.status, 204);
  t.is(rest.headers.get('upload-offset'), String(data.length));
});

test.serial('an analysis across instances: started on a front end, run by the other, its report and pictures served by either', async (t) => {
  t.timeout(180_000);
  const e = await engines();
  const key = await keyOn(e.db);
  const front = await instance(e, { OBSCURA_RUN_JOBS: 'off' });
  const worker = await instance(e);
  t.teardown(() => Promise.all([front.stop(), worker.stop()]));
  const uid = (await call(front.url, key, 'POST', '/api/analyse/session', {})).body.upload_uid;
  await upload(worker.url, key, uid, 1, 'made-by-ai.png', C2PA); // 2.4 MB: in the bucket
  await upload(front.url, key, uid, 1, 'small.png', SECRET); // 3 kB: in the part index
  const start = await call(front.url, key, 'POST', '/api/analyse/job', { upload_uid: uid });
  t.is(start.status, 201, JSON.stringify(start.body));
  let poll = await call(front.url, key, 'GET', `/api/analyse/job/${uid}?wait=30`);
  while (!['completed', 'partial', 'failed'].includes(poll.body.status)) poll = await call(front.url, key, 'GET', `/api/analyse/job/${uid}?wait=30`);
  t.is(poll.body.status, 'completed', poll.body.progress_message);
  for (const base of [front.url, worker.url]) {
    const result = await call(base, key, 'GET', `/api/analyse/result/${start.body.job_uid}`);
    t.is(result.status, 200);
    const [ai, small] = result.body.files;
    t.is(ai.verdicts.c2pa.verdict, 'valid', 'the C2PA manifest read from the bucket');
    t.is(small.name, 'small.png');
    t.true(ai.assets.length > 0);
    for (const a of [...ai.assets, ...small.assets]) {
      t.true(a.download_url.startsWith(base), 'each instance hands out its own URLs');
      const res = await fetchOn(a.download_url, { headers: { 'X-Api-Key': key } });
      t.is(res.status, 200, a.category);
      t.true((await res.arrayBuffer()).byteLength > 0);
    }
  }
});
