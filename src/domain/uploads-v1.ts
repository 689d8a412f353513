// v1 media-urls (the v1 specification): an upload made before its file's session exists, sent in
// chunks at given offsets, each all or nothing; a v1 job makes it the file of a session.
import type { Account, SessionRow } from './ports.ts';
import { AppError, hasCode, type ErrorCode } from './errors.ts';
import type { Sessions } from './sessions.ts';
import { cleanName, gone, type Uploads } from './uploads.ts';

export class MediaUrls {
  readonly #core: Uploads;
  readonly #sessions: Sessions;

  constructor(core: Uploads, sessions: Sessions) {
    this.#core = core;
    this.#sessions = sessions;
  }

  create(account: Account, input: { name: unknown; size: unknown }): Promise<{ key: string; expiresAt: number }> {
    const name = cleanName(input.name);
    const size = input.size;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1) {
      throw new AppError('invalid_size', 'size must be a whole number of bytes, at least 1.');
    }
    if (size > this.#core.limits.fileMax) {
      throw new AppError('file_too_large', `size ${size} is over the limit of ${this.#core.limits.fileMax} bytes.`);
    }
    return this.#core.begin(account, { via: 'v1', session: null, step: 1, size, lifeMs: this.#core.limits.mediaUrlLifeMs, secret: { name } }).then((row) => ({
      key: row.id,
      expiresAt: row.expiresAt,
    }));
  }

  /** Where a v1 upload stands. Unknown, deleted and expired media-urls are errors. */
  async status(account: Account, key: string): Promise<{ offset: number; size: number; expiresAt: number; complete: boolean }> {
    const row = await this.#core.live(account, key, 'v1');
    const offset = await this.#core.sizeOf(row);
    return { offset, size: row.size, expiresAt: row.expiresAt, complete: row.state === 'completed' };
  }

  /** One v1 chunk, all or nothing: a wrong offset, an oversized or overlong chunk writes nothing. */
  async append(account: Account, key: string, offset: number, chunk: Buffer): Promise<{ offset: number; complete: boolean; expiresAt: number }> {
    const row = await this.#core.live(account, key, 'v1');
    // Checked against the size seen now; the append re-checks the offset under the
    // object's lock, so a racing chunk cannot slip in between.
    const current = await this.#core.sizeOf(row);
    const fail = (code: ErrorCode, message: string, at = current) =>
      new AppError(code, `${message} The upload is at offset ${at}.`, { upload_offset: at });
    if (row.state === 'completed' || current === row.size) throw fail('upload_complete', 'This upload is already complete.');
    if (offset !== current) throw fail('offset_mismatch', `offset ${offset} does not match the current offset.`);
    if (chunk.length === 0) throw fail('empty_chunk', 'The file part is empty.');
    if (chunk.length > this.#core.limits.chunkMax) throw fail('chunk_too_large', `The chunk of ${chunk.length} bytes is over the limit of ${this.#core.limits.chunkMax} bytes.`);
    if (offset + chunk.length > row.size) {
      throw fail('chunk_past_end', `The chunk would end at ${offset + chunk.length}, past the declared size of ${row.size} bytes.`);
    }
    try {
      const next = await this.#core.append(row, [chunk], { expectOffset: offset, exactBytes: chunk.length });
      return { offset: next, complete: next === row.size, expiresAt: row.expiresAt };
    } catch (err) {
      if (hasCode(err, 'offset_mismatch')) throw fail('offset_mismatch', `offset ${offset} does not match the current offset.`, err.details?.upload_offset as number);
      throw err;
    }
  }

  /** DELETE of a media-url: 404 unknown, 410 deleted or expired. */
  async delete(account: Account, key: string): Promise<void> {
    const row = await this.#core.owned(account, key, 'v1');
    if (row.state === 'deleted' || row.state === 'expired') throw gone(row);
    if (row.expiresAt <= Date.now()) {
      await this.#core.end(row, 'expired');
      throw gone({ ...row, state: 'expired' });
    }
    await this.#core.assertIdle(row);
    await this.#core.end(row, 'deleted');
  }

  /**
   * A completed media-url as the input of a v1 job: the job engine works on sessions, so the
   * upload joins one as its step-1 file the first time (a later start finds that session and
   * its job: one job per media-url, as per session). Of racing first starts one session wins
   * the upload, and every start goes on with it.
   */
  async sessionFor(account: Account, key: string, type: 'analyse', retried = false): Promise<SessionRow> {
    const row = await this.#core.live(account, key, 'v1');
    if (row.state !== 'completed') {
      const at = await this.#core.sizeOf(row);
      throw new AppError('upload_incomplete', `The upload of this media-url is not complete: ${at} of ${row.size} bytes arrived. Finish it before starting a job.`, { upload_offset: at });
    }
    if (row.sessionId) {
      const existing = await this.#sessions.byIdUnchecked(row.sessionId);
      if (existing && existing.accountId === account.id && existing.type === type && existing.expiresAt > Date.now()) return existing;
      throw new AppError('session_used', "This media-url has had its job, and that job's time is over: a media-url holds one job, ever; create a new media-url for another.");
    }
    const session = await this.#sessions.create(account, type);
    if (await this.#core.attach(row, session, 1)) return session;
    // another start attached the upload first: its session it is
    await this.#sessions.end(session);
    if (retried) throw new AppError('session_used', 'This media-url already has its job.');
    return this.sessionFor(account, key, type, true);
  }
}
