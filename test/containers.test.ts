// The shipped images and docker-compose.yml, built and run as an operator runs them: podman
// (Debian's 4.3, runc) builds every Dockerfile, Debian's docker-compose 1.29 starts the stacks
// through podman's Docker API, the admin CLI runs inside the container, and a convert and a
// hide/reveal go through the published port. Where podman cannot run, the tests say why and
// are skipped. The engine's storage (base image, layers) is kept in ~/.cache/obscura-tests.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { callApi } from './helpers/api-client.ts';
import { build, compose, dockerApi, down, engineMissing, healthy, ROOT, sh } from './helpers/containers.ts';
import type { RunningService } from './helpers/service.ts';
import { tempDir } from './helpers/service.ts';
import { finishJob, revealFile } from './helpers/stego-jobs.ts';
import { convertSession, uploadFile } from './helpers/upload-files.ts';

// docker-compose 1.29 names a service's built image <project>_<service>, the project being the
// stack folder's name; the tests build them under those names with podman (see build())
const PROJECT = 'obscura';
const IMAGES: Array<[string, string]> = [
  ['obscura', 'Dockerfile'],
  ['app1', 'Dockerfile'],
  ['app2', 'Dockerfile'],
  ['tor', 'deploy/docker/tor.Dockerfile'],
  ['i2pd', 'deploy/docker/i2pd.Dockerfile'],
  ['s3', 'deploy/docker/s3.Dockerfile'],
  ['postgres', 'deploy/docker/postgres.Dockerfile'],
];
const CLI = ['bin/obscura'];
const EMAIL = 'operator@example.org';
const PASSWORD = 'correct horse battery staple, in a container';
const fixture = (name: string) => readFileSync(path.join(ROOT, 'test/fixtures', name));

