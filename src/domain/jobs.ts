// The job engine shared by the four products. A job is a row with a state machine
// (queued -> processing -> completed | partial | failed), so it survives a restart: a job
// caught mid-run is run again, from the start, after its half-made results are removed.
// Each product adds one Runner; runners do their media work on the MediaEngine (the worker pool).
import type { Readable } from 'node:stream';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { JobPump } from '../queue/job-pump.ts';
import type {
  Account,
  BlobStore,
  ByteSource,
  JobEvents,
  JobQueue,
  AssetRepository,
  AssetRow,
  JobRepository,
  JobRow,
  JobState,
  Product,
  SessionRow,
  SessionType,
  UploadRow,
  Sealer,
  Scratch,
} from './ports.ts';
import { AppError } from './errors.ts';
import { RunStop } from './job-stop.ts';
import type { MediaEngine } from './media-engine.ts';
import { newId } from './ids.ts';
import type { Sessions } from './sessions.ts';
import type { Uploads } from './uploads.ts';

export interface JobLimits {
  timeLimitMs: number;
  /** How long a claimed job is this instance's without a renewal: past it, another instance takes it over. */
  leaseMs: number;
  /** Whether this instance runs jobs at all (off: it only answers requests). */
  run: boolean;
  expiryDefaultMs: number;
  expiryMaxMs: number;
  workers: number;
}

/** What a runner gets for one run of a job; `O`: the options its admit() kept. */
export interface JobContext<O> {
  job: JobRow;
  session: SessionRow;
  options: O;
  /** The session's completed uploads, in the order they arrived. */
  inputs: UploadRow[];
  /** Fires at the job's time limit, or when the service stops. */
  signal: AbortSignal;
  /** Where the media work runs (the worker pool). */
  engine: MediaEngine;
  scratch: Scratch;
  uploads: Uploads;
  /** Reports progress (0..1) and a message without file names. */
  progress(fraction: number, message: string): void;
  /** Stores one output of the job, encrypted, as a downloadable asset. */
  addAsset(a: NewAsset): Promise<AssetRow>;
}

/**
 * A job start, checked once at the edge by its product's schema (the options' shape, the
 * expiry's range) with the session it runs on already looked up (REST, MCP and the web pages
 * by upload_uid, v1 by its media-url): the engine checks only what the session's files tell.
 */
export interface JobCommand<S> {
  session: SessionRow;
  /** How long the results stay downloadable; absent: the service's default. */
  expiryMs?: number;
  options: S;
}

/** What admit() may use: the files are read and probed on the engine, as the run does. */
export interface AdmitContext {
  engine: MediaEngine;
  scratch: Scratch;
  uploads: Uploads;
}

export interface NewAsset {
  category: string;
  /** The name of the input it came from (or the recovered file's name). */
  name: string;
  outputName?: string;
  mimeType: string;
  source: ByteSource | Readable;
  /** Anything else the product wants to keep with the asset, sealed. */
  extra?: Record<string, unknown>;
}

export interface RunOutcome {
  state: 'completed' | 'partial' | 'failed';
  message: string;
  error?: string | null;
  /** Per-file outcomes and anything the results endpoint needs (the runner's own type); sealed. */
  report: object;
}

/**
 * One product's job: `S`, the options its start schema gives; `O`, what admit() keeps of them
 * for the run (a hide adds the cover's output format). Neither is ever cast from unknown.
 */
export interface Runner<S, O = S> {
  product: Product;
  /** Which session types this product's jobs run on. */
  sessionTypes: readonly SessionType[];
  /** Checks what only the session's files can tell (a cover's capacity, a format refused, a limit): 422 now rather than a failed job later. */
  admit(options: S, inputs: UploadRow[], ctx: AdmitContext): Promise<O>;
  /** Options erased when the job finishes (a passphrase lives only while the job may run). */
  secretOptions?: readonly (keyof O & string)[];
  run(ctx: JobContext<O>): Promise<RunOutcome>;
}

/** Starts a job of one product (what Jobs.register gives back). */
export type JobStart<S> = (account: Account, command: JobCommand<S>) => Promise<JobRow>;

/** A registered runner with its options' type closed over: the engine handles every product alike. */
interface Registered {
  product: Product;
  sessionTypes: readonly SessionType[];
  secretOptions: readonly string[];
  run(ctx: Omit<JobContext<never>, 'options'>): Promise<RunOutcome>;
}

