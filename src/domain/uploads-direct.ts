// A whole file in one request: a direct upload (Content-Length known before a byte arrives) or
// a web form's file part (its length known only at its end).
import { SizeLimitError, type Account, type ByteSource } from './ports.ts';
import { AppError } from './errors.ts';
import { cleanClientId, cleanName, type StoredFile, type Uploads } from './uploads.ts';

export class DirectUploads {
  readonly #core: Uploads;

  constructor(core: Uploads) {
    this.#core = core;
  }

  /** A whole file in one request. Commits only when exactly Content-Length bytes arrived. */
  async whole(
    account: Account,
    input: { uploadUid: unknown; step: unknown; name: unknown; nameIsPercentEncoded?: boolean; clientUploadId: unknown; contentLength: number },
    body: ByteSource,
  ): Promise<StoredFile> {
    const clientUploadId = cleanClientId(input.clientUploadId);
    const { session, step } = await this.#core.admit(account, { uploadUid: input.uploadUid, step: input.step, size: input.contentLength });
    const name = cleanName(input.name, input.nameIsPercentEncoded ?? true);
    let clientRef: Buffer | null = null;
    if (clientUploadId !== undefined) {
      const { ref, first } = await this.#core.retryOf(session, clientUploadId);
      clientRef = ref;
      if (first?.state === 'completed') return this.#core.view(first);
      if (first?.state === 'uploading') {
        throw new AppError('upload_in_progress', 'An upload with this X-Client-Upload-Id is still in progress.');
      }
      if (first) await this.#core.forget(first); // deleted or expired: the id may be used again
    }
    const row = await this.#core.begin(account, {
      via: 'direct',
      session,
      step,
      size: input.contentLength,
      lifeMs: session.expiresAt - Date.now(),
      secret: { name, clientUploadId },
      clientRef,
    });
    try {
      await this.#core.append(row, body, { expectOffset: 0, exactBytes: input.contentLength });
    } catch (err) {
      await this.#core.discard(row);
      if (err instanceof SizeLimitError) {
        throw new AppError('length_mismatch', `The body held ${err.kind === 'exact' && err.received > err.limit ? 'more' : 'fewer'} bytes than its Content-Length of ${input.contentLength}; nothing was stored.`);
      }
      throw err;
    }
    return this.#core.view({ ...row, state: 'completed' });
  }

  /**
   * A file of a web form: its length is known only at its end (a multipart part has none), so
   * it is taken up to `maxBytes` and completed with the length that arrived. Anything over the
   * cap, or a body cut short, stores nothing.
   */
  async streamed(account: Account, input: { uploadUid: string; step: number; name: unknown }, body: ByteSource, maxBytes: number): Promise<StoredFile> {
    const cap = Math.min(maxBytes, this.#core.limits.fileMax);
    const { session, step } = await this.#core.admit(account, { uploadUid: input.uploadUid, step: input.step });
    const name = cleanName(input.name);
    const row = await this.#core.begin(account, { via: 'direct', session, step, size: cap, lifeMs: session.expiresAt - Date.now(), secret: { name }, clientRef: null });
    let size: number;
    try {
      size = await this.#core.append(row, body, { expectOffset: 0, maxBytes: cap });
    } catch (err) {
      await this.#core.discard(row);
      if (err instanceof SizeLimitError) throw new AppError('file_too_large', `A file is over the limit of ${cap} bytes for one upload; nothing was stored.`, { max_upload_bytes: cap });
      throw err;
    }
    await this.#core.complete(row, size);
    return this.#core.view({ ...row, size, state: 'completed' });
  }
}
