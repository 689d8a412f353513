// Where the bits go, keyed by the locator key.
//
// The header's bits sit at keyed random sample indices among the first HEADER_REGION samples
// (the picture's first rows), drawn one by one: reveal reads them from a partial decode and
// starts the slow key derivation while the rest of the picture decodes. The payload takes
// one keyed random sample in each of T equal strata of the remaining samples: the changes are
// spread evenly over the whole cover, and the cover is read in order, in one pass with no
// index table. (A random permutation of all samples was 4x slower on 12 MP, in cache misses
// alone, and no harder to detect: `npm run bench -- stego`.)
import { createCipheriv, type Cipheriv } from 'node:crypto';

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

/**
 * The samples the header may use: 2^19, a thousand per header bit, so its changes stay as
 * sparse as anywhere else (about 1 in 2000 samples), yet they fit in 44 rows of a 12 MP photo.
 */
export const HEADER_REGION = 1 << 19;

/**
 * `count` distinct keyed random indices in [0, min(n, HEADER_REGION)), in the order the header's
 * bits use them. Any `n` of at least HEADER_REGION gives the same indices.
 */
export function headerPositions(key: Buffer, n: number, count: number): Uint32Array {
  n = Math.min(n, HEADER_REGION);
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
 * One of the two halves of a picture's samples a stream may live in (hide with a decoy): lane
 * `offset` of `stride` is the samples i with i % stride === offset, addressed i / stride. A
 * stream's header and payload are placed in its lane's own addresses exactly as in a whole
 * picture, so each lane is a picture of its own to the code that walks it.
 */
export interface Lane {
  stride: number;
  offset: number;
}

/** The whole picture: every sample, addressed as it is. */
export const WHOLE: Lane = { stride: 1, offset: 0 };

/** Samples a lane of a picture of `n` samples holds (each lane the same count, so neither is told apart by it). */
export const laneSize = (n: number, lane: Lane) => (lane.stride === 1 ? n : Math.floor(n / lane.stride));

/** A lane's address as an index into the picture's samples. */
export const inLane = (i: number, lane: Lane) => i * lane.stride + lane.offset;

/**
 * The payload's samples: `count` strata of equal size over [0, n) less the `taken` indices,
 * one keyed random sample from each, in increasing order. `stream` gives each spread unit (a
 * video frame) its own choice. blocks() walks them once, a code block at a time. Indices are
 * the lane's addresses (n, taken); what blocks() reads and gives back are the picture's own.
 */
export class Strata {
  readonly #key: Buffer;
  readonly #stream: number;
  readonly #taken: Uint32Array;
  readonly #count: number;
  readonly #q: number;
  readonly #rem: number;
  readonly #lane: Lane;

  constructor(key: Buffer, stream: number, n: number, count: number, taken: Uint32Array = new Uint32Array(0), lane: Lane = WHOLE) {
    const room = n - taken.length;
    if (count < 1 || count > room) throw new RangeError('more positions than the cover has');
    this.#key = key;
    this.#stream = stream;
    this.#taken = Uint32Array.from(taken).sort();
    this.#count = count;
    this.#q = Math.floor(room / count);
    this.#rem = room % count;
    this.#lane = lane;
  }

  /** No sample (of the picture) before this index is used by block `block` (of `nb` positions) or a later one. */
  firstIndex(block: number, nb: number): number {
    return inLane(this.#stratumStart(block * nb), this.#lane);
  }

  /** Every sample (of the picture) that blocks before `block` (of `nb` positions) use lies below this index. */
  endIndex(block: number, nb: number): number {
    // a taken index shifts those after it by one
    return (this.#stratumStart(block * nb) + this.#taken.length) * this.#lane.stride;
  }

  /** Where stratum i starts among the samples not taken: i q + floor(i rem / count). */
  #stratumStart(i: number): number {
    return i * this.#q + Number((BigInt(i) * BigInt(this.#rem)) / BigInt(this.#count)); // past 2^53 on big covers
  }

  /**
   * Walks the positions in blocks of `nb` (which must divide the count), in order, from block
   * `from` to before block `to` (all of them by default; a range lets two threads share a
   * walk). For each block, `each` gets its syndrome over `samples` (the XOR of the 1-based
   * places in the block whose sample has its low bit set) and the block's sample indices.
   */
  blocks(samples: Uint8Array, nb: number, each: (syndrome: number, pos: Uint32Array) => void, from = 0, to = this.#count / nb): void {
    const count = this.#count;
    if (count % nb !== 0) throw new RangeError('the positions do not split into whole blocks');
    if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= count / nb)) throw new RangeError('no such blocks');
    const taken = this.#taken;
    const q = this.#q;
    const rem = this.#rem;
    const { stride, offset } = this.#lane;
    // one element kind for every caller (Buffer or Uint8Array), so the loads stay monomorphic
    const d = new Uint8Array(samples.buffer, samples.byteOffset, samples.length);
    // Short strata (the usual case) take 16 random bits each, long ones 32.
    const wide = q >= 0xffff;
    const perBatch = Math.max(1, Math.floor(BATCH / nb));
    const pos = new Uint32Array(nb);
    const back = rem - count; // acc + back < 0 when a stratum does not wrap acc
    // the state after the strata before `from`: stratum i starts at i q + floor(i rem / count)
    const first = from * nb;
    let acc = Number((BigInt(first) * BigInt(rem)) % BigInt(count)); // past 2^53 on big covers
    let start = this.#stratumStart(first);
    // the r-th index not taken is r + skip, skip being the taken indices at or below it
    let skip = 0;
    while (skip < taken.length && taken[skip] - skip < start) skip++;
    let nextTaken = skip < taken.length ? taken[skip] - skip : Infinity;
    const cipher = keyStreamAt(this.#key, this.#stream, first * (wide ? 4 : 2));
    for (let left = to - from; left > 0; ) {
      const batch = Math.min(perBatch, left);
      left -= batch;
      const bytes: Buffer = cipher.update(ZEROS.subarray(0, batch * nb * (wide ? 4 : 2)));
      const rnd16 = new Uint16Array(bytes.buffer, bytes.byteOffset, (batch * nb * (wide ? 4 : 2)) >>> 1);
      const rnd32 = wide ? new Uint32Array(bytes.buffer, bytes.byteOffset, batch * nb) : undefined;
      let k = 0;
      for (let b = 0; b < batch; b++) {
        let s = 0;
        if (!wide && start + nb * (q + 1) <= nextTaken) {
          // No taken index can fall in this block, so the hot loop skips that check (it cost
          // as much as the rest of the loop), and `len` is branch-free (acc >= count is a coin
          // toss that a branch would mispredict). acc's update, which each stratum waits for,
          // is four operations long.
          for (let j = 1; j <= nb; j++, k++) {
            const t = acc + back;
            const short = t >> 31; // -1: acc + rem < count, no wrap, and the stratum is q long
            acc = t + (count & short);
            const len = q + 1 + short;
            const i = (start + ((len * rnd16[k]) >>> 16) + skip) * stride + offset;
            start += len;
            pos[j - 1] = i;
            s ^= j & -(d[i] & 1);
          }
        } else {
          for (let j = 1; j <= nb; j++, k++) {
            let len = q;
            acc += rem;
            if (acc >= count) {
              acc -= count;
              len++;
            }
            const r = start + (rnd32 ? Math.floor(len * rnd32[k] * TWO_POW_MINUS_32) : (len * rnd16[k]) >>> 16);
            start += len;
            while (nextTaken <= r) nextTaken = ++skip < taken.length ? taken[skip] - skip : Infinity;
            const i = (r + skip) * stride + offset;
            pos[j - 1] = i;
            s ^= j & -(d[i] & 1);
          }
        }
        each(s, pos);
      }
    }
  }
}

/** AES-256-CTR keystream `stream`, from byte `offset` on (CTR seeks by adding to its counter). */
function keyStreamAt(key: Buffer, stream: number, offset: number): Cipheriv {
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(stream, 0);
  iv.writeBigUInt64BE(BigInt(Math.floor(offset / 16)), 8);
  const cipher = createCipheriv('aes-256-ctr', key, iv);
  cipher.update(ZEROS.subarray(0, offset % 16));
  return cipher;
}
