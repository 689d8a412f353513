// The domain's ports: its nouns, and every interface it needs from the world outside it. The
// backends (store/sqlite and store/postgres for rows; store/blobs for bytes; the queue, events
// and locks of each engine) implement these and turn their own errors into the typed errors
// below; services.ts alone picks them. Imports flow http -> domain -> ports <- backends.
import type { Readable } from 'node:stream';

// ---- rows -------------------------------------------------------------------
export interface Account {
  id: string;
  email: string;
  verifiedAt: number | null;
  deactivatedAt: number | null;
  createdAt: number;
}

export interface AccountRepository {
  insert(account: Account): Promise<void>;
  byEmail(email: string): Promise<Account | undefined>;
  byId(id: string): Promise<Account | undefined>;
  /** Accounts by id, after `after` (exclusive), at most `limit`: a walk over all of them (moving to another engine). */
  list(after: string, limit: number): Promise<Account[]>;
  update(id: string, fields: Partial<Pick<Account, 'verifiedAt' | 'deactivatedAt'>>): Promise<void>;
  /** The argon2id hash (PHC string) of the account's web password; undefined when it has none. */
  passwordHash(id: string): Promise<string | undefined>;
  setPasswordHash(id: string, hash: string | null): Promise<void>;
  /**
   * Deletes accounts whose address was never verified, created at or before `createdBefore`
   * (only `id` when given), with their keys, web sessions and mail links; an account that has
   * upload sessions is kept. How many accounts went.
   */
  deleteUnverified(createdBefore: number, id?: string): Promise<number>;
}

/** A person signed in to the web pages. The cookie's token is never stored, only its HMAC. */
export interface WebSessionRow {
  digest: Buffer;
  accountId: string;
  createdAt: number;
  seenAt: number;
  /** The earlier of inactivity and the absolute limit, moved on at every request. */
  expiresAt: number;
  /** The network it was opened on, and how: with a password, an API key (keyId) or a mailed link. */
  network: 'clearnet' | 'onion' | 'i2p';
  method: 'password' | 'key' | 'link';
  keyId: string | null;
}

export interface WebSessionRepository {
  insert(row: WebSessionRow): Promise<void>;
  byDigest(digest: Buffer): Promise<WebSessionRow | undefined>;
  /** The account's sessions, newest first. */
  listForAccount(accountId: string): Promise<WebSessionRow[]>;
  touch(digest: Buffer, seenAt: number, expiresAt: number): Promise<void>;
  delete(digest: Buffer): Promise<void>;
  /** Every session of the account except `keep` (the one asking), when given. */
  deleteForAccount(accountId: string, keep?: Buffer): Promise<number>;
  /** The sessions signed in with this API key. */
  deleteForKey(keyId: string): Promise<number>;
  deleteExpired(at: number): Promise<number>;
}

export type MailTokenPurpose = 'verify' | 'reset' | 'sign-in';

