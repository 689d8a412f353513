// The price of the scale-out engines: the same small convert and the same /api/status calls on
// the embedded default (SQLite + files) and on PostgreSQL + S3 (a throwaway cluster and a local
// Swift, started here), printed as ratios (goal: job latency and status p99 within 1.3×), once
// as configured by default (a small object is kept in the database's part index) and once with
// every data part in the object store (OBSCURA_BLOB_INLINE=0, what a larger file pays); then
// the upload throughput of the S3 blob store against the file store (bench/scale-store.ts).
// `npm run bench -- scale [rounds]` (default 20; needs root, PostgreSQL and Swift).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startPostgres } from '../test/helpers/postgres.ts';
import { startService, type RunningService } from '../test/helpers/service.ts';
import { startSwift } from '../test/helpers/swift.ts';
import { run as storeThroughput } from './scale-store.ts';

const PNG = readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/secret-small.png'));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const median = (xs: number[]) => pct(xs, 50);

async function measure(svc: RunningService, rounds: number): Promise<{ jobMs: number[]; statusMs: number[] }> {
  const { key } = await svc.account();
  const base = svc.url.clearnet;
  const jobMs: number[] = [];
  for (let i = 0; i < rounds + 2; i++) {
    const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
    await fetch(`${base}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': 'a.png' }, body: PNG });
    const t0 = performance.now();
    const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'webp' });
    if (start.status !== 201) throw new Error(`start ${start.status} ${JSON.stringify(start.body)}`);
    let poll;
    do poll = (await svc.api('GET', `/api/convert/job/${uid}?wait=20`, key)).body;
    while (!['completed', 'partial', 'failed'].includes(poll.status));
    if (i >= 2) jobMs.push(performance.now() - t0); // the first two warm the workers
  }
  const statusMs: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    await (await fetch(`${base}/api/status`)).arrayBuffer();
    statusMs.push(performance.now() - t0);
  }
  return { jobMs, statusMs };
}

export async function run(args: string[]): Promise<void> {
  const rounds = Number(args[0] ?? 20);
  // PostgreSQL as an operator runs it: every commit reaches the disk, as the file store's appends do
  const [pgc, swift] = await Promise.all([startPostgres({ durable: true }), startSwift()]);
  try {
    const embedded = await startService({ OBSCURA_LOG_LEVEL: 'warn' });
    const local = await measure(embedded, rounds).finally(() => embedded.close());
    // the S3 client reads its credentials from the environment, as an operator gives them
    process.env.AWS_ACCESS_KEY_ID = swift.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = swift.credentials.secretAccessKey;
    const scaledOn = async (env: Record<string, string>) => {
      const svc = await startService({ OBSCURA_LOG_LEVEL: 'warn', OBSCURA_DATABASE_URL: await pgc.database(), OBSCURA_BLOB_URL: swift.url(await swift.createBucket()), ...env });
      return measure(svc, rounds).finally(() => svc.close());
    };
    const remote = await scaledOn({});
    // every data part in the object store: what a file past OBSCURA_BLOB_INLINE pays
    const stored = await scaledOn({ OBSCURA_BLOB_INLINE: '0' });
    // a front end that runs no job, and another instance that runs them: the job crosses instances
    const shared = { OBSCURA_LOG_LEVEL: 'warn', OBSCURA_DATABASE_URL: await pgc.database(), OBSCURA_BLOB_URL: swift.url(await swift.createBucket()), OBSCURA_MASTER_KEY: randomBytes(32).toString('base64url') };
    const worker = await startService(shared);
    const front = await startService({ ...shared, OBSCURA_RUN_JOBS: 'off' });
    const split = await measure(front, rounds).finally(() => Promise.all([front.close(), worker.close()]));
    const row = (name: string, a: number, ...bs: number[]) =>
      process.stdout.write(`${name.padEnd(36)} ${a.toFixed(1).padStart(8)} ms${bs.map((b) => ` ${b.toFixed(1).padStart(8)} ms ${`${(b / a).toFixed(2)}×`.padStart(6)}`).join('')}\n`);
    process.stdout.write(`${'(small convert, 2.9 kB PNG to WebP)'.padEnd(36)} ${'embedded'.padStart(11)} ${'pg + s3'.padStart(11)} ${'ratio'.padStart(6)} ${'all in s3'.padStart(11)} ${'ratio'.padStart(6)}   (goal ≤ 1.3×)\n`);
    row('job latency, start → completed, p50', median(local.jobMs), median(remote.jobMs), median(stored.jobMs));
    row('job latency, p90', pct(local.jobMs, 90), pct(remote.jobMs, 90), pct(stored.jobMs, 90));
    row('/api/status p99', pct(local.statusMs, 99), pct(remote.statusMs, 99), pct(stored.statusMs, 99));
    row('job latency p50, front end → worker', median(local.jobMs), median(split.jobMs));
    row('job latency p90, front end → worker', pct(local.jobMs, 90), pct(split.jobMs, 90));
  } finally {
    await Promise.all([pgc.stop(), swift.stop()]);
  }
  await storeThroughput([]);
}
