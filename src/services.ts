// The composition root: builds every store and domain object from the configuration.
// main.ts, cli.ts, the tests and the benchmarks all start here.
import path from 'node:path';
import type { DestinationStream } from 'pino';
import { ConfigError, type Config } from './config.ts';
import { Accounts } from './domain/accounts.ts';
import { ApiKeys } from './domain/api-keys.ts';
import { Jobs } from './domain/jobs.ts';
import { JobResults } from './domain/job-results.ts';
import { Maintenance } from './domain/maintenance.ts';
import { RateLimits } from './domain/rate-limits.ts';
import { registerProducts, type Starts } from './products/index.ts';
import { Sessions } from './domain/sessions.ts';
import { Uploads } from './domain/uploads.ts';
import { DirectUploads } from './domain/uploads-direct.ts';
import { TusUploads } from './domain/uploads-tus.ts';
import { MediaUrls } from './domain/uploads-v1.ts';
import type { Mailer } from './domain/mail.ts';
import { SelfService } from './domain/self-service.ts';
import { AccountRecovery } from './domain/account-recovery.ts';
import { MailTokens } from './domain/mail-tokens.ts';
import { WebBrakes } from './domain/web-brakes.ts';
import { WebSessions } from './domain/web-sessions.ts';
import { smtpMailer } from './store/mail/smtp.ts';
import { createLogger, type Logger } from './log.ts';
import { Metrics } from './metrics.ts';
import { countedBlobStore } from './store/blobs/counted-store.ts';
import { WorkerPool } from './queue/worker-pool.ts';
import type { MediaEngine } from './domain/media-engine.ts';
import type { BlobStore } from './domain/ports.ts';
import { EncryptedFileStore } from './store/blobs/encrypted-file-store.ts';
import { MasterKey, MasterKeyError, otherMasterKey } from './store/master-key.ts';
import { NewerSchemaError } from './store/schema-version.ts';
import { AccountAddresses } from './store/account-addresses.ts';
import type { Repositories } from './domain/ports.ts';
import { ScratchFolders } from './store/scratch.ts';
import { Sealer } from './store/sealer.ts';
import { openDb, sqliteRepositories, type Db } from './store/sqlite/index.ts';
import { openPostgres, postgresRepositories } from './store/postgres/index.ts';
import { PostgresJobEvents } from './store/postgres/job-events.ts';
import { PostgresLocker } from './store/postgres/locker.ts';
import { LocalJobEvents } from './store/local/job-events.ts';
import { LocalLocker } from './store/local/locker.ts';
import { S3BlobStore } from './store/blobs/s3-store.ts';
import type { JobEvents, Locker, RateCounters } from './domain/ports.ts';
import { LocalRateCounters } from './store/local/rate-counters.ts';
import { PostgresRateCounters } from './store/postgres/rate-counters.ts';

export interface Services {
  config: Config;
  log: Logger;
  /** The SQLite database of the embedded engine; undefined on PostgreSQL. */
  db: Db | undefined;
  repos: Repositories;
  /** Locks shared by every instance of this engine (uploads, TUS). */
  locker: Locker;
  masterKey: MasterKey;
  blobs: BlobStore;
  scratch: ScratchFolders;
  accounts: Accounts;
  apiKeys: ApiKeys;
  maintenance: Maintenance;
  sessions: Sessions;
  uploads: Uploads;
  /** The three ways in, over the one core: v1 media-urls, whole files (direct, web forms), TUS. */
  mediaUrls: MediaUrls;
  directUploads: DirectUploads;
  tusUploads: TusUploads;
  jobs: Jobs;
  /** Each product's typed job start (products/index.ts). */
  starts: Starts;
  /** What finished jobs leave, until it expires. */
  results: JobResults;
  pool: WorkerPool;
  /** What one client may ask of the service, shared by the three listeners (and, for accounts, by every instance). */
  rateLimits: RateLimits;
  /** People signed in to the web pages. */
  webSessions: WebSessions;
  /** Sign-up, address verification and sign-in with a password. */
  selfService: SelfService;
  /** Password reset and sign-in links by mail. */
  recovery: AccountRecovery;
  /** What the operator's /metrics serves (http/metrics-listener.ts), counted by every part below. */
  metrics: Metrics;
  /** Set when this start created the master key file. */
  masterKeyCreated?: string;
  close(): Promise<void>;
}

