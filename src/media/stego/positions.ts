// Where the bits go: a keyed pseudo-random sequence of distinct sample indices, from an
// AES-256-CTR keystream, drawn with a "used" bitmap (memory: N bits).
import { createCipheriv } from 'node:crypto';

const ZEROS = Buffer.alloc(256 * 1024);

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
    if (this.#at >= this.#buf.length) {
      const bytes = this.#cipher.update(ZEROS);
      this.#buf = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
      this.#at = 0;
    }
    return this.#buf[this.#at++];
  }
  /** Uniform in [0, n) without modulo bias. */
  below(n: number): number {
    const limit = Math.floor(0x100000000 / n) * n;
    for (;;) {
      const v = this.next();
      if (v < limit) return v % n;
    }
  }
}

/**
 * The first `count` of a keyed random sequence of distinct indices in [0, n). The sequence
 * does not depend on `count`, so a reader can draw the header's positions first and the rest
 * later. Draws reject used indices (a bitmap of n bits), so callers keep count <= 0.9 n.
 */
export function positions(key: Buffer, stream: number, n: number, count: number): Uint32Array {
  if (count > Math.floor(n * MAX_FILL)) throw new RangeError('more positions than the cover can spread');
  const ks = new KeyStream(key, stream);
  const out = new Uint32Array(count);
  const used = new Uint8Array(Math.ceil(n / 8));
  for (let i = 0; i < count; ) {
    const x = ks.below(n);
    const bit = 1 << (x & 7);
    if (used[x >>> 3] & bit) continue;
    used[x >>> 3] |= bit;
    out[i++] = x;
  }
  return out;
}

/** At most this share of a cover's samples is ever used. */
export const MAX_FILL = 0.9;