export interface Sealed<O = Record<string, unknown>, R = object> {
  options: O;
  /** The uploads validated at start: the job reads exactly these (absent on older jobs). */
  inputs?: string[];
  /** The runner's report (RunOutcome.report), once the job ended. */
  report?: R;
}

export interface AssetPrivate {
  name: string;
  outputName?: string;
  extra?: Record<string, unknown>;
}

/** The job-events key of "a job was queued" (job ids start with job_, so it is no job's). */
const QUEUED = 'queued';
const MAX_ATTEMPTS = 3;
export const TERMINAL: readonly JobState[] = ['completed', 'partial', 'failed'];

export class Jobs {
  readonly #rows: JobRepository;
  readonly #assets: AssetRepository;
  readonly #sessions: Sessions;
  readonly #uploads: Uploads;
  readonly #blobs: BlobStore;
  readonly #sealer: Sealer;
  readonly #engine: MediaEngine;
  readonly #scratch: Scratch;
  readonly #log: Logger;
  readonly limits: JobLimits;
  readonly #runners = new Map<Product, Registered>();
  readonly #running = new Map<string, RunStop>();
  readonly #pump: JobPump<JobRow>;
  #stopHearing: (() => void) | undefined;
  readonly #queue: JobQueue;
  /** Told whenever a job changes state, on every instance (a long poll waits on it). */
  readonly #events: JobEvents;
  /** This instance, as the holder of the leases of the jobs it runs. */
  readonly #owner: string;
  /** The embedded engine is one process: at start, what it left processing is its own to put back. */
  readonly #singleInstance: boolean;
  readonly #metrics: Metrics | undefined;

