// A reveal's hidden files, from the opened container into scratch, one file each. The container
// is authenticated (only the passphrase's holder can have made it), but its maker chose the
// sizes in it: 7 MB of upload can declare 2 × 1 GiB of deflated zeros. So the sizes it declares
// must add up to no more than the bound before anything is inflated; each file is then inflated
// as a stream, straight to its file, with a running count that stops at its declared size; and
// on any failure every file already written is removed.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';
import { MediaError, abortedError, isAborted } from '../errors.ts';
import { DEFAULT_LIMITS, type MediaLimits } from '../limits.ts';
import { entries, type Entry } from './container.ts';
import { NOTHING_FOUND } from './stream.ts';

export interface RevealedFile {
  path: string;
  name: string;
  size: number;
}

/** What one reveal may give back. */
export interface RevealBound {
  /** All files together, in bytes (OBSCURA_MAX_REVEAL_BYTES). */
  maxBytes: number;
  /**
   * The capacity of the file revealed from, in bytes. A hide refuses secrets whose size before
   * deflating is over the cover's capacity (the hide runner's check, and hideIn* for what gets
   * past it), so nothing hidden here is larger: this is the bound a bomb meets in an image,
   * whatever the setting. A video's capacity grows with its frames, and many still frames make
   * a small file of many GB of capacity: there the setting is what bounds it.
   */
  capacity: number;
  /** Files (OBSCURA_SESSION_MAX_FILES: a hide takes no more secrets). */
  maxFiles: number;
}

export function revealBound(limits: MediaLimits, capacity: number): RevealBound {
  return {
    maxBytes: limits.maxRevealBytes ?? DEFAULT_LIMITS.maxRevealBytes!,
    capacity,
    maxFiles: limits.maxRevealFiles ?? DEFAULT_LIMITS.maxRevealFiles!,
  };
}

/** The bytes a reveal of that bound may give back. */
export const revealLimit = (b: RevealBound) => Math.min(b.maxBytes, b.capacity);

/**
 * Secrets of these sizes (before deflating) could not be revealed again: the hide's refusal,
 * before anything is written.
 */
export function checkRevealable(sizes: number[], bound: RevealBound): void {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (sizes.length > bound.maxFiles) {
    throw new MediaError('limit_exceeded', `A hide takes at most ${bound.maxFiles} files (OBSCURA_SESSION_MAX_FILES); these are ${sizes.length}.`);
  }
  if (total > revealLimit(bound)) {
    throw new MediaError('limit_exceeded', `The secret does not fit: it is ${total} bytes and ${why(bound)}.`);
  }
}

/** Why the limit is what it is, in the words of the messages above and below. */
function why(b: RevealBound): string {
  return b.capacity < b.maxBytes
    ? `this file holds at most ${b.capacity} bytes (its capacity; OBSCURA_MAX_REVEAL_BYTES allows ${b.maxBytes})`
    : `a reveal gives back at most ${b.maxBytes} bytes (OBSCURA_MAX_REVEAL_BYTES)`;
}

const nothingFound = () => new MediaError('nothing_found', NOTHING_FOUND);

/** A reveal's failures that are not "nothing found": an abort, and memory (the file's size, not the passphrase's). */
export const keptThrough = (err: unknown): boolean => isAborted(err) || (err as { code?: unknown } | null)?.code === 'too_much_memory';

/** A file that inflates to other than its declared size: the container does not hold together. */
class Malformed extends Error {}

/**
 * Writes every hidden file of `container` into outDir as revealed-<i> (mode 0600). Rejects with
 * 'reveal_too_large' when the declared sizes are over the bound (nothing written), with
 * 'nothing_found' when the container does not hold together, and 'aborted' on the signal; in
 * every case no revealed file is left behind.
 */
export async function writeSecrets(container: Buffer, outDir: string, bound: RevealBound, signal?: AbortSignal): Promise<RevealedFile[]> {
  let table: Entry[];
  try {
    table = entries(container);
  } catch {
    throw nothingFound();
  }
  const total = table.reduce((n, e) => n + e.size, 0);
  if (table.length > bound.maxFiles) {
    throw new MediaError('reveal_too_large', `The file holds ${table.length} hidden files; a reveal gives back at most ${bound.maxFiles} (OBSCURA_SESSION_MAX_FILES, the most a hide takes). Nothing was revealed.`);
  }
  if (total > revealLimit(bound)) {
    throw new MediaError('reveal_too_large', `The hidden files come to ${total} bytes, and ${why(bound)}. Nothing was revealed.`);
  }
  const out: RevealedFile[] = [];
  try {
    for (const [i, e] of table.entries()) {
      const file = path.join(outDir, `revealed-${i}`);
      out.push({ path: file, name: e.name, size: e.size });
      await writeEntry(e, file, signal);
    }
    return out;
  } catch (err) {
    await Promise.all(out.map((f) => rm(f.path, { force: true })));
    if (signal?.aborted) throw abortedError();
    // a broken deflate stream (zlib's Z_* codes) or a size that does not match
    if (err instanceof Malformed || /^Z_/.test(String((err as { code?: unknown }).code))) throw nothingFound();
    throw err;
  }
}

async function writeEntry(e: Entry, file: string, signal?: AbortSignal): Promise<void> {
  const sink = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  if (!e.deflated) {
    await pipeline(Readable.from([e.body]), sink, { signal }); // its size was checked with the table
    return;
  }
  let n = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _enc, done) {
      n += chunk.length;
      // past its declared size: stop now, not at the end of whatever the stream would give
      done(n > e.size ? new Malformed('more than declared') : null, chunk);
    },
  });
  await pipeline(Readable.from([e.body]), createInflateRaw({ chunkSize: INFLATE_CHUNK }), counted, sink, { signal });
  if (n !== e.size) throw new Malformed('less than declared');
}

/** Inflated bytes per step: what the inflate holds at once, however large the file. */
const INFLATE_CHUNK = 256 * 1024;
