// Jobs (domain/jobs.ts) on a fake MediaEngine that runs no threads and no media tools, over the
// real database, blob store and scratch folders (createServices with `mediaEngine`): a run that
// completes, one that fails with an engine's error (mapped to the job's error in one place,
// domain/media-engine.ts), and the three ways a run is stopped (domain/job-stop.ts), each with
// its crash-safety rule: a time limit fails the job and keeps none of its files, a shutdown puts
// it back in the queue for the next start, and a lost lease never writes the job's end.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { tempDir } from './helpers/service.ts';
import { until } from './helpers/until.ts';
import { loadConfig } from '../src/config.ts';
import { createServices, type Services } from '../src/services.ts';
import { EngineError, type EngineName, type EngineRunOptions, type MediaEngine, type Task, type TaskArgs, type TaskResult } from '../src/domain/media-engine.ts';
import { TERMINAL } from '../src/domain/jobs.ts';
import { RunStop } from '../src/domain/job-stop.ts';
import type { Account, JobRow } from '../src/domain/ports.ts';

type Handlers = { [E in EngineName]?: (args: TaskArgs<E>, opts: EngineRunOptions) => Promise<TaskResult<E>> };

/** A MediaEngine answering from `handlers`, on the event loop; every task it was asked for is in `calls`. */
class FakeEngine implements MediaEngine {
  readonly calls: EngineName[] = [];
  handlers: Handlers;
  constructor(handlers: Handlers) {
    this.handlers = { convertCheck: async () => undefined, ...handlers };
  }
  async run<E extends EngineName>(task: Task<E>, opts: EngineRunOptions = {}): Promise<TaskResult<E>> {
    this.calls.push(task.engine);
    const handler = this.handlers[task.engine] as ((args: TaskArgs<E>, opts: EngineRunOptions) => Promise<TaskResult<E>>) | undefined;
    if (!handler) throw new EngineError('engine_failed', `no fake for ${task.engine}`);
    return handler(task.args, opts);
  }
  async reserve(): Promise<{ release(): void }> {
    return { release() {} };
  }
}

const CONVERTED = Buffer.from('the fake engine converted this');

/** A convert task done: its output written into the task's outDir, as the real engine does. */
async function converted(args: TaskArgs<'convert'>): Promise<TaskResult<'convert'>> {
  const out = path.join(args.outDir, 'converted.webp');
  await writeFile(out, CONVERTED);
  return { path: out, mime: 'image/webp', extension: 'webp', width: 16, height: 16, notes: [] };
}

