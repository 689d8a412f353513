// The S3 store of the compose `scale` profile as its container runs it: deploy/s3/run.sh as
// shipped, in the foreground, on a state folder that outlives it; SIGTERM stops every server.
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { makeS3Client } from '../src/store/blobs/s3-store.ts';
import { tempDir } from './helpers/service.ts';
import { swiftPort, takeLock, SWIFT_CREDENTIALS, SWIFT_REGION } from './helpers/swift.ts';
import { until } from './helpers/until.ts';

test('deploy/s3/run.sh: serves S3 in the foreground, stops cleanly on SIGTERM, and the objects outlive it', async (t) => {
  t.timeout(180_000);
  const lock = await takeLock(10 * 60_000); // Swift's servers take fixed ports: one on the machine at a time
  t.teardown(() => lock.kill());
  const state = tempDir('obscura-s3-state-');
  // whatever happens, no server of this test outlives it (another test needs the fixed ports)
  t.teardown(() => void spawnSync('bash', ['deploy/s3/stop.sh', state], { stdio: 'ignore' }));
  const port = await swiftPort();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = { ...process.env, S3_PORT: String(port), S3_ACCESS_KEY: SWIFT_CREDENTIALS.accessKeyId, S3_SECRET_KEY: SWIFT_CREDENTIALS.secretAccessKey };
  const run = () => {
    const child = spawn('deploy/s3/run.sh', [state], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    t.teardown(() => child.kill('SIGKILL'));
    return { child, exit };
  };
  const healthy = () => until('the store answers', 120_000, async () => ((await fetch(`${endpoint}/healthcheck`).catch(() => undefined))?.ok ? true : undefined), 500);
  const client = makeS3Client({ endpoint, region: SWIFT_REGION }, SWIFT_CREDENTIALS);
  t.teardown(() => client.destroy());

  // the proxy's healthcheck can answer before the account, container and object servers do
  // (Swift then says 503, "reduce your request rate"; on a loaded machine for over a minute):
  // the store is up once a request through all of them succeeds
  const serving = <T>(what: string, call: () => Promise<T>) => until(what, 90_000, call, 300);

  const first = run();
  await healthy();
  // a SIGTERM now may still find start.sh finishing: run.sh keeps it and stops once up
  await serving('a bucket is made', () =>
    client.send(new CreateBucketCommand({ Bucket: 'kept' })).catch((err: Error) => (err.name === 'BucketAlreadyOwnedByYou' ? true : Promise.reject(err))),
  );
  await serving('an object is stored', () => client.send(new PutObjectCommand({ Bucket: 'kept', Key: 'k', Body: 'ciphertext stand-in' })));
  first.child.kill('SIGTERM');
  t.is(await first.exit, 0, 'a clean stop');
  t.false((await fetch(`${endpoint}/healthcheck`).then(() => true, () => false)), 'no server left behind');

  const second = run(); // the container again, on the same volume
  await healthy();
  const got = await serving('the object is read back', () => client.send(new GetObjectCommand({ Bucket: 'kept', Key: 'k' })));
  t.is(await got.Body!.transformToString(), 'ciphertext stand-in');
  second.child.kill('SIGTERM');
  t.is(await second.exit, 0);

  // stopped while it is still starting: it finishes starting, then stops every server it started
  const early = run();
  await new Promise((r) => setTimeout(r, 300));
  early.child.kill('SIGTERM');
  t.is(await early.exit, 0);
  const pids = readdirSync(path.join(state, 'run')).map((f) => Number(readFileSync(path.join(state, 'run', f), 'utf8')));
  t.true(pids.length >= 4);
  for (const pid of pids) t.false(alive(pid), `server ${pid} was stopped`);

  const refused = spawn('deploy/s3/run.sh', [tempDir('obscura-s3-state-')], { env: { ...env, S3_SECRET_KEY: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  refused.stderr!.on('data', (c) => (stderr += c));
  t.not(await new Promise((r) => refused.once('exit', r)), 0);
  t.regex(stderr, /S3_SECRET_KEY/, 'no key, no store: it says which is missing');
});

/** Whether a process runs (a zombie awaiting its reaper counts as stopped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}
