// The blob seam: every stored user byte goes through one of these. The embedded backend
// is encrypted files on local disk; an S3-compatible backend would sit beside it.
import type { Readable } from 'node:stream';

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

export interface BlobStore {
  /** Creates an empty object. Fails if it exists. */
  create(id: string): Promise<void>;
  /** Streams bytes onto the end of the object; resolves to the new size once durable. */
  append(id: string, source: ByteSource, opts?: AppendOptions): Promise<number>;
  /** Authenticated size of the object (its final frame is checked), never mid-append. */
  size(id: string): Promise<number>;
  exists(id: string): Promise<boolean>;
  /** Plaintext bytes [start, end) as a stream; an integrity failure errors the stream. */
  read(id: string, range?: { start?: number; end?: number }): Readable;
  /** Destroys the object: its data key first, then its bytes. */
  delete(id: string): Promise<boolean>;
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
