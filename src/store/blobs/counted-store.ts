// Counts the blob store's own failures (obscura_blob_store_errors_total) around whichever store
// is in use. What the caller caused is not the store failing and is not counted: an offset or
// size that does not match, an object that is not there, a body that broke off on its way in,
// a download the client left.
import type { Readable } from 'node:stream';
import { BlobNotFoundError, DuplicateError, OffsetMismatchError, SizeLimitError, type BlobStore, type ByteSource } from '../../domain/ports.ts';
import type { BlobOperation, Metrics } from '../../metrics.ts';

const CALLERS = [BlobNotFoundError, DuplicateError, OffsetMismatchError, SizeLimitError];
const GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'ABORT_ERR', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_UNABLE_TO_PIPE']);

function storeFault(err: unknown): boolean {
  if (CALLERS.some((c) => err instanceof c)) return false;
  const e = err as { code?: string; name?: string } | null;
  return !(e && (GONE.has(e.code ?? '') || e.name === 'AbortError'));
}

export function countedBlobStore(store: BlobStore, metrics: Metrics): BlobStore {
  const counted = <T>(op: BlobOperation, p: Promise<T>, source?: ByteSource): Promise<T> =>
    p.catch((err: unknown) => {
      // a request body that failed is the client's doing, whatever error the store saw
      const sourceFailed = !!source && !Array.isArray(source) && !!(source as Readable).errored;
      if (!sourceFailed && storeFault(err)) metrics.blobError(op);
      throw err;
    });
  const wrapped: BlobStore = {
    create: (id) => counted('create', store.create(id)),
    append: (id, source, opts) => counted('append', store.append(id, source, opts), source),
    size: (id) => counted('size', store.size(id)),
    exists: (id) => counted('exists', store.exists(id)),
    read: (id, range) => {
      const stream = store.read(id, range);
      // an integrity failure or a lost object errors the stream; prependListener: counted even if the reader's own handler throws
      stream.prependListener('error', (err) => {
        if (storeFault(err)) metrics.blobError('read');
      });
      return stream;
    },
    delete: (id) => counted('delete', store.delete(id)),
  };
  if (store.sweep) wrapped.sweep = (before) => counted('sweep', store.sweep!(before));
  return wrapped;
}
