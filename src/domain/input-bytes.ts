// An upload's bytes decrypted once into memory, for work a worker does on bytes rather than on
// a file (sharp decodes from memory): the buffer owns its whole ArrayBuffer, so it is moved to
// the worker (RunOptions.transfer), not copied, and no scratch file is written and read back.
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { UploadRow } from './ports.ts';
import type { Uploads } from './uploads.ts';

/**
 * Above this an input always goes to a scratch file, even one sharp could decode from memory:
 * the same memory either way (scratch is memory-backed), but no single buffer that large.
 */
export const IN_MEMORY_MAX = 1024 * 1024 * 1024;
/** Bytes the decision between memory and file looks at: what sniff() reads. */
const HEAD = 4096;

/** Bytes [start, end) of an upload (end past its size: up to its end) in one buffer of their own. */
export async function toMemory(uploads: Uploads, row: UploadRow, range: { start: number; end: number }): Promise<Buffer<ArrayBuffer>> {
  const length = Math.max(0, Math.min(range.end, row.size) - range.start);
  return fill(Buffer.allocUnsafeSlow(length), uploads.read(row, { start: range.start, end: range.start + length })[Symbol.asyncIterator](), []);
}

/**
 * Decrypts an upload once: into memory when `inMemory` says so from its first bytes, else into
 * `file` (a scratch file only this process can read). Answers the buffer, or the file's path.
 */
export async function readInput(uploads: Uploads, row: UploadRow, file: string, inMemory: (head: Buffer) => boolean): Promise<Buffer<ArrayBuffer> | string> {
  const chunks = uploads.read(row)[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first: Buffer[] = [];
  try {
    let n = 0;
    while (n < HEAD) {
      const r = await chunks.next();
      if (r.done) break;
      first.push(r.value);
      n += r.value.length;
    }
    const head = first.length === 1 ? first[0] : Buffer.concat(first);
    if (row.size <= IN_MEMORY_MAX && inMemory(head.subarray(0, HEAD))) return await fill(Buffer.allocUnsafeSlow(row.size), chunks, first);
    await pipeline(rest(first, chunks), createWriteStream(file, { mode: 0o600 }));
    return file;
  } finally {
    await chunks.return?.(); // a stream left early (a failure) is closed
  }
}

/** Fills `into` with `first`, then the rest of `chunks`: exactly, or it throws (the stored bytes are not the declared size). */
async function fill(into: Buffer<ArrayBuffer>, chunks: AsyncIterator<Buffer>, first: Buffer[]): Promise<Buffer<ArrayBuffer>> {
  let at = 0;
  const put = (c: Buffer) => {
    if (at + c.length > into.length) throw new Error('the stored upload is longer than its declared size');
    c.copy(into, at);
    at += c.length;
  };
  first.forEach(put);
  for (let r = await chunks.next(); !r.done; r = await chunks.next()) put(r.value);
  if (at !== into.length) throw new Error('the stored upload is shorter than its declared size');
  return into;
}

async function* rest(first: Buffer[], chunks: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield* first;
  for (let r = await chunks.next(); !r.done; r = await chunks.next()) yield r.value;
}