  constructor(opts: {
    rows: JobRepository;
    assets: AssetRepository;
    sessions: Sessions;
    uploads: Uploads;
    blobs: BlobStore;
    sealer: Sealer;
    engine: MediaEngine;
    scratch: Scratch;
    log: Logger;
    limits: JobLimits;
    queue: JobQueue;
    events: JobEvents;
    singleInstance: boolean;
    metrics?: Metrics;
  }) {
    this.#rows = opts.rows;
    this.#assets = opts.assets;
    this.#sessions = opts.sessions;
    this.#uploads = opts.uploads;
    this.#blobs = opts.blobs;
    this.#sealer = opts.sealer;
    this.#engine = opts.engine;
    this.#scratch = opts.scratch;
    this.#log = opts.log;
    this.limits = opts.limits;
    this.#queue = opts.queue;
    this.#events = opts.events;
    this.#singleInstance = opts.singleInstance;
    this.#metrics = opts.metrics;
    this.#owner = newId('inst', 12);
    this.#pump = new JobPump<JobRow>({
      concurrency: opts.limits.workers,
      claim: async () => {
        const job = await this.#queue.claim(this.#owner, this.limits.leaseMs, Date.now());
        if (job?.takenOver) this.#metrics?.leaseTakeover(job.product);
        if (job) await this.#events.publish(job.id);
        return job;
      },
      run: (job) => this.#execute(job),
    });
  }

  /** Adds a product; what it gives back starts that product's jobs, typed by its options. */
  register<S, O>(runner: Runner<S, O>): JobStart<S> {
    const registered: Registered = {
      product: runner.product,
      sessionTypes: runner.sessionTypes,
      secretOptions: runner.secretOptions ?? [],
      run: (ctx) => runner.run({ ...ctx, options: this.#sealer.open<Sealed<O>>(`job:${ctx.job.id}`, ctx.job.sealed).options }),
    };
    this.#runners.set(runner.product, registered);
    return (account, command) => this.#create(account, registered, command, (inputs) => runner.admit(command.options, inputs, { engine: this.#engine, scratch: this.#scratch, uploads: this.#uploads }));
  }

  /**
   * Starts taking work. The embedded engine first puts back what a crash left processing: no
   * other process can hold those jobs. With many instances nothing is put back at a start: a job
   * whose instance died is taken over once its lease runs out, by whichever instance asks first.
   */
  async start(): Promise<void> {
    if (this.#singleInstance) {
      for (const job of await this.#rows.inState('processing')) {
        if (job.attempts >= MAX_ATTEMPTS) {
          const ending = this.#ending(job, interrupted(job.attempts));
          await this.#rows.update(job.id, ending);
          this.#metrics?.jobFinished(job.product, 'failed', { createdAt: job.createdAt, startedAt: job.startedAt, finishedAt: ending.finishedAt });
        } else await this.#rows.update(job.id, { state: 'queued', progress: 0, progressMessage: 'Queued again after a restart.' });
      }
    }
    if (this.limits.run) {
      // a job queued on any instance wakes this one's pump at once, not at its next look
      this.#stopHearing = await this.#events.subscribe(QUEUED, () => this.#pump.notify());
      this.#pump.start();
    }
  }

  /** Stops taking work; running jobs are stopped and given back to the queue. */
  async stop(): Promise<void> {
    this.#stopHearing?.();
    for (const run of this.#running.values()) run.stop('shutdown');
    await this.#pump.stop();
  }

  async #create<O>(account: Account, runner: Registered, command: JobCommand<unknown>, admit: (inputs: UploadRow[]) => Promise<O>): Promise<JobRow> {
    const { session } = command;
    // the edge looked the session up for this account; a command for another's is a bug, refused alike
    if (session.accountId !== account.id || !runner.sessionTypes.includes(session.type)) throw new AppError('session_not_found', 'No such session.');
    // Checked here to spare the admission; the insert below is what holds under a race.
    const earlier = await this.#rows.latestForSession(session.id);
    if (earlier) throw sessionUsed(earlier);
    const files = await this.#uploads.listFiles(session);
    if (files.some((f) => !f.complete)) {
      throw new AppError('upload_in_progress', 'Some files of this session are still uploading; finish them first.');
    }
    const inputs = await this.#inputs(session);
    if (!inputs.length) throw new AppError('no_files', 'This session has no files yet; upload them first.');
    const options = await admit(inputs);
    const now = Date.now();
    const job: JobRow = {
      id: newId('job', 16),
      accountId: account.id,
      sessionId: session.id,
      product: runner.product,
      state: 'queued',
      progress: 0,
      progressMessage: 'Queued.',
      error: null,
      sealed: Buffer.alloc(0),
      expiryMs: command.expiryMs ?? this.limits.expiryDefaultMs,
      attempts: 0,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      expiresAt: null,
      resultsState: 'none',
    };
    job.sealed = this.#sealer.seal(`job:${job.id}`, { options, inputs: inputs.map((u) => u.id) } satisfies Sealed<O>);
    if (!(await this.#rows.insertIfFirst(job))) throw sessionUsed(await this.#rows.latestForSession(session.id));
    await this.#queued();
    return job;
  }

  /** A job is queued: every instance that runs jobs looks (a lost notice costs at most the pump's next look, a second). */
  async #queued(): Promise<void> {
    this.#pump.notify();
    await this.#events.publish(QUEUED).catch(() => {});
  }

  /** The latest job of the caller's session. */
  async latest(account: Account, uploadUid: string, product: Product): Promise<JobRow> {
    const session = await this.#sessions.get(account, uploadUid, this.#runner(product).sessionTypes);
    const job = await this.#rows.latestForSession(session.id);
    if (!job || job.product !== product) throw new AppError('job_not_found', 'No job has been started on this session.');
    return job;
  }

  /** A job by its uid, for its owner. */
  async byUid(account: Account, jobUid: string, product: Product): Promise<JobRow> {
    const job = typeof jobUid === 'string' && jobUid.length < 80 ? await this.#rows.byId(jobUid) : undefined;
    if (!job || job.accountId !== account.id || job.product !== product) throw new AppError('job_not_found', 'No such job.');
    return job;
  }

  /** A job of the account by its id, whatever its product (the web pages name jobs by id alone). */
  async owned(account: Account, jobUid: string): Promise<JobRow> {
    const job = typeof jobUid === 'string' && jobUid.length < 80 ? await this.#rows.byId(jobUid) : undefined;
    if (!job || job.accountId !== account.id) throw new AppError('job_not_found', 'No such job.');
    return job;
  }

  /**
   * A long poll: waits up to `ms` for the job to leave the state it is in, then gives the job as
   * it is. Answers at once for a finished job, and when `signal` fires (the client went away).
   */
  async settle(job: JobRow, ms: number, signal?: AbortSignal): Promise<JobRow> {
    if (ms <= 0 || TERMINAL.includes(job.state)) return job;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const unsubscribe = await this.#events.subscribe(job.id, () => wake());
    const timer = setTimeout(() => wake(), ms);
    signal?.addEventListener('abort', () => wake(), { once: true });
    try {
      // it may have moved between the caller's read and the subscription
      const now = await this.#rows.byId(job.id);
      if (now?.state === job.state && !signal?.aborted) await woken;
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
    return (await this.#rows.byId(job.id)) ?? job;
  }


  get activeJobs(): number {
    return this.#running.size;
  }

  // ---- running --------------------------------------------------------------

  async #execute(job: JobRow): Promise<void> {
    const run = new RunStop();
    this.#running.set(job.id, run);
    const timer = setTimeout(() => run.stop('time_limit'), this.limits.timeLimitMs);
    // the lease is renewed while the job runs; lost (this instance stalled past it and another
    // took the job over), this run stops and leaves the job to its new holder
    const renewal = setInterval(() => {
      this.#queue.renew(job.id, this.#owner, this.limits.leaseMs, Date.now()).then(
        (held) => held || run.stop('lease_lost'),
        (err) => this.#log.warn({ err, job: job.id }, 'lease renewal failed'),
      );
    }, Math.max(200, Math.floor(this.limits.leaseMs / 3)));
    let writes: Promise<unknown> = Promise.resolve();
    try {
      if (job.attempts > MAX_ATTEMPTS) {
        await this.#finish(job, interrupted(job.attempts - 1));
        return;
      }
      const runner = this.#runner(job.product);
      const sealed = this.#sealer.open<Sealed<unknown>>(`job:${job.id}`, job.sealed);
      const session = await this.#sessionOf(job);
      if (!session || session.expiresAt <= Date.now()) {
        await this.#finish(job, { state: 'failed', message: 'The session expired before the job could run.', error: 'session_expired', report: {} });
        return;
      }
      const inputs = sealed.inputs ? await this.#uploads.exactly(session, sealed.inputs) : await this.#inputs(session);
      if (!inputs) {
        await this.#finish(job, { state: 'failed', message: 'A file of the session is no longer there; start a new session.', error: 'inputs_gone', report: {} });
        return;
      }
      await this.#discardAssets(job.id); // a previous, interrupted attempt may have left some
      // no "Started." row write here: every runner reports its first progress as it begins, and
      // each write is a durable commit on the event loop (one less per job)
      let position = 0;
      let lastWrite = 0;
      const ctx: Omit<JobContext<never>, 'options'> = {
        job,
        session,
        inputs,
        signal: run.signal,
        engine: this.#engine,
        scratch: this.#scratch,
        uploads: this.#uploads,
        progress: (fraction, message) => {
          const now = Date.now();
          if (now - lastWrite < 200 && fraction < 1) return;
          lastWrite = now;
          const progress = Math.max(0, Math.min(99, Math.floor(fraction * 100)));
          // in order, and all written before the job's end is: a late one must not overwrite it
          writes = writes.then(() => this.#rows.update(job.id, { progress, progressMessage: message })).catch(() => {});
        },
        addAsset: (a) => this.#addAsset(job, position++, a),
      };
      const outcome = await runner.run(ctx);
      await writes;
      // stopped while the runner ended (an engine that finished as the signal fired): the stop decides
      if (run.reason) throw run.signal.reason;
      await this.#finish(job, outcome);
    } catch (err) {
      await writes;
      const reason = run.reason;
      if (reason === 'lease_lost') {
        this.#log.warn({ job: job.id }, 'lease lost: another instance runs this job now');
      } else if (reason === 'shutdown') {
        await this.#discardAssets(job.id);
        if (await this.#queue.finish(job.id, this.#owner, { state: 'queued', progress: 0, progressMessage: 'Queued again: the service restarted.' })) await this.#queued();
      } else if (reason === 'time_limit') {
        await this.#discardAssets(job.id);
        const minutes = Math.round(this.limits.timeLimitMs / 60_000);
        await this.#finish(job, {
          state: 'failed',
          message: `The job took longer than the limit of ${minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(this.limits.timeLimitMs / 1000)} seconds`} and was stopped.`,
          error: 'time_limit',
          report: {},
        });
      } else {
        reason satisfies undefined; // every StopReason has its branch above
        this.#log.error({ err, job: job.id }, 'job failed unexpectedly');
        await this.#discardAssets(job.id).catch(() => {});
        await this.#finish(job, { state: 'failed', message: 'The job failed on our side; it may succeed if you start it again.', error: 'internal_error', report: {} });
      }
    } finally {
      clearTimeout(timer);
      clearInterval(renewal);
      this.#running.delete(job.id);
    }
  }

  /** Writes the job's end while this instance holds its lease, and tells every instance. */
  async #finish(job: JobRow, outcome: RunOutcome): Promise<void> {
    const hasAssets = (await this.#assets.forJob(job.id)).length > 0;
    const ending = this.#ending(job, outcome);
    if (!(await this.#queue.finish(job.id, this.#owner, { ...ending, resultsState: hasAssets ? 'available' : 'none' }))) {
      this.#log.warn({ job: job.id }, 'lease lost before the end was written: another instance runs this job now');
      return;
    }
    this.#metrics?.jobFinished(job.product, outcome.state, { createdAt: job.createdAt, startedAt: job.startedAt, finishedAt: ending.finishedAt });
    await this.#events.publish(job.id);
  }

  /** The fields of a job's end; the options a job keeps only while it may run (a passphrase) are dropped. */
  #ending(job: JobRow, outcome: RunOutcome) {
    const now = Date.now();
    const sealed = this.#sealer.open<Sealed>(`job:${job.id}`, job.sealed);
    for (const k of this.#runners.get(job.product)?.secretOptions ?? []) delete sealed.options[k];
    return {
      state: outcome.state,
      progress: outcome.state === 'failed' ? job.progress : 100,
      progressMessage: outcome.message,
      error: outcome.error ?? null,
      sealed: this.#sealer.seal(`job:${job.id}`, { ...sealed, report: outcome.report } satisfies Sealed),
      finishedAt: now,
      expiresAt: now + job.expiryMs,
      resultsState: 'none' as const,
    };
  }

  async #addAsset(job: JobRow, position: number, a: NewAsset): Promise<AssetRow> {
    const id = newId('as', 16);
    await this.#blobs.create(id);
    let size: number;
    try {
      size = await this.#blobs.append(id, a.source as ByteSource);
    } catch (err) {
      await this.#blobs.delete(id);
      throw err;
    }
    const row: AssetRow = {
      id,
      jobId: job.id,
      accountId: job.accountId,
      category: a.category,
      position,
      sealed: this.#sealer.seal(`asset:${id}`, { name: a.name, outputName: a.outputName, extra: a.extra } satisfies AssetPrivate),
      mimeType: a.mimeType,
      size,
      state: 'available',
      createdAt: Date.now(),
    };
    await this.#assets.insert(row);
    return row;
  }

  async #discardAssets(jobId: string): Promise<void> {
    for (const a of await this.#assets.forJob(jobId)) {
      await this.#blobs.delete(a.id);
      await this.#assets.delete(a.id);
    }
  }

  async #sessionOf(job: JobRow): Promise<SessionRow | undefined> {
    try {
      return await this.#sessions.byIdUnchecked(job.sessionId);
    } catch {
      return undefined;
    }
  }

  #inputs(session: SessionRow): Promise<UploadRow[]> {
    return this.#uploads.completedIn(session);
  }

  #runner(product: Product): Registered {
    const r = this.#runners.get(product);
    if (!r) throw new AppError('not_available', `${product} is not available on this service.`);
    return r;
  }

}

function interrupted(times: number): RunOutcome {
  return { state: 'failed', message: `The job was interrupted ${times} times and was given up.`, error: 'interrupted', report: {} };
}

/** A session holds one job, ever: its results stay reachable by its upload_uid until they expire. */
function sessionUsed(earlier: JobRow | undefined): AppError {
  const which = earlier ? ` (${earlier.id}, ${earlier.state})` : '';
  return new AppError(
    'session_used',
    `This session already has its job${which}: a session holds one job, ever. Poll or download that job by this upload_uid; for another job, create a new session and upload the files to it.`,
    earlier && { job_uid: earlier.id, job_status: earlier.state },
  );
}

