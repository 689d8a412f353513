// TUS 1.0.0 uploads (@tus/server drives the protocol through http/tus/data-store.ts): created
// after the core admitted them, appended PATCH by PATCH, resumable after a broken connection.
import { BlobNotFoundError, type Account, type ByteSource, type SessionRow, type UploadRow } from './ports.ts';
import { cleanClientId, cleanName, type Uploads } from './uploads.ts';

export class TusUploads {
  readonly #core: Uploads;

  constructor(core: Uploads) {
    this.#core = core;
  }

  /** Creates a TUS upload (after admit()). */
  async begin(
    account: Account,
    input: { id: string; session: SessionRow; step: number; size: number; metadata: Record<string, string | null> },
  ): Promise<UploadRow> {
    const name = cleanName(input.metadata.name ?? input.metadata.filename);
    const clientUploadId = cleanClientId(input.metadata.client_upload_id);
    return this.#core.begin(account, {
      id: input.id,
      via: 'tus',
      session: input.session,
      step: input.step,
      size: input.size,
      lifeMs: input.session.expiresAt - Date.now(),
      secret: { name, clientUploadId, metadata: input.metadata },
      clientRef: null,
    });
  }

  /** Appends a PATCH body; bytes that arrived before a broken connection are kept. */
  async append(id: string, body: ByteSource, offset: number): Promise<number> {
    const row = await this.#core.byId(id);
    if (!row || row.via !== 'tus' || (row.state !== 'uploading' && row.state !== 'completed')) throw new BlobNotFoundError('no such upload');
    await this.#core.assertIdle(row);
    return this.#core.append(row, body, { expectOffset: offset, maxBytes: row.size - offset, keepPartial: true });
  }

  /** A TUS upload as @tus/server needs it, for its owner only. */
  async state(id: string): Promise<{ row: UploadRow; offset: number; metadata: Record<string, string | null> }> {
    const row = await this.#core.byId(id);
    if (!row || row.via !== 'tus' || (row.state !== 'uploading' && row.state !== 'completed')) throw new BlobNotFoundError('no such upload');
    const offset = await this.#core.sizeOf(row);
    return { row, offset, metadata: this.#core.secretOf(row).metadata ?? {} };
  }

  /** TUS termination: only a TUS upload, and not while a job works on its session. */
  async remove(id: string): Promise<void> {
    const row = await this.#core.byId(id);
    if (!row || row.via !== 'tus') throw new BlobNotFoundError('no such upload');
    if (row.state !== 'uploading' && row.state !== 'completed') return;
    await this.#core.assertIdle(row);
    await this.#core.end(row, 'deleted');
  }

  /** Removes every trace of a TUS upload whose creation request failed: it was never handed out. */
  async abandon(id: string): Promise<void> {
    const row = await this.#core.byId(id);
    if (row?.via === 'tus' && row.state !== 'deleted' && row.state !== 'expired') await this.#core.discard(row);
  }
}
