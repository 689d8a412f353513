// Uploads, the core: every way bytes come in (v1 media-url chunks in uploads-v1.ts, a direct
// upload or a web form's file in uploads-direct.ts, TUS in uploads-tus.ts) lands here, in one
// encrypted blob store whose per-object lock serialises all writes to an upload.
// The offset of an upload is always the size of its stored bytes as the blob store vouches for
// it (authenticated, or recorded once durable), so it can never claim bytes that are not stored.
import { createHmac } from 'node:crypto';
import {
  BlobNotFoundError,
  DuplicateError,
  OffsetMismatchError,
  type Account,
  type BlobStore,
  type ByteSource,
  type SessionRow,
  type UploadRepository,
  type UploadRow,
  type UploadVia,
  type Sealer,
} from './ports.ts';
import type { Metrics } from '../metrics.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';
import { stepRules, type Sessions } from './sessions.ts';

export interface UploadLimits {
  directUploadMax: number;
  chunkMax: number;
  fileMax: number;
  mediaUrlLifeMs: number;
  sessionMaxFiles: number;
}

/** What the user told us about a file; sealed in the row, never stored in the clear. */
export interface UploadPrivate {
  name: string;
  clientUploadId?: string;
  /** TUS Upload-Metadata as sent (echoed back on HEAD). */
  metadata?: Record<string, string | null>;
}

/** A file of a session as its owner may see it: the name made safe, never the row's sealed rest. */
export interface StoredFile {
  id: string;
  name: string;
  step: number;
  size: number;
  complete: boolean;
}

const STORAGE_UID = /^[A-Za-z0-9_-]{8,64}$/;
const MAX_NAME_BYTES = 255;
const MAX_CLIENT_ID = 200;

export class Uploads {
  readonly #rows: UploadRepository;
  readonly #blobs: BlobStore;
  readonly #sealer: Sealer;
  readonly #clientRefKey: Buffer;
  readonly #sessions: Sessions;
  readonly limits: UploadLimits;
  readonly #metrics: Metrics | undefined;

  constructor(opts: { rows: UploadRepository; blobs: BlobStore; sealer: Sealer; clientRefKey: Buffer; sessions: Sessions; limits: UploadLimits; metrics?: Metrics }) {
    this.#metrics = opts.metrics;
    this.#rows = opts.rows;
    this.#blobs = opts.blobs;
    this.#sealer = opts.sealer;
    this.#clientRefKey = opts.clientRefKey;
    this.#sessions = opts.sessions;
    this.limits = opts.limits;
  }

  // ---- for every way in ------------------------------------------------------