/** Resolves when the signal fires (the run was stopped), with the reason it fired for. */
function stopped(signal: AbortSignal | undefined): Promise<unknown> {
  return new Promise((resolve) => signal?.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

async function open(dataDir: string, engine: MediaEngine, env: Record<string, string> = {}): Promise<Services> {
  const s = await createServices(loadConfig({ OBSCURA_DATA_DIR: dataDir, OBSCURA_LOG_LEVEL: 'silent', ...env }), { mediaEngine: engine });
  await s.jobs.start();
  return s;
}

/** A convert session with `files` small PNGs, and its job started (to webp). */
async function startJob(s: Services, account: Account, files = 1): Promise<JobRow> {
  const session = await s.sessions.create(account, 'convert');
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).png().toBuffer();
  for (let i = 0; i < files; i++) {
    await s.directUploads.whole(account, { uploadUid: session.id, step: 1, name: `file-${i}.png`, clientUploadId: undefined, contentLength: png.length }, [png]);
  }
  return s.starts.convert(account, { session, options: { target: 'image', format: 'webp', fit: 'inside', upscale: false, lossless: false } });
}

async function ended(s: Services, job: JobRow): Promise<JobRow> {
  return until('the job ends', 30_000, async () => {
    const row = await s.repos.jobs.byId(job.id);
    return row && TERMINAL.includes(row.state) ? row : undefined;
  }, 50);
}

const leaseOf = (s: Services, job: JobRow) => s.db!.prepare('SELECT lease_owner AS owner FROM jobs WHERE id = ?').get(job.id) as { owner: string | null };

test('a run on the engine completes: the engine\'s output becomes the job\'s file, and the job says so', async (t) => {
  const engine = new FakeEngine({ convert: converted });
  const s = await open(tempDir(), engine);
  t.teardown(() => s.close());
  const account = await s.accounts.create('engine@example.org', { verified: true });
  const job = await startJob(s, account);
  const row = await ended(s, job);
  t.is(row.state, 'completed');
  t.is(row.progressMessage, 'Converted 1 file.');
  t.is(row.error, null);
  t.is(row.resultsState, 'available');
  t.deepEqual(engine.calls, ['convertCheck', 'convert']);
  const { assets } = await s.results.of(row);
  t.is(assets.length, 1);
  t.is(assets[0].outputName, 'file-0.webp');
  const bytes: Buffer[] = [];
  for await (const c of s.results.bytes(assets[0])) bytes.push(c as Buffer);
  t.deepEqual(Buffer.concat(bytes), CONVERTED);
  t.is(s.jobs.activeJobs, 0);
});

test('an engine\'s error becomes the job\'s error, code and message as the engine said them; any other failure is internal_error and never quotes its text', async (t) => {
  const said = 'The PNG image could not be decoded: the file is damaged or incomplete.';
  const engine = new FakeEngine({
    convert: async () => {
      throw new EngineError('corrupt', said);
    },
  });
  const s = await open(tempDir(), engine);
  t.teardown(() => s.close());
  const account = await s.accounts.create('engine@example.org', { verified: true });
  const failed = await ended(s, await startJob(s, account));
  t.is(failed.state, 'failed');
  t.is(failed.error, 'corrupt');
  t.is(failed.progressMessage, `No file could be converted. File 1: ${said}`);
  t.deepEqual((await s.results.of(failed)).report, { failures: [{ storage_uid: (await s.uploads.completedIn((await s.sessions.byIdUnchecked(failed.sessionId))!))[0].id, name: 'file-0.png', error: 'corrupt', message: said }] });

  // not the engine's answer (a bug, say, whose text names a path): the runner's own words
  engine.handlers.convert = async () => {
    throw new Error('ENOENT: /secret/path/holiday.png');
  };
  const broken = await ended(s, await startJob(s, account));
  t.is(broken.state, 'failed');
  t.is(broken.error, 'internal_error');
  t.is(broken.progressMessage, 'No file could be converted. File 1: The file could not be converted because of an error on our side.');
  t.notRegex(JSON.stringify((await s.results.of(broken)).report), /secret|holiday|ENOENT/);
});

test('stopped by its time limit: the job fails with time_limit and keeps none of the files it had made', async (t) => {
  let n = 0;
  const engine = new FakeEngine({
    // the first file converts; the second waits until the run is stopped, as a real task would
    convert: async (args, opts) => {
      if (n++ === 0) return converted(args);
      await stopped(opts.signal);
      throw new EngineError('aborted', 'The task was cancelled.');
    },
  });
  const s = await open(tempDir(), engine, { OBSCURA_JOB_TIME_LIMIT: '2s' });
  t.teardown(() => s.close());
  const account = await s.accounts.create('engine@example.org', { verified: true });
  const job = await startJob(s, account, 2);
  const row = await ended(s, job);
  t.is(row.state, 'failed');
  t.is(row.error, 'time_limit');
  t.is(row.progressMessage, 'The job took longer than the limit of 2 seconds and was stopped.');
  t.is(row.resultsState, 'none');
  t.deepEqual(await s.repos.assets.forJob(job.id), []);
  t.is(n, 2);
});

test('stopped by a shutdown: the job goes back to the queue with none of its files, and the next start runs it to its end', async (t) => {
  const dataDir = tempDir();
  let n = 0;
  let running!: () => void;
  const second = new Promise<void>((resolve) => (running = resolve));
  const engine = new FakeEngine({
    convert: async (args, opts) => {
      if (n++ === 0) return converted(args);
      running();
      await stopped(opts.signal);
      throw new EngineError('aborted', 'The service is shutting down.');
    },
  });
  const s = await open(dataDir, engine);
  const account = await s.accounts.create('engine@example.org', { verified: true });
  const job = await startJob(s, account, 2);
  await second; // the first file's result is stored; the second is under way
  t.is((await s.repos.assets.forJob(job.id)).length, 1);
  await s.jobs.stop();
  const back = (await s.repos.jobs.byId(job.id))!;
  t.is(back.state, 'queued');
  t.is(back.progress, 0);
  t.is(back.progressMessage, 'Queued again: the service restarted.');
  t.is(leaseOf(s, job).owner, null); // given back: any instance may take it
  t.deepEqual(await s.repos.assets.forJob(job.id), []);
  await s.close();

  // the next start (this instance again, or another) takes it and runs it from the start
  const again = new FakeEngine({ convert: converted });
  const s2 = await open(dataDir, again);
  t.teardown(() => s2.close());
  const row = await ended(s2, job);
  t.is(row.state, 'completed');
  t.is(row.attempts, 2);
  t.is((await s2.repos.assets.forJob(job.id)).length, 2);
});

test('a lease lost mid-run: the run stops, what it finished after that is never written as the job\'s end, and the job\'s files are left to its new holder', async (t) => {
  let lost!: (reason: unknown) => void;
  const stop = new Promise<unknown>((resolve) => (lost = resolve));
  let running!: () => void;
  const started = new Promise<void>((resolve) => (running = resolve));
  const engine = new FakeEngine({
    // a task that ends well just as the lease is found lost: its result must not count
    convert: async (args, opts) => {
      running();
      lost(await stopped(opts.signal));
      return converted(args);
    },
  });
  const s = await open(tempDir(), engine, { OBSCURA_JOB_LEASE: '1s' });
  t.teardown(() => s.close());
  const account = await s.accounts.create('engine@example.org', { verified: true });
  const job = await startJob(s, account);
  await started;
  const before = (await s.repos.jobs.byId(job.id))!;
  t.is(before.state, 'processing');
  // another instance takes the job over (its lease, for an hour: no one here claims it back)
  s.db!.prepare("UPDATE jobs SET lease_owner = 'inst_other', lease_until = ? WHERE id = ?").run(Date.now() + 3_600_000, job.id);
  t.is(await stop, 'lease_lost');
  await until('the run ends', 30_000, () => (s.jobs.activeJobs === 0 ? true : undefined), 50);
  const row = (await s.repos.jobs.byId(job.id))!;
  t.is(row.state, 'processing');
  t.is(row.finishedAt, null);
  t.is(row.error, null);
  t.is(row.progressMessage, before.progressMessage);
  t.is(leaseOf(s, job).owner, 'inst_other');
  // nor are the job's files touched: they are its new holder's now (it clears them at its start)
  t.is((await s.repos.assets.forJob(job.id)).length, 1);
});

test('a run is stopped once: the first reason decides, a later one changes nothing', (t) => {
  const run = new RunStop();
  t.is(run.reason, undefined);
  t.false(run.signal.aborted);
  run.stop('lease_lost');
  run.stop('shutdown');
  t.is(run.reason, 'lease_lost');
  t.true(run.signal.aborted);
});