export interface ServicesOptions {
  logDestination?: DestinationStream;
  /**
   * Opened by the admin CLI, perhaps next to the running service: no crash recovery (it would
   * roll back the service's appends in progress and discard its direct uploads under way), and
   * no new master key or database (see src/admin/where.ts).
   */
  alongside?: boolean;
  /** Where jobs run their media work; the worker pool unless given (a test's engine that needs no threads). */
  mediaEngine?: MediaEngine;
}

export async function createServices(config: Config, opts: ServicesOptions = {}): Promise<Services> {
  const log = createLogger(config.logLevel, opts.logDestination);
  const metrics = new Metrics();
  // The key first: a start that cannot have it leaves nothing behind in the data folder.
  const { key: masterKey, created } = loadMasterKey(config);
  const engine = await openEngine(config, log, masterKey).catch((err: unknown) => {
    throw err instanceof MasterKeyError || err instanceof NewerSchemaError ? new ConfigError(err.message) : err;
  });
  const { repos, locker } = engine;
  await checkMasterKey(repos, masterKey, engine);
  const store = await openBlobs(config, masterKey, repos, locker, !opts.alongside).catch(async (err) => {
    await engine.close();
    throw err;
  });
  const blobs = countedBlobStore(store, metrics);
  const scratch = new ScratchFolders(config.scratchDir, config.dataDir);
  const accounts = new Accounts(repos.accounts);
  const apiKeys = new ApiKeys({
    repo: repos.apiKeys,
    accounts,
    pepper: masterKey.derive('api-key-pepper'),
    prefix: config.keyPrefix.current,
    formerPrefixes: config.keyPrefix.former,
    webSessions: repos.webSessions,
  });
  const maintenance = new Maintenance(repos.settings, config.maintenance.on, config.maintenance.retryAfterS, engine.singleInstance ? 0 : 1000);
  const sessions = new Sessions(repos.sessions, repos.jobs, config.limits);
  const sealer = new Sealer(masterKey.derive('row-sealer'));
  const uploads = new Uploads({
    rows: repos.uploads,
    blobs,
    sealer,
    clientRefKey: masterKey.derive('client-upload-ref'),
    sessions,
    limits: config.limits,
    metrics,
  });
  // a direct upload cut off by a crash is discarded at start; with many instances another one may
  // be receiving it right now, so there the sweep ends it with its session instead
  if (engine.singleInstance && !opts.alongside) await uploads.recover();
  const pool = new WorkerPool({ size: config.jobs.workers, entry: new URL('./queue/worker.ts', import.meta.url), log, memoryBudget: config.memory.budget });
  const jobs = new Jobs({
    rows: repos.jobs,
    assets: repos.assets,
    sessions,
    uploads,
    blobs,
    sealer,
    engine: opts.mediaEngine ?? pool,
    scratch,
    log,
    limits: config.jobs,
    queue: repos.jobs,
    events: engine.events,
    singleInstance: engine.singleInstance,
    metrics,
  });
  // every job's media limits, with the memory one job may reserve
  const limits = { ...config.media, memoryPerJob: config.memory.perJob };
  const starts = registerProducts(jobs, { uploads, limits, cpuBudgetMs: config.convert.cpuBudgetMs, c2paTrustAnchors: config.c2paTrustAnchors || undefined, ocrRecycleAfter: config.ocr.recycleAfter });
  // the one outbound connection, and only when the operator named a relay
  const mailer: Mailer | undefined = config.web.smtpUrl ? smtpMailer(config.web.smtpUrl, config.web.mailFrom) : undefined;
  const webSessions = new WebSessions({
    rows: repos.webSessions,
    accounts: repos.accounts,
    digestKey: masterKey.derive('web-session'),
    csrfKey: masterKey.derive('web-csrf'),
    limits: config.web,
  });
  const brakes = new WebBrakes(config.web, engine.counters, masterKey.derive('web-brakes'), { metrics });
  const mailTokens = new MailTokens(repos.mailTokens, brakes, masterKey.derive('mail-token'));
  const selfService = new SelfService({
    accounts,
    repo: repos.accounts,
    tokens: mailTokens,
    mailer,
    brakes,
    linkLifeMs: config.web.verifyLinkLifeMs,
    unverifiedLifeMs: config.web.unverifiedAccountLifeMs,
  });
  const recovery = new AccountRecovery({
    accounts,
    repo: repos.accounts,
    tokens: mailTokens,
    sessions: repos.webSessions,
    mailer,
    brakes,
    lives: { resetMs: config.web.resetLinkLifeMs, signInMs: config.web.signInLinkLifeMs },
  });
  metrics.watch({
    activeJobs: () => repos.jobs.activeCounts(),
    pool: () => ({ busy: pool.busy, total: pool.size, memoryHeld: pool.memory.held, memoryBudget: pool.memory.total }),
  });
  return {
    config,
    log,
    db: engine.sqlite,
    repos,
    locker,
    masterKey,
    blobs,
    scratch,
    accounts,
    apiKeys,
    maintenance,
    sessions,
    uploads,
    mediaUrls: new MediaUrls(uploads, sessions),
    directUploads: new DirectUploads(uploads),
    tusUploads: new TusUploads(uploads),
    jobs,
    starts,
    results: new JobResults({ rows: repos.jobs, assets: repos.assets, blobs, sealer }),
    pool,
    rateLimits: new RateLimits(config.abuse, engine.counters, masterKey.derive('key-brake'), { metrics }),
    webSessions,
    selfService,
    recovery,
    metrics,
    masterKeyCreated: created,
    async close() {
      await recovery.settled();
      mailer?.close();
      await jobs.stop();
      await pool.close();
      await engine.close();
    },
  };
}

