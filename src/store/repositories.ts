// The row seams. The domain sees only these interfaces; sqlite/ is the embedded backend,
// and a scale-out backend (PostgreSQL) would sit beside it with the same shapes.

export interface Account {
  id: string;
  email: string;
  verifiedAt: number | null;
  deactivatedAt: number | null;
  createdAt: number;
}

export interface AccountRepository {
  insert(account: Account): void;
  byEmail(email: string): Account | undefined;
  byId(id: string): Account | undefined;
  update(id: string, fields: Partial<Pick<Account, 'verifiedAt' | 'deactivatedAt'>>): void;
  /** The argon2id hash (PHC string) of the account's web password; undefined when it has none. */
  passwordHash(id: string): string | undefined;
  setPasswordHash(id: string, hash: string | null): void;
}

/** A person signed in to the web pages. The cookie's token is never stored, only its HMAC. */
export interface WebSessionRow {
  digest: Buffer;
  accountId: string;
  createdAt: number;
  seenAt: number;
  /** The earlier of inactivity and the absolute limit, moved on at every request. */
  expiresAt: number;
}

export interface WebSessionRepository {
  insert(row: WebSessionRow): void;
  byDigest(digest: Buffer): WebSessionRow | undefined;
  touch(digest: Buffer, seenAt: number, expiresAt: number): void;
  delete(digest: Buffer): void;
  deleteForAccount(accountId: string): number;
  deleteExpired(at: number): number;
}

/** A single-use link sent by mail (the address verification); only its HMAC is stored. */
export interface MailTokenRow {
  digest: Buffer;
  accountId: string;
  purpose: 'verify';
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface MailTokenRepository {
  insert(row: MailTokenRow): void;
  byDigest(digest: Buffer): MailTokenRow | undefined;
  /** Marks the token used unless it was used before; true when this call used it. */
  use(digest: Buffer, at: number): boolean;
  deleteExpired(at: number): number;
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
  insert(row: ApiKeyRow): void;
  byDigest(digest: Buffer): ApiKeyRow | undefined;
  byId(id: string): ApiKeyRow | undefined;
  listForAccount(accountId: string): ApiKeyRow[];
  revoke(id: string, at: number): boolean;
}

/** Wrapped per-object data keys. Deleting one destroys its object for good. */
export interface KeyRing {
  put(objectId: string, wrapped: Buffer): void;
  get(objectId: string): Buffer | undefined;
  delete(objectId: string): boolean;
}

export interface SettingsRepository {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
  delete(name: string): void;
}

export type SessionType = 'hide' | 'reveal' | 'analyse' | 'convert';

export interface SessionRow {
  id: string;
  accountId: string;
  type: SessionType;
  createdAt: number;
  expiresAt: number;
}

export interface SessionRepository {
  insert(row: SessionRow): void;
  byId(id: string): SessionRow | undefined;
  expiredBefore(at: number, limit: number): SessionRow[];
  /** Ends the session's life at `at` (its owner deleted it), unless it ended before. */
  end(id: string, at: number): void;
  delete(id: string): void;
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
  insert(row: UploadRow): void;
  byId(id: string): UploadRow | undefined;
  byClientRef(sessionId: string, clientRef: Buffer): UploadRow | undefined;
  /** Live (uploading or completed) uploads of a session, oldest first. */
  liveInSession(sessionId: string): UploadRow[];
  setState(id: string, state: UploadState, at: number): void;
  /** Completes an upload whose length was known only at its end (a web form's file part). */
  complete(id: string, size: number, at: number): void;
  /** Makes the upload a file of a session, at a step (a v1 upload joining a job's session). */
  attach(id: string, sessionId: string, step: number): void;
  byViaState(via: UploadVia, state: UploadState): UploadRow[];
  /** Live uploads whose life has run out. */
  expiredBefore(at: number, limit: number): UploadRow[];
  delete(id: string): void;
}

export type Product = 'hide' | 'reveal' | 'analyse' | 'convert';
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

export interface JobRepository {
  insert(row: JobRow): void;
  /** Inserts the job unless its session already has a queued or running one (then false). */
  insertIfIdle(row: JobRow): boolean;
  byId(id: string): JobRow | undefined;
  latestForSession(sessionId: string): JobRow | undefined;
  /** Every job of a session, oldest first. */
  forSession(sessionId: string): JobRow[];
  /** The session's queued or running job, if any (there is at most one). */
  activeForSession(sessionId: string): JobRow | undefined;
  /** Atomically moves the oldest queued job to processing and returns it. */
  claimNext(now: number): JobRow | undefined;
  update(id: string, fields: Partial<Omit<JobRow, 'id' | 'accountId' | 'sessionId' | 'product' | 'createdAt'>>): void;
  /** Jobs left in processing by a process that died. */
  inState(state: JobState): JobRow[];
  resultsExpiredBefore(at: number, limit: number): JobRow[];
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
  insert(row: AssetRow): void;
  byId(id: string): AssetRow | undefined;
  forJob(jobId: string): AssetRow[];
  setState(id: string, state: AssetRow['state']): void;
  delete(id: string): void;
}

export interface Repositories {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  keyRing: KeyRing;
  settings: SettingsRepository;
  sessions: SessionRepository;
  uploads: UploadRepository;
  jobs: JobRepository;
  assets: AssetRepository;
  webSessions: WebSessionRepository;
  mailTokens: MailTokenRepository;
}