/** A single-use link sent by mail (address verification, password reset, sign-in); only its HMAC is stored. */
export interface MailTokenRow {
  digest: Buffer;
  accountId: string;
  purpose: MailTokenPurpose;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface MailTokenRepository {
  insert(row: MailTokenRow): Promise<void>;
  byDigest(digest: Buffer): Promise<MailTokenRow | undefined>;
  /** Marks the token used unless it was used before; true when this call used it. */
  use(digest: Buffer, at: number): Promise<boolean>;
  /** The account's links of this purpose (a newer sign-up or reset makes the old ones void). */
  deleteForAccount(accountId: string, purpose: MailTokenPurpose): Promise<number>;
  deleteExpired(at: number): Promise<number>;
}

export interface ApiKeyRow {
  id: string;
  accountId: string;
  prefix: string;
  last4: string;
  /** HMAC-SHA256 of the whole key under the server pepper; the key itself is never stored. */
  digest: Buffer;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface ApiKeyRepository {
  insert(row: ApiKeyRow): Promise<void>;
  byDigest(digest: Buffer): Promise<ApiKeyRow | undefined>;
  byId(id: string): Promise<ApiKeyRow | undefined>;
  listForAccount(accountId: string): Promise<ApiKeyRow[]>;
  revoke(id: string, at: number): Promise<boolean>;
}

/** Wrapped per-object data keys. Deleting one destroys its object for good. */
export interface KeyRing {
  put(objectId: string, wrapped: Buffer): Promise<void>;
  get(objectId: string): Promise<Buffer | undefined>;
  delete(objectId: string): Promise<boolean>;
}

/**
 * One part of an object kept in an object store, as the database records it: the object
 * store's index, so that reading an object needs no listing and a small one no request at all.
 * A part is written in the object store (objectKey), or, while the object is small, kept here
 * (body); either way it is the same ciphertext.
 */
export interface StoredPart {
  no: number;
  /** Ciphertext bytes (0 until the part is complete). */
  bytes: number;
  /** Its object in the store: written once under a fresh name, never rewritten. */
  objectKey?: string;
  /** The ciphertext itself, for a part kept in the database. */
  body?: Buffer;
  /** false while its object is being written; a crash leaves it so, for the next append or delete to clear. */
  complete: boolean;
}

export interface PartIndex {
  /** The object's parts, by number. */
  list(objectId: string): Promise<StoredPart[]>;
  /** DuplicateError when the number is taken: a part is claimed before its bytes are written. */
  add(objectId: string, part: StoredPart): Promise<void>;
  /** The part claimed under this object key has its bytes in the store, this many; false when that claim is gone. */
  complete(objectId: string, no: number, objectKey: string, bytes: number): Promise<boolean>;
  /** The part is no longer the object's (an append undone): incomplete again, until its bytes are deleted. */
  withdraw(objectId: string, no: number, objectKey: string): Promise<void>;
  /** Forgets one part (only while it is still under that object key, when one is given), or every part of the object. */
  remove(objectId: string, part?: { no: number; objectKey?: string }): Promise<void>;
}

export interface SettingsRepository {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}

/** The four products; a session's type is the product its job will be. */
export const PRODUCTS = ['hide', 'reveal', 'analyse', 'convert'] as const;
export type Product = (typeof PRODUCTS)[number];
export type SessionType = Product;

export interface SessionRow {
  id: string;
  accountId: string;
  type: SessionType;
  createdAt: number;
  expiresAt: number;
}

export interface SessionRepository {
  insert(row: SessionRow): Promise<void>;
  byId(id: string): Promise<SessionRow | undefined>;
  expiredBefore(at: number, limit: number): Promise<SessionRow[]>;
  /** Ends the session's life at `at` (its owner deleted it), unless it ended before. */
  end(id: string, at: number): Promise<void>;
  delete(id: string): Promise<void>;
}

/** uploading -> completed; either -> deleted (by the user) or expired (by time). */
export type UploadState = 'uploading' | 'completed' | 'deleted' | 'expired';
export type UploadVia = 'v1' | 'direct' | 'tus';

export interface UploadRow {
  /** The storage uid; also the id of the upload's bytes in the blob store. */
  id: string;
  accountId: string;
  /** null for a v1 media-url, which belongs to no session. */
  sessionId: string | null;
  via: UploadVia;
  step: number;
  /** Declared length in bytes. */
  size: number;
  /** Encrypted JSON of what the user told us (file name, client ids, tus metadata). */
  sealed: Buffer;
  /** HMAC of the client's upload id, for idempotent retries; never the id itself. */
  clientRef: Buffer | null;
  state: UploadState;
  createdAt: number;
  expiresAt: number;
  completedAt: number | null;
  endedAt: number | null;
}

export interface UploadRepository {
  insert(row: UploadRow): Promise<void>;
  byId(id: string): Promise<UploadRow | undefined>;
  byClientRef(sessionId: string, clientRef: Buffer): Promise<UploadRow | undefined>;
  /** Live (uploading or completed) uploads of a session, oldest first. */
  liveInSession(sessionId: string): Promise<UploadRow[]>;
  setState(id: string, state: UploadState, at: number): Promise<void>;
  /** Completes an upload whose length was known only at its end (a web form's file part). */
  complete(id: string, size: number, at: number): Promise<void>;
  /** Makes an upload that is in no session a file of one, at a step (a v1 upload joining its job's session); false if it already is in one. */
  attach(id: string, sessionId: string, step: number): Promise<boolean>;
  byViaState(via: UploadVia, state: UploadState): Promise<UploadRow[]>;
  /** Live uploads whose life has run out. */
  expiredBefore(at: number, limit: number): Promise<UploadRow[]>;
  delete(id: string): Promise<void>;
}

/** queued -> processing -> completed | partial | failed */
export type JobState = 'queued' | 'processing' | 'completed' | 'partial' | 'failed';
/** Whether a finished job's results can still be downloaded. */
export type ResultsState = 'none' | 'available' | 'expired';

export interface JobRow {
  id: string;
  accountId: string;
  sessionId: string;
  product: Product;
  state: JobState;
  progress: number;
  /** Shown to the user; never holds file names (those stay sealed). */
  progressMessage: string;
  error: string | null;
  /** Encrypted JSON: the job's options and its per-file report. */
  sealed: Buffer;
  expiryMs: number;
  attempts: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  expiresAt: number | null;
  resultsState: ResultsState;
}

/** The job rows; each engine's repository is also its queue (claim, renew, finish under a lease). */
export interface JobRepository extends JobQueue {
  insert(row: JobRow): Promise<void>;
  /** Inserts the job unless its session has had one, in any state (then false): a session holds one job, ever. */
  insertIfFirst(row: JobRow): Promise<boolean>;
  byId(id: string): Promise<JobRow | undefined>;
  latestForSession(sessionId: string): Promise<JobRow | undefined>;
  /** Every job of a session, oldest first. */
  forSession(sessionId: string): Promise<JobRow[]>;
  /** The session's queued or running job, if any (there is at most one). */
  activeForSession(sessionId: string): Promise<JobRow | undefined>;
  update(id: string, fields: Partial<Omit<JobRow, 'id' | 'accountId' | 'sessionId' | 'product' | 'createdAt'>>): Promise<void>;
  /** Jobs left in processing by a process that died. */
  inState(state: JobState): Promise<JobRow[]>;
  /** How many jobs are queued and processing, by product and state (for the metrics; a count, not the rows). */
  activeCounts(): Promise<{ product: Product; state: JobState; count: number }[]>;
  resultsExpiredBefore(at: number, limit: number): Promise<JobRow[]>;
}

export interface AssetRow {
  id: string;
  jobId: string;
  accountId: string;
  /** result (convert, hide, reveal) or an analysis image kind (display_image, ela_map, ...). */
  category: string;
  position: number;
  /** Encrypted JSON: names (input and output) and anything else that came from the user. */
  sealed: Buffer;
  mimeType: string;
  size: number;
  state: 'available' | 'expired';
  createdAt: number;
}

export interface AssetRepository {
  insert(row: AssetRow): Promise<void>;
  byId(id: string): Promise<AssetRow | undefined>;
  forJob(jobId: string): Promise<AssetRow[]>;
  setState(id: string, state: AssetRow['state']): Promise<void>;
  delete(id: string): Promise<void>;
}

export interface Repositories {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  keyRing: KeyRing;
  parts: PartIndex;
  settings: SettingsRepository;
  sessions: SessionRepository;
  uploads: UploadRepository;
  jobs: JobRepository;
  assets: AssetRepository;
  webSessions: WebSessionRepository;
  mailTokens: MailTokenRepository;
}

// ---- bytes ------------------------------------------------------------------

/** Private working folders for media tools that need files, on a memory-backed filesystem. */
export interface Scratch {
  /** Gives fn a fresh folder (mode 0700) and removes it when fn settles, whatever the outcome. */
  with<T>(fn: (dir: string) => Promise<T>): Promise<T>;
}

export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface AppendOptions {
  /** Refuse the append unless the object's size is exactly this (checked under the lock). */
  expectOffset?: number;
  /** Fail (and write nothing) once more than this many bytes arrive. */
  maxBytes?: number;
  /** Fail (and write nothing) unless exactly this many bytes arrive. */
  exactBytes?: number;
  /**
   * When the source fails midway, keep the bytes received so far (resumable uploads),
   * instead of putting the object back as it was (the default).
   */
  keepPartial?: boolean;
}

/** Encrypted objects: every stored user byte goes through one of these, and only ciphertext leaves it. */
export interface BlobStore {
  /** Creates an empty object; DuplicateError if it exists. */
  create(id: string): Promise<void>;
  /** Streams bytes onto the end of the object; resolves to the new size once durable. */
  append(id: string, source: ByteSource, opts?: AppendOptions): Promise<number>;
  /** The object's size, never mid-append: authenticated (its final frame is checked) or as an index the store trusts records it. */
  size(id: string): Promise<number>;
  exists(id: string): Promise<boolean>;
  /** Plaintext bytes [start, end) as a stream; an integrity failure errors the stream. */
  read(id: string, range?: { start?: number; end?: number }): Readable;
  /** Destroys the object: its data key first, then its bytes. */
  delete(id: string): Promise<boolean>;
  /** Reclaims what writes begun before `before` (ms) and never finished left behind; how many. */
  sweep?(before: number): Promise<number>;
}

export class BlobNotFoundError extends Error {
  override name = 'BlobNotFoundError';
}

export class OffsetMismatchError extends Error {
  override name = 'OffsetMismatchError';
  readonly current: number;
  constructor(current: number, expected: number) {
    super(`offset ${expected} does not match the stored size ${current}`);
    this.current = current;
  }
}

export class SizeLimitError extends Error {
  override name = 'SizeLimitError';
  readonly received: number;
  readonly limit: number;
  readonly kind: 'max' | 'exact';
  constructor(kind: 'max' | 'exact', received: number, limit: number) {
    super(kind === 'max' ? `more than ${limit} bytes received` : `received ${received} bytes, expected ${limit}`);
    this.kind = kind;
    this.received = received;
    this.limit = limit;
  }
}

/** A row that would break a uniqueness rule (an e-mail, a client upload id, a digest): every backend throws this. */
export class DuplicateError extends Error {
  override name = 'DuplicateError';
}

// ---- locks, queue, events -----------------------------------------------------

/** What the holder of a key is told while it holds it. */
export interface LockHold {
  /** Aborted when the hold ended early (the database session that held it dropped): another instance may hold the key now. */
  readonly lost: AbortSignal;
  /** fn is called whenever a waiter, on any instance, asks for the key (Locker.requestRelease). */
  onReleaseRequest(fn: () => void): void;
}

/** Mutual exclusion by key across every instance (one process: in memory; PostgreSQL: advisory locks). */
export interface Locker {
  run<T>(key: string, fn: (hold: LockHold) => Promise<T>): Promise<T>;
  /** Asks whoever holds the key, on any instance, to let go soon: a request, which the holder may heed. */
  requestRelease(key: string): Promise<void>;
}

/**
 * Jobs waiting for a worker, claimed with a lease that the runner renews while it works. A job
 * whose lease ran out (its instance died) is claimed again by whoever asks next; the one that
 * lost the lease can no longer finish it. The job repository of each engine implements this.
 */
export interface JobQueue {
  /**
   * The oldest queued job, or the oldest processing job whose lease ran out before `now`: it
   * becomes processing under a lease held by `owner` until `now + leaseMs`, its attempts + 1,
   * started_at `now`. Safe when many instances claim at once: no job is given twice.
   */
  claim(owner: string, leaseMs: number, now: number): Promise<ClaimedJob | undefined>;
  /** Moves the lease on to `now + leaseMs`; false when `owner` no longer holds it. */
  renew(jobId: string, owner: string, leaseMs: number, now: number): Promise<boolean>;
  /** Writes the job's end (or its return to the queue) and drops the lease, only while `owner` holds it. */
  finish(jobId: string, owner: string, fields: Partial<Omit<JobRow, 'id' | 'accountId' | 'sessionId' | 'product' | 'createdAt'>>): Promise<boolean>;
}

export interface ClaimedJob extends JobRow {
  /** It was processing under a lease that ran out (its instance died or stalled): taken over, not taken from the queue. */
  takenOver: boolean;
}

/** "This job changed": published by whoever changes a job, heard by every instance's long polls. */
export interface JobEvents {
  publish(jobId: string): Promise<void>;
  /** Calls `fn` on each change of the job until the returned function is called. */
  subscribe(jobId: string, fn: () => void): Promise<() => void>;
}

// ---- rate limits ----------------------------------------------------------------

/**
 * Fixed-window counters every instance shares (an account's requests a minute, job starts and
 * uploaded bytes an hour): with many instances a limit holds for the account, not per instance.
 * A window starts at a key's first use. The embedded engine keeps them in memory.
 */
export interface RateCounters {
  /** Counts `n` against the key if the window has room for it under `limit`; else counts nothing and gives the ms until the window ends. */
  take(key: string, n: number, limit: number, windowMs: number, now: number): Promise<number | undefined>;
  /** Counts `n` (negative: gives back) whatever the limit, for amounts known only afterwards. */
  add(key: string, n: number, windowMs: number, now: number): Promise<void>;
  /** What the key used in its current window, and the ms until it ends (0, 0 when it has none). */
  used(key: string, windowMs: number, now: number): Promise<{ used: number; msLeft: number }>;
}

// ---- sealing --------------------------------------------------------------------------

/**
 * Seals small row fields (file names, reports) under a key the instances hold and the engine
 * never sees; `context` (the row's id) is bound in, so a sealed field cannot move to another row.
 */
export interface Sealer {
  seal(context: string, value: unknown): Buffer;
  open<T>(context: string, sealed: Buffer): T;
}

