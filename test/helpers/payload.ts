import { createHash, randomBytes } from 'node:crypto';

/** Every file the tests upload carries this; it must never be found on disk. */
export const MARKER = 'OBSCURA-TEST-PLAINTEXT-MARKER-c0ffee';

/** size bytes of random data with the marker every 4 KiB. */
export function payload(size: number): Buffer {
  const b = randomBytes(size);
  const m = Buffer.from(MARKER);
  for (let at = 0; at + m.length <= size; at += 4096) m.copy(b, at);
  return b;
}

export const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');