const missing = await engineMissing();
if (missing) {
  test.skip(`containers: skipped, ${missing}`, () => {});
} else {
  let stopApi: () => Promise<void> = async () => {};
  const dir = path.join(tempDir('obscura-stack-'), PROJECT);
  const env = new Map<string, string>();
  const writeEnv = () => writeFileSync(path.join(dir, '.env'), [...env].map(([k, v]) => `${k}=${v}\n`).join(''));
  let key = '';

  test.before(async (t) => {
    t.timeout(40 * 60_000);
    const started = Date.now();
    // a run left by an interrupted test: this storage is the tests' own, nothing else is in it
    await sh('podman', ['rm', '-af', '-t', '0']);
    await sh('podman', ['volume', 'rm', '-af']);
    await sh('podman', ['network', 'prune', '-f']);
    for (const [service, file] of IMAGES) await build(`${PROJECT}_${service}`, file);
    t.log(`images built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    stopApi = await dockerApi();
    // the operator's first steps (docs/operators.md "Containers"): the compose file, a master key readable
    // by the service's uid, and .env
    mkdirSync(path.join(dir, 'deploy/docker'), { recursive: true });
    for (const f of ['docker-compose.yml', 'deploy/docker/metrics.yml']) copyFileSync(path.join(ROOT, f), path.join(dir, f));
    mkdirSync(path.join(dir, 'secrets'), { mode: 0o700 });
    const keyFile = path.join(dir, 'secrets/master.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    chownSync(keyFile, 10001, 10001);
    const port = await freePort();
    env.set('OBSCURA_PORT', String(port)).set('OBSCURA_CLEARNET_ORIGIN', `http://127.0.0.1:${port}`).set('OBSCURA_METRICS_PORT', String(await freePort()));
    writeEnv();
  });

  test.after.always(async () => {
    await down(dir, '--profile', 'scale').catch(() => undefined);
    await sh('podman', ['volume', 'rm', '-af']).catch(() => undefined);
    // the tagged images stay as the next run's cache; the layers of earlier builds go
    await sh('podman', ['image', 'prune', '-f']).catch(() => undefined);
    await stopApi();
  });

  test.serial('the default stack: built, healthy, a key made in the container, a convert and a hide/reveal through the published port, hardened; restarted with its origins and metrics, backed up and restored', async (t) => {
    t.timeout(15 * 60_000);
    await compose(dir, 'up', '-d', '--no-build');
    await healthy(dir, 'obscura');
    await Promise.all([healthy(dir, 'tor'), healthy(dir, 'i2pd')]);

    const logs = (await compose(dir, 'logs', '--no-color', 'tor', 'i2pd')).stdout;
    const onion = /OBSCURA_ONION_ORIGIN=(http:\/\/[a-z2-7]{56}\.onion)/.exec(logs)?.[1];
    t.truthy(onion, `the tor container prints its onion origin:\n${logs.slice(-2000)}`);
    const i2p = /OBSCURA_I2P_ORIGIN=(http:\/\/[a-z2-7]{52}\.b32\.i2p)/.exec(logs)?.[1];
    t.truthy(i2p, 'the i2pd container prints its I2P origin');

    // the admin CLI inside the container, as docs/operators.md says; the key alone on stdout
    await compose(dir, 'exec', '-T', 'obscura', ...CLI, 'account', 'create', EMAIL, '--verified');
    key = (await compose(dir, 'exec', '-T', 'obscura', ...CLI, 'key', 'create', EMAIL)).stdout.trim();
    t.regex(key, /^\S{20,}$/, 'KEY=$(docker-compose exec -T obscura bin/obscura key create …) captures the key only');

    const svc = client(env.get('OBSCURA_CLEARNET_ORIGIN')!);
    const converted = await convert(svc, key);
    t.is(converted.bytes.subarray(8, 12).toString('latin1'), 'WEBP', 'the PNG came back as WebP');
    const secret = randomBytes(3000);
    const hidden = await hide(svc, key, secret);
    const revealed = await revealFile(svc, key, 'cover.png', hidden.bytes, PASSWORD);
    t.is(revealed.done.status, 'completed');
    t.true(revealed.files[0]?.bytes.equals(secret), 'the revealed file is the secret, byte for byte');

    // hardening as shipped: uid 10001, read-only root, no capabilities (every process of it)
    const id = (await compose(dir, 'ps', '-q', 'obscura')).stdout.trim();
    const inspect = JSON.parse((await sh('podman', ['inspect', id])).stdout)[0];
    t.true(inspect.HostConfig.ReadonlyRootfs, 'read-only root filesystem');
    const procs = (await compose(dir, 'exec', '-T', 'obscura', 'sh', '-c', 'for s in /proc/[0-9]*/status; do grep -E "^(Uid|CapPrm|CapEff|CapBnd):" "$s" | tr -s "\\t" " " | tr "\\n" " "; echo; done')).stdout.trim().split('\n');
    t.true(procs.length >= 2, procs.join('\n'));
    for (const p of procs) {
      t.regex(p, /Uid: 10001 10001 10001 10001/, p);
      t.regex(p, /CapPrm: 0{16} CapEff: 0{16} CapBnd: 0{16}/, p);
    }
    const write = await compose(dir, 'exec', '-T', 'obscura', 'sh', '-c', 'touch /opt/obscura/src/x 2>&1; echo "exit $?"');
    t.regex(write.stdout, /Read-only file system[\s\S]*exit 1/);

    // the stack restarted with the two origins added to .env, and the metrics override: the
    // account, the key, the results and the onion address are still there, the service hands
    // out the onion origin, and Prometheus' text is on the host's loopback
    appendFileSync(path.join(dir, '.env'), `OBSCURA_ONION_ORIGIN=${onion}\nOBSCURA_I2P_ORIGIN=${i2p}\n`);
    await down(dir);
    await compose(dir, '-f', 'docker-compose.yml', '-f', 'deploy/docker/metrics.yml', 'up', '-d', '--no-build');
    await healthy(dir, 'obscura');
    await healthy(dir, 'tor');
    t.is((await svc.api('GET', '/api/account', key)).status, 200, 'the key still works');
    t.true((await download(svc, key, converted.url)).equals(converted.bytes), 'the convert result is still there');
    t.true((await download(svc, key, hidden.url)).equals(hidden.bytes), 'the hidden file is still there');
    const again = (await compose(dir, 'logs', '--no-color', 'tor')).stdout;
    t.true(again.includes(`OBSCURA_ONION_ORIGIN=${onion}`), 'the same onion address after the restart');
    t.true((await compose(dir, 'logs', '--no-color', 'obscura')).stdout.includes(onion!), "the service's banner names its onion origin");
    t.regex((await compose(dir, 'exec', '-T', 'obscura', ...CLI, 'account', 'show', EMAIL)).stdout, /verified, active/);
    const metrics = await (await fetch(`http://127.0.0.1:${env.get('OBSCURA_METRICS_PORT')}/metrics`)).text();
    t.regex(metrics, /^obscura_http_requests_total\{listener="clearnet",method="GET",route="\/api\/account",status="200"\} 1$/m);
    t.regex(metrics, /^obscura_workers \d+$/m);

    // a backup of the running service, on its backups volume, copied out to the host
    const day = 'first-backup';
    const backup = await compose(dir, 'exec', '-T', 'obscura', ...CLI, 'backup', `/var/lib/obscura-backups/${day}`);
    t.regex(backup.stderr, /master key/i, 'the backup says where the master key is, kept apart');
    const running = (await compose(dir, 'ps', '-q', 'obscura')).stdout.trim();
    await sh('podman', ['cp', `${running}:/var/lib/obscura-backups/${day}`, path.join(dir, 'backups')]);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'backups/MANIFEST.json'), 'utf8'));
    t.true(manifest.counts.accounts >= 1 && manifest.counts.jobs >= 3, JSON.stringify(manifest.counts));

    // the restore docs/operators.md gives: the stack down, the data volume removed, restore, up
    await down(dir);
    await sh('podman', ['volume', 'rm', 'obscura-data']);
    await compose(dir, 'run', '--rm', '--no-deps', '-T', 'obscura', ...CLI, 'restore', `/var/lib/obscura-backups/${day}`);
    await compose(dir, 'up', '-d', '--no-build');
    await healthy(dir, 'obscura');
    t.is((await svc.api('GET', '/api/account', key)).status, 200, 'the key works on the restored data');
    t.true((await download(svc, key, converted.url)).equals(converted.bytes), 'the convert result is restored');
    await down(dir);
  });

  test.serial('the build context holds only what the images copy (.dockerignore): no node_modules, .tools, data, secrets, tests or caches', async (t) => {
    // the engine's own reading of .dockerignore: a build that copies the whole context
    const dockerfile = path.join(tempDir('obscura-context-'), 'Dockerfile');
    writeFileSync(dockerfile, 'FROM docker.io/library/debian:bookworm-slim\nCOPY . /context\nRUN find /context -mindepth 1 -maxdepth 1 -printf "%f\\n" | sort > /context.list\n');
    await sh('podman', ['build', '--quiet', '--pull=never', '--network', 'none', '-f', dockerfile, '-t', 'obscura-context-check', '.']);
    const listed = (await sh('podman', ['run', '--rm', '--network', 'none', 'obscura-context-check', 'cat', '/context.list'])).stdout.trim().split('\n');
    await sh('podman', ['rmi', '-f', 'obscura-context-check']);
    t.deepEqual(listed, ['.npmrc', 'bin', 'deploy', 'package-lock.json', 'package.json', 'src']);
  });

  test.serial('the scale profile: PostgreSQL, the Swift store and two replicas; a job started on one is read on the other', async (t) => {
    t.timeout(15 * 60_000);
    const [a, b] = [await freePort(), await freePort()];
    env
      .set('OBSCURA_PG_PASSWORD', randomBytes(12).toString('hex'))
      .set('OBSCURA_S3_ACCESS_KEY', 'obscura:obscura')
      .set('OBSCURA_S3_SECRET_KEY', randomBytes(12).toString('hex'))
      .set('OBSCURA_SCALE_PORT_1', String(a))
      .set('OBSCURA_SCALE_PORT_2', String(b))
      .set('OBSCURA_CLEARNET_ORIGIN', `http://127.0.0.1:${a}`);
    writeEnv();
    await compose(dir, '--profile', 'scale', 'up', '-d', '--no-build', 'app1', 'app2');
    await Promise.all([healthy(dir, 'app1'), healthy(dir, 'app2')]);

    await compose(dir, 'exec', '-T', 'app1', ...CLI, 'account', 'create', EMAIL, '--verified');
    const scaleKey = (await compose(dir, 'exec', '-T', 'app2', ...CLI, 'key', 'create', EMAIL)).stdout.trim();
    const one = client(`http://127.0.0.1:${a}`);
    const two = client(`http://127.0.0.1:${b}`);
    const uid = await convertSession(one, scaleKey, [['photo.png', fixture('secret-small.png')]]);
    t.is((await one.api('POST', '/api/convert/job', scaleKey, { upload_uid: uid, image_format: 'webp' })).status, 201);
    const done = await finishJob(two, scaleKey, uid, '/api/convert/job');
    t.is(done.status, 'completed', JSON.stringify(done));
    const results = (await two.api('GET', `/api/convert/job/${uid}/results`, scaleKey)).body;
    const bytes = await download(two, scaleKey, results.result_files[0].download_url);
    t.is(bytes.subarray(8, 12).toString('latin1'), 'WEBP', 'the result, read through the other replica');
  });
}

