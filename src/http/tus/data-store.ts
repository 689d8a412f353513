// The @tus/server DataStore seam, over the domain's uploads: every TUS byte goes through
// Uploads (and so the one encrypted blob store and its lock). Metadata, file names
// included, lives sealed in the upload row, never as a plaintext JSON file.
import type { Readable } from 'node:stream';
import { DataStore, ERRORS, Upload } from '@tus/utils';
import { hasCode } from '../../domain/errors.ts';
import type { Uploads } from '../../domain/uploads.ts';
import type { TusUploads } from '../../domain/uploads-tus.ts';
import type { Account, SessionRow } from '../../domain/ports.ts';
import { BlobNotFoundError } from '../../domain/ports.ts';

export interface PendingCreate {
  account: Account;
  session: SessionRow;
  step: number;
}

export class SessionTusStore extends DataStore {
  readonly #uploads: Uploads;
  readonly #tus: TusUploads;
  readonly #lifeMs: number;
  /** What onUploadCreate admitted, by upload id, until create() consumes it. */
  readonly pending = new Map<string, PendingCreate>();

  constructor(uploads: Uploads, tus: TusUploads, sessionLifeMs: number) {
    super();
    this.#uploads = uploads;
    this.#tus = tus;
    this.#lifeMs = sessionLifeMs;
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
  }

  override async create(upload: Upload): Promise<Upload> {
    const admitted = this.pending.get(upload.id);
    this.pending.delete(upload.id);
    if (!admitted || upload.size === undefined) throw ERRORS.FILE_WRITE_ERROR;
    const row = await this.#tus.begin(admitted.account, {
      id: upload.id,
      session: admitted.session,
      step: admitted.step,
      size: upload.size,
      metadata: upload.metadata ?? {},
    });
    upload.creation_date = new Date(row.expiresAt - this.#lifeMs).toISOString();
    return upload;
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    try {
      return await this.#tus.append(id, stream, offset);
    } catch (err) {
      throw mapError(err);
    }
  }

  override async getUpload(id: string): Promise<Upload> {
    try {
      const { row, offset, metadata } = await this.#tus.state(id);
      return new Upload({
        id,
        size: row.size,
        offset,
        metadata,
        // creation + expiration = the end of the session's life
        creation_date: new Date(row.expiresAt - this.#lifeMs).toISOString(),
      });
    } catch (err) {
      throw mapError(err);
    }
  }

  override async remove(id: string): Promise<void> {
    try {
      await this.#tus.remove(id);
    } catch (err) {
      throw mapError(err);
    }
  }

  override async deleteExpired(): Promise<number> {
    return this.#uploads.expire();
  }

  override getExpiration(): number {
    return this.#lifeMs;
  }
}

function mapError(err: unknown): unknown {
  if (err instanceof BlobNotFoundError) return ERRORS.FILE_NOT_FOUND;
  if (hasCode(err, 'offset_mismatch')) return ERRORS.INVALID_OFFSET;
  return err;
}