  /**
   * Checks that a file may join a session at this step: the session is the caller's, alive
   * and without a job (queued, running or ended), the step fits its type (absent, it is 1 where the type has one step only), and the
   * step has room for one more file.
   */
  async admit(account: Account, input: { uploadUid: unknown; step: unknown; size?: number }): Promise<{ session: SessionRow; step: number }> {
    if (typeof input.uploadUid !== 'string' || input.uploadUid === '') {
      throw new AppError('missing_upload_uid', 'upload_uid is required: the upload_uid of the session this file belongs to.');
    }
    const session = await this.#sessions.get(account, input.uploadUid);
    await this.#sessions.assertTakesFiles(session);
    const rules = stepRules(session.type, this.limits.sessionMaxFiles);
    // a session of one step (reveal, analyse, convert) needs no step: it can only be that one
    const steps = Object.keys(rules);
    const given = input.step === undefined || input.step === null || input.step === '' ? (steps.length === 1 ? Number(steps[0]) : undefined) : input.step;
    const step = typeof given === 'number' ? given : typeof given === 'string' && /^\d{1,2}$/.test(given) ? Number(given) : NaN;
    const rule = rules[step];
    if (!rule) {
      const steps = Object.keys(rules);
      const allowed = steps.length > 1 ? `${steps.slice(0, -1).join(', ')} or ${steps.at(-1)}` : steps[0];
      throw new AppError('invalid_step', `A ${session.type} session takes step ${allowed}; got ${JSON.stringify(input.step ?? null)}.`);
    }
    const taken = (await this.#rows.liveInSession(session.id)).filter((u) => u.step === step).length;
    if (taken >= rule.max) {
      throw new AppError('step_full', `A ${session.type} session takes at most ${rule.max} ${rule.what} file${rule.max === 1 ? '' : 's'} at step ${step}.`);
    }
    if (input.size !== undefined && input.size > this.limits.fileMax) {
      throw new AppError('file_too_large', `The file is over the limit of ${this.limits.fileMax} bytes.`);
    }
    return { session, step };
  }

  /** Destroys the bytes and keys of every live upload of a deleted session. Returns how many. */
  async destroyIn(session: SessionRow): Promise<number> {
    const rows = await this.#rows.liveInSession(session.id);
    for (const row of rows) await this.end(row, 'deleted');
    return rows.length;
  }

  async listFiles(session: SessionRow): Promise<StoredFile[]> {
    return (await this.#rows.liveInSession(session.id)).map((r) => this.view(r));
  }

  /** Exactly these completed uploads of the session, in this order; undefined if one is gone. */
  async exactly(session: SessionRow, ids: readonly string[]): Promise<UploadRow[] | undefined> {
    const rows = await Promise.all(ids.map((id) => this.#rows.byId(id)));
    return rows.every((r) => r && r.sessionId === session.id && r.state === 'completed') ? (rows as UploadRow[]) : undefined;
  }

  /** The session's completed uploads by step, then in the order they arrived. */
  async completedIn(session: SessionRow): Promise<UploadRow[]> {
    return (await this.#rows.liveInSession(session.id))
      .filter((r) => r.state === 'completed')
      .sort((a, b) => a.step - b.step || a.createdAt - b.createdAt);
  }

  view(row: UploadRow): StoredFile {
    return {
      id: row.id,
      name: safeName(this.secretOf(row).name), // names stored before safeName() existed, too
      step: row.step,
      size: row.size,
      complete: row.state === 'completed',
    };
  }

  /** The original file name, for naming outputs. */
  nameOf(row: UploadRow): string {
    return this.secretOf(row).name;
  }

  /** The plaintext bytes of a completed upload. */
  read(row: UploadRow, range?: { start?: number; end?: number }) {
    return this.#blobs.read(row.id, range);
  }

  /** Destroys the bytes of every upload whose life is over. Returns how many. */
  async expire(now = Date.now()): Promise<number> {
    let n = 0;
    for (;;) {
      const batch = await this.#rows.expiredBefore(now, 100);
      if (!batch.length) return n;
      for (const row of batch) await this.end(row, 'expired');
      n += batch.length;
    }
  }

  /**
   * At start: a direct upload caught mid-body by a crash was never acknowledged, so it is
   * discarded whole (TUS and v1 uploads resume instead). Returns how many.
   */
  async recover(): Promise<number> {
    const stale = await this.#rows.byViaState('direct', 'uploading');
    for (const row of stale) await this.discard(row);
    return stale.length;
  }

  // ---- for the protocol parts (uploads-v1.ts, uploads-direct.ts, uploads-tus.ts) ----------

  /** The row of an upload, whoever owns it (a part checks what it must). */
  byId(id: string): Promise<UploadRow | undefined> {
    return STORAGE_UID.test(id) ? this.#rows.byId(id) : Promise.resolve(undefined);
  }

  /** The size of an upload's stored bytes: its offset. */
  sizeOf(row: UploadRow): Promise<number> {
    return this.#blobs.size(row.id);
  }

  /** Makes an upload that is in no session a file of one, at a step; false if it already is in one (a racing v1 start won). */
  attach(row: UploadRow, session: SessionRow, step: number): Promise<boolean> {
    return this.#rows.attach(row.id, session.id, step);
  }

  /** A completed upload whose length was known only at its end. */
  complete(row: UploadRow, size: number): Promise<void> {
    return this.#rows.complete(row.id, size, Date.now());
  }

  /** The first upload of a session with this client id (an idempotent retry), and its reference. */
  async retryOf(session: SessionRow, clientUploadId: string): Promise<{ ref: Buffer; first?: UploadRow }> {
    const ref = createHmac('sha256', this.#clientRefKey).update(`${session.id}\0${clientUploadId}`).digest();
    return { ref, first: await this.#rows.byClientRef(session.id, ref) };
  }

  /** Drops the row of a deleted or expired upload, so its client id may be used again. */
  forget(row: UploadRow): Promise<void> {
    return this.#rows.delete(row.id);
  }

  secretOf(row: UploadRow): UploadPrivate {
    return this.#sealer.open<UploadPrivate>(`upload:${row.id}`, row.sealed);
  }

  async begin(
    account: Account,
    o: {
      id?: string;
      via: UploadVia;
      session: SessionRow | null;
      step: number;
      size: number;
      lifeMs: number;
      secret: UploadPrivate;
      clientRef?: Buffer | null;
    },
  ): Promise<UploadRow> {
    const id = o.id ?? newId('st', 16);
    const now = Date.now();
    const row: UploadRow = {
      id,
      accountId: account.id,
      sessionId: o.session?.id ?? null,
      via: o.via,
      step: o.step,
      size: o.size,
      sealed: this.#sealer.seal(`upload:${id}`, o.secret),
      clientRef: o.clientRef ?? null,
      state: o.size === 0 ? 'completed' : 'uploading',
      createdAt: now,
      expiresAt: now + Math.max(0, o.lifeMs),
      completedAt: o.size === 0 ? now : null,
      endedAt: null,
    };
    try {
      await this.#rows.insert(row);
    } catch (err) {
      if (err instanceof DuplicateError) throw new AppError('upload_in_progress', 'An upload with this X-Client-Upload-Id is already under way.');
      throw err;
    }
    try {
      await this.#blobs.create(id);
    } catch (err) {
      await this.#rows.delete(id);
      throw err;
    }
    return row;
  }

  /** Appends (the store checks the offset under the object's lock) and marks the upload complete once whole. */
  async append(row: UploadRow, body: ByteSource, opts: Parameters<BlobStore['append']>[2]): Promise<number> {
    let next: number;
    try {
      next = await this.#blobs.append(row.id, body, opts);
    } catch (err) {
      if (err instanceof OffsetMismatchError) {
        throw new AppError('offset_mismatch', `The offset does not match; the upload is at ${err.current}.`, { upload_offset: err.current });
      }
      // its session was deleted (or it expired) while the body was on its way
      if (err instanceof BlobNotFoundError) throw new AppError('upload_deleted', 'This upload was deleted or expired while it arrived; nothing was kept.');
      throw err;
    }
    this.#metrics?.uploadBytes(row.via, next - (opts?.expectOffset ?? 0));
    if (next === row.size && row.state !== 'completed') await this.#rows.setState(row.id, 'completed', Date.now());
    return next;
  }

  async owned(account: Account, id: string, via?: UploadVia): Promise<UploadRow> {
    const row = typeof id === 'string' && STORAGE_UID.test(id) ? await this.#rows.byId(id) : undefined;
    if (!row || row.accountId !== account.id || (via && row.via !== via)) {
      throw new AppError('upload_not_found');
    }
    return row;
  }

  /** A live upload of the caller; an expired one is destroyed on the spot. */
  async live(account: Account, id: string, via: UploadVia): Promise<UploadRow> {
    const row = await this.owned(account, id, via);
    if (row.state === 'deleted' || row.state === 'expired') throw gone(row);
    if (row.expiresAt <= Date.now()) {
      await this.end(row, 'expired');
      throw gone({ ...row, state: 'expired' });
    }
    return row;
  }

  /** Destroys the bytes; keeps a tombstone row so later calls can answer 410. */
  async end(row: UploadRow, state: 'deleted' | 'expired'): Promise<void> {
    await this.#blobs.delete(row.id);
    await this.#rows.setState(row.id, state, Date.now());
  }

  /** Removes every trace of an upload that never completed (a cut-short direct upload). */
  async discard(row: UploadRow): Promise<void> {
    await this.#blobs.delete(row.id);
    await this.#rows.delete(row.id);
  }

  /** 409 while a job is queued or running on the upload's session (its files are frozen). */
  async assertIdle(row: UploadRow): Promise<void> {
    const session = row.sessionId ? await this.#sessions.byIdUnchecked(row.sessionId) : undefined;
    if (session) await this.#sessions.assertIdle(session);
  }
}

export function gone(row: Pick<UploadRow, 'state'>): AppError {
  return row.state === 'deleted'
    ? new AppError('upload_deleted', 'This upload was deleted.')
    : new AppError('upload_expired');
}

/**
 * A file name as the user gave it, as safeName() makes it; 422 for a name too long or not a
 * string. A name with percent-escapes is decoded unless the caller knows it is plain text
 * (`percentEncoded: false`: a header's raw UTF-8, where `%` is a literal percent sign).
 */
export function cleanName(raw: unknown, percentEncoded = true): string {
  if (raw === undefined || raw === null || raw === '') return 'file';
  if (typeof raw !== 'string') throw new AppError('invalid_name', 'name must be a string.');
  let name = raw;
  if (percentEncoded && /%[0-9A-Fa-f]{2}/.test(name)) {
    try {
      name = decodeURIComponent(name);
    } catch {
      /* not percent-encoded after all */
    }
  }
  if (Buffer.byteLength(safeName(name, Infinity), 'utf8') > MAX_NAME_BYTES) {
    throw new AppError('name_too_long', `The file name is longer than ${MAX_NAME_BYTES} bytes.`);
  }
  return safeName(name);
}

// Characters that look like a path separator without being one (a name shown as "a∕b" must
// not read as a folder), replaced by "_".
const LOOKALIKE_SEPARATORS = /[\u2044\u2215\u2216\u2571\u2572\u29f5\u29f8\u29f9\ufe68\uff0f\uff3c]/g;
// Controls (C0, DEL, C1), format characters (category Cf: bidi overrides and isolates such as
// U+202E, which makes "<RLO>gpj.exe" display as "exe.jpg", zero-width characters, the BOM),
// line and paragraph separators, and lone surrogates: removed.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/**
 * A name safe to list and to offer for download: its last path segment, NFC, without invisible
 * or direction-changing characters or look-alike separators, at most `maxBytes` of UTF-8
 * (cut on a character boundary). Never throws: also used for names read back out of files.
 */
export function safeName(raw: string, maxBytes = MAX_NAME_BYTES): string {
  let name = raw.normalize('NFC').split(/[\\/]/).pop() ?? '';
  name = name.replace(INVISIBLE, '').replace(LOOKALIKE_SEPARATORS, '_').trim();
  if (name === '' || name === '.' || name === '..') return 'file';
  const bytes = Buffer.from(name, 'utf8');
  // a character cut in two decodes as U+FFFD at the end: drop it
  return bytes.length <= maxBytes ? name : bytes.subarray(0, maxBytes).toString('utf8').replace(/\uFFFD+$/, '');
}

export function cleanClientId(raw: unknown): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string' || raw.length > MAX_CLIENT_ID || /[\u0000-\u001f\u007f]/.test(raw)) {
    throw new AppError('invalid_client_upload_id', `The client upload id must be printable text of at most ${MAX_CLIENT_ID} characters.`);
  }
  return raw;
}