/** The small client the API helpers take, aimed at a published port. */
function client(origin: string): RunningService {
  return { url: { clearnet: origin }, api: (method: string, p: string, key: string, body?: unknown) => callApi(origin, method, p, key, body) } as unknown as RunningService;
}

/** Downloads through this client's origin, whichever origin the URL was handed out for. */
async function download(svc: RunningService, key: string, url: string): Promise<Buffer> {
  const u = new URL(url);
  const res = await fetch(`${svc.url.clearnet}${u.pathname}${u.search}`, { headers: { 'X-Api-Key': key } });
  if (res.status !== 200) throw new Error(`download: ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

async function convert(svc: RunningService, key: string): Promise<{ url: string; bytes: Buffer }> {
  const uid = await convertSession(svc, key, [['photo.png', fixture('secret-small.png')]]);
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'webp' });
  if (start.status !== 201) throw new Error(JSON.stringify(start.body));
  const done = await finishJob(svc, key, uid, '/api/convert/job');
  if (done.status !== 'completed') throw new Error(JSON.stringify(done));
  const url = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files[0].download_url;
  return { url, bytes: await download(svc, key, url) };
}

async function hide(svc: RunningService, key: string, secret: Buffer): Promise<{ url: string; bytes: Buffer }> {
  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  await uploadFile(svc, key, uid, 1, 'notes.bin', secret);
  await uploadFile(svc, key, uid, 2, 'cover.jpg', fixture('photo-mountain.jpg'));
  const start = await svc.api('POST', '/api/job', key, { upload_uid: uid, password: PASSWORD });
  if (start.status !== 201) throw new Error(JSON.stringify(start.body));
  const done = await finishJob(svc, key, uid);
  if (done.status !== 'completed') throw new Error(JSON.stringify(done));
  const url = (await svc.api('GET', `/api/job/${uid}/results`, key)).body.result_files[0].download_url;
  return { url, bytes: await download(svc, key, url) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
