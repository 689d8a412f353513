// The rows of both SQL engines, as their drivers hand them back, and how each becomes the
// domain's noun: the two schemas are one numbered list (sqlite/ and postgres/migrations.ts), so
// the columns are the same. Byte columns come back as Uint8Array (node:sqlite) or Buffer (pg).
import type { AccountAddresses } from './account-addresses.ts';
import type { Account, MailTokenRow, WebSessionRow, ApiKeyRow, AssetRow, JobRow, JobState, Product, ResultsState, SessionRow, SessionType, UploadRow, UploadState, UploadVia, StoredPart } from '../domain/ports.ts';

/** A driver's bytes as a Buffer, without a copy. */
const bytes = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

export interface AccountRecord {
  id: string;
  /** The address sealed to the row; beside it email_lookup, its HMAC (look-up and uniqueness). */
  email_sealed: Uint8Array;
  verified_at: number | null;
  deactivated_at: number | null;
  created_at: number;
}

/** The account's columns (never password_hash, which has its own reads). */
export const ACCOUNT_COLUMNS = 'id, email_sealed, verified_at, deactivated_at, created_at';

export const toAccount = (r: AccountRecord, addresses: AccountAddresses): Account => ({
  id: r.id,
  email: addresses.open(r.id, bytes(r.email_sealed)),
  verifiedAt: r.verified_at,
  deactivatedAt: r.deactivated_at,
  createdAt: r.created_at,
});

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  prefix: string;
  last4: string;
  digest: Uint8Array;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export const toKey = (r: ApiKeyRecord): ApiKeyRow => ({
  id: r.id,
  accountId: r.account_id,
  prefix: r.prefix,
  last4: r.last4,
  digest: bytes(r.digest),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

export interface SessionRecord {
  id: string;
  account_id: string;
  type: string;
  created_at: number;
  expires_at: number;
}

export const toSession = (r: SessionRecord): SessionRow => ({
  id: r.id,
  accountId: r.account_id,
  type: r.type as SessionType,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

export interface UploadRecord {
  id: string;
  account_id: string;
  session_id: string | null;
  via: string;
  step: number;
  size: number;
  sealed: Uint8Array;
  client_ref: Uint8Array | null;
  state: string;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
  ended_at: number | null;
}

export const toUpload = (r: UploadRecord): UploadRow => ({
  id: r.id,
  accountId: r.account_id,
  sessionId: r.session_id,
  via: r.via as UploadVia,
  step: r.step,
  size: r.size,
  sealed: bytes(r.sealed),
  clientRef: r.client_ref ? bytes(r.client_ref) : null,
  state: r.state as UploadState,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  completedAt: r.completed_at,
  endedAt: r.ended_at,
});

export interface JobRecord {
  id: string;
  account_id: string;
  session_id: string;
  product: string;
  state: string;
  progress: number;
  progress_message: string;
  error: string | null;
  sealed: Uint8Array;
  expiry_ms: number;
  attempts: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  expires_at: number | null;
  results_state: string;
  lease_owner: string | null;
  lease_until: number | null;
}

export const toJob = (r: JobRecord): JobRow => ({
  id: r.id,
  accountId: r.account_id,
  sessionId: r.session_id,
  product: r.product as Product,
  state: r.state as JobState,
  progress: r.progress,
  progressMessage: r.progress_message,
  error: r.error,
  sealed: bytes(r.sealed),
  expiryMs: r.expiry_ms,
  attempts: r.attempts,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  expiresAt: r.expires_at,
  resultsState: r.results_state as ResultsState,
});

export interface AssetRecord {
  id: string;
  job_id: string;
  account_id: string;
  category: string;
  position: number;
  sealed: Uint8Array;
  mime_type: string;
  size: number;
  state: string;
  created_at: number;
}

export const toAsset = (r: AssetRecord): AssetRow => ({
  id: r.id,
  jobId: r.job_id,
  accountId: r.account_id,
  category: r.category,
  position: r.position,
  sealed: bytes(r.sealed),
  mimeType: r.mime_type,
  size: r.size,
  state: r.state as AssetRow['state'],
  createdAt: r.created_at,
});

/** A job row's columns on insert, and its values in the same order. */
const JOB_INSERT_COLUMNS = 'id, account_id, session_id, product, state, progress, progress_message, error, sealed, expiry_ms, attempts, created_at, started_at, finished_at, expires_at, results_state';
const jobValues = (j: JobRow): SqlValue[] => [j.id, j.accountId, j.sessionId, j.product, j.state, j.progress, j.progressMessage, j.error, j.sealed, j.expiryMs, j.attempts, j.createdAt, j.startedAt, j.finishedAt, j.expiresAt, j.resultsState];

/** What the two drivers take as a parameter. */
export type SqlValue = string | number | null | Buffer;
/** The engine's nth parameter: `?` (SQLite) or `$n` (PostgreSQL). */
export type Placeholder = (n: number) => string;

/** The INSERT of a job row, with its values. */
export function jobInsert(j: JobRow, param: Placeholder): { sql: string; values: SqlValue[] } {
  const values = jobValues(j);
  return { sql: `INSERT INTO jobs (${JOB_INSERT_COLUMNS}) VALUES (${values.map((_, i) => param(i + 1)).join(', ')})`, values };
}

export type JobFields = Partial<Omit<JobRow, 'id' | 'accountId' | 'sessionId' | 'product' | 'createdAt'>>;

/** `col = <parameter>` for each job field given, in order, with its values (parameters from `first`); an unknown field throws. */
export function jobAssignments(fields: JobFields, param: Placeholder, first = 1): { sets: string[]; values: SqlValue[] } {
  const sets: string[] = [];
  const values: SqlValue[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const col = JOB_COLUMNS[k];
    if (!col) throw new Error(`not an updatable job field: ${k}`);
    values.push(v as SqlValue);
    sets.push(`${col} = ${param(first + values.length - 1)}`);
  }
  return { sets, values };
}

/** The job fields an update may write, and their columns. */
const JOB_COLUMNS: Record<string, string> = {
  state: 'state',
  progress: 'progress',
  progressMessage: 'progress_message',
  error: 'error',
  sealed: 'sealed',
  expiryMs: 'expiry_ms',
  attempts: 'attempts',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  expiresAt: 'expires_at',
  resultsState: 'results_state',
};

export interface WebSessionRecord {
  digest: Uint8Array;
  account_id: string;
  created_at: number;
  seen_at: number;
  expires_at: number;
  network: WebSessionRow['network'];
  method: WebSessionRow['method'];
  key_id: string | null;
}

export const toWebSession = (r: WebSessionRecord): WebSessionRow => ({
  digest: bytes(r.digest),
  accountId: r.account_id,
  createdAt: r.created_at,
  seenAt: r.seen_at,
  expiresAt: r.expires_at,
  network: r.network,
  method: r.method,
  keyId: r.key_id,
});

export interface MailTokenRecord {
  digest: Uint8Array;
  account_id: string;
  purpose: MailTokenRow['purpose'];
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export const toMailToken = (r: MailTokenRecord): MailTokenRow => ({
  digest: bytes(r.digest),
  accountId: r.account_id,
  purpose: r.purpose,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
});

export interface PartRecord {
  no: number;
  bytes: number;
  object_key: string | null;
  body: Uint8Array | null;
  /** BOOLEAN in PostgreSQL, 0/1 in SQLite. */
  complete: boolean | number;
}

export const toPart = (r: PartRecord): StoredPart => ({
  no: r.no,
  bytes: r.bytes,
  ...(r.object_key !== null ? { objectKey: r.object_key } : {}),
  ...(r.body !== null ? { body: bytes(r.body) } : {}),
  complete: r.complete === true || r.complete === 1,
});

/** The part index's columns, in the order both engines select them. */
export const PART_COLUMNS = 'no, bytes, object_key, body, complete';
