// Where the bits go, keyed by the locator key.
//
// The header's bits sit at keyed random sample indices, drawn one by one. The payload takes
// one keyed random sample in each of T equal strata of the remaining samples: the changes are
// spread evenly over the whole cover, and the cover is read in order, two passes with no
// index table. (A random permutation of all samples was 4x slower on 12 MP, in cache misses
// alone, and no harder to detect: `npm run bench -- stego`.)
import { createCipheriv } from 'node:crypto';

/** At most this share of a cover's samples is ever used. */
export const MAX_FILL = 0.9;

const HEADER_STREAM = 0xffffffff;
const ZEROS = Buffer.alloc(256 * 1024);
/** Positions are read in batches of this many. */
export const BATCH = ZEROS.length / 4;
const TWO_POW_MINUS_32 = 2 ** -32;

/** 32-bit words of an AES-256-CTR keystream; `stream` picks an independent sequence. */
class KeyStream {
  readonly #cipher;
  #buf = new Uint32Array(0);
  #at = 0;
  constructor(key: Buffer, stream: number) {
    const iv = Buffer.alloc(16);
    iv.writeUInt32BE(stream, 0);
    this.#cipher = createCipheriv('aes-256-ctr', key, iv);
  }
  next(): number {
    if (this.#at === this.#buf.length) {
      const bytes = this.#cipher.update(ZEROS);
      this.#buf = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
      this.#at = 0;
    }
    return this.#buf[this.#at++];
  }
}

/** `count` distinct keyed random indices in [0, n), in the order the header's bits use them. */
export function headerPositions(key: Buffer, n: number, count: number): Uint32Array {
  if (count > Math.floor(n * MAX_FILL)) throw new RangeError('more positions than the cover can spread');
  const ks = new KeyStream(key, HEADER_STREAM);
  const out = new Uint32Array(count);
  const seen = new Set<number>();
  const limit = Math.floor(0x100000000 / n) * n; // no modulo bias
  for (let i = 0; i < count; ) {
    const v = ks.next();
    if (v >= limit) continue;
    const x = v % n;
    if (seen.has(x)) continue;
    seen.add(x);
    out[i++] = x;
  }
  return out;
}

/**
 * The payload's samples: `count` strata of equal size over [0, n) less the `taken` indices,
 * one keyed random sample from each, in increasing order. `stream` gives each spread unit (a
 * video frame) its own choice. Read them in batches with take().
 */
export class Strata {
  readonly #cipher;
  readonly #taken: Uint32Array;
  readonly #count: number;
  readonly #q: number;
  readonly #rem: number;
  #left: number;
  #acc = 0;
  #start = 0;
  #skip = 0;

  constructor(key: Buffer, stream: number, n: number, count: number, taken: Uint32Array = new Uint32Array(0)) {
    const room = n - taken.length;
    if (count < 1 || count > room) throw new RangeError('more positions than the cover has');
    const iv = Buffer.alloc(16);
    iv.writeUInt32BE(stream, 0);
    this.#cipher = createCipheriv('aes-256-ctr', key, iv);
    this.#taken = Uint32Array.from(taken).sort();
    this.#count = count;
    this.#left = count;
    this.#q = Math.floor(room / count);
    this.#rem = room % count;
  }

  /** Fills `out` with the next positions; returns how many (0 when all were taken). */
  take(out: Uint32Array): number {
    const m = Math.min(out.length, this.#left);
    if (m === 0) return 0;
    const taken = this.#taken;
    const count = this.#count;
    const q = this.#q;
    const rem = this.#rem;
    let acc = this.#acc;
    let start = this.#start;
    let skip = this.#skip;
    // the r-th index not taken is r + skip, skip being the taken indices at or below it
    let nextTaken = skip < taken.length ? taken[skip] - skip : Infinity;
    if (q < 0xffff) {
      // short strata (the usual case): 16 random bits each, integer arithmetic only
      const bytes = this.#cipher.update(ZEROS.subarray(0, m * 2));
      const rnd = new Uint16Array(bytes.buffer, bytes.byteOffset, m);
      for (let i = 0; i < m; i++) {
        let len = q;
        acc += rem;
        if (acc >= count) {
          acc -= count;
          len++;
        }
        const r = start + ((len * rnd[i]) >>> 16);
        start += len;
        while (nextTaken <= r) nextTaken = ++skip < taken.length ? taken[skip] - skip : Infinity;
        out[i] = r + skip;
      }
    } else {
      const bytes = this.#cipher.update(ZEROS.subarray(0, m * 4));
      const rnd = new Uint32Array(bytes.buffer, bytes.byteOffset, m);
      for (let i = 0; i < m; i++) {
        let len = q;
        acc += rem;
        if (acc >= count) {
          acc -= count;
          len++;
        }
        const r = start + Math.floor(len * rnd[i] * TWO_POW_MINUS_32);
        start += len;
        while (nextTaken <= r) nextTaken = ++skip < taken.length ? taken[skip] - skip : Infinity;
        out[i] = r + skip;
      }
    }
    this.#acc = acc;
    this.#start = start;
    this.#skip = skip;
    this.#left -= m;
    return m;
  }
}