/** Where the encrypted blobs live: files in the data folder, or an S3-compatible bucket. */
async function openBlobs(config: Config, masterKey: MasterKey, repos: Repositories, locker: Locker, recover: boolean): Promise<BlobStore> {
  if (!config.blobUrl) return EncryptedFileStore.open({ dir: path.join(config.dataDir, 'blobs'), masterKey, keyRing: repos.keyRing, recover });
  try {
    const s3 = new S3BlobStore({ url: config.blobUrl, masterKey, keyRing: repos.keyRing, parts: repos.parts, locker, inlineBytes: config.blobInline, cacheBytes: config.blobCache, partsInFlight: config.blobPartsInFlight });
    await s3.ensureBucket();
    return s3;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** Where rows, the queue, job events and locks live: SQLite in the data folder, or PostgreSQL. */
interface Engine {
  repos: Repositories;
  counters: RateCounters;
  events: JobEvents;
  locker: Locker;
  /** Only the embedded engine is one process by construction (see Jobs.start). */
  singleInstance: boolean;
  sqlite?: Db;
  close(): Promise<void>;
}

async function openEngine(config: Config, log: Logger, masterKey: MasterKey): Promise<Engine> {
  // the address of every account is kept as an HMAC and sealed, with keys from the master key
  const addresses = new AccountAddresses(masterKey);
  if (config.databaseUrl) {
    const pg = await openPostgres(config.databaseUrl, { masterKey });
    const events = new PostgresJobEvents(pg.pool, config.databaseUrl, { onError: (err) => log.warn({ err: { message: err.message } }, 'job events: connection lost, reconnecting') });
    // the same bus on its own channel carries a waiter's request that a lock's holder let go
    const releases = new PostgresJobEvents(pg.pool, config.databaseUrl, {
      channel: 'obscura_lock_release',
      onError: (err) => log.warn({ err: { message: err.message } }, 'lock release requests: connection lost, reconnecting'),
    });
    try {
      await Promise.all([events.start(), releases.start()]);
    } catch (err) {
      await Promise.all([events.close(), releases.close()]);
      await pg.close();
      throw err;
    }
    return {
      repos: postgresRepositories(pg, addresses),
      events,
      locker: new PostgresLocker(pg.pool, releases),
      counters: new PostgresRateCounters(pg),
      singleInstance: false,
      async close() {
        await Promise.all([events.close(), releases.close()]);
        await pg.close();
      },
    };
  }
  const db = openDb(path.join(config.dataDir, 'obscura.db'), { masterKey });
  return {
    repos: sqliteRepositories(db, addresses),
    events: new LocalJobEvents(),
    locker: new LocalLocker(),
    counters: new LocalRateCounters(),
    singleInstance: true,
    sqlite: db,
    close: async () => db.close(),
  };
}

/**
 * Every instance must hold the same master key: rows sealed and blobs wrapped by one must open
 * on all. The engine keeps a check value of the first key it saw; a start with another key
 * stops here, before it writes anything.
 */
async function checkMasterKey(repos: Repositories, masterKey: MasterKey, engine: Engine): Promise<void> {
  const seen = await repos.settings.get('master_key_check');
  if (seen === undefined) await repos.settings.set('master_key_check', masterKey.check);
  else if (seen !== masterKey.check) {
    await engine.close();
    throw new ConfigError(otherMasterKey().message);
  }
}

function loadMasterKey(config: Config): ReturnType<typeof MasterKey.load> {
  try {
    return MasterKey.load(config.masterKey);
  } catch (err) {
    throw err instanceof MasterKeyError ? new ConfigError(err.message) : err;
  }
}
