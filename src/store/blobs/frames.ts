// The on-disk format of an encrypted object:
//   header: version (1 byte) | 3 zero bytes | frame size (u32 BE)
//   frames: nonce (12) | AES-256-GCM ciphertext | tag (16), every frame but the last full.
// Each frame's associated data binds the format version, the object id, the frame index
// and a final-frame flag, so a flipped byte, a reordered frame and a dropped tail all fail
// authentication. An empty object is one empty final frame.
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { IntegrityError } from '../master-key.ts';

export const FORMAT_VERSION = 1;
export const HEADER_BYTES = 8;
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
export const FRAME_OVERHEAD = NONCE_BYTES + TAG_BYTES;

export function header(frameSize: number): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  h[0] = FORMAT_VERSION;
  h.writeUInt32BE(frameSize, 4);
  return h;
}

export function parseHeader(h: Buffer): { frameSize: number } {
  if (h.length < HEADER_BYTES || h[0] !== FORMAT_VERSION) throw new IntegrityError('unknown object format');
  const frameSize = h.readUInt32BE(4);
  if (frameSize < 16 || frameSize > 16 * 1024 * 1024) throw new IntegrityError('implausible frame size');
  return { frameSize };
}

export class FrameCodec {
  // a key object once, not the raw key per frame: importing it each time cost a quarter of sealing
  readonly #key: KeyObject;
  readonly #idBytes: Buffer;
  readonly #context: Buffer;
  readonly frameSize: number;

  /**
   * `context` (optional) is appended to every frame's associated data: a backend that splits an
   * object into pieces binds where each piece belongs (see s3-store.ts). Without it the
   * associated data is exactly the file format's.
   */
  constructor(dataKey: Buffer, objectId: string, frameSize: number, context?: Uint8Array) {
    this.#key = createSecretKey(dataKey);
    this.#idBytes = Buffer.from(objectId, 'utf8');
    this.#context = context ? Buffer.from(context) : Buffer.alloc(0);
    this.frameSize = frameSize;
  }

  get stride(): number {
    return this.frameSize + FRAME_OVERHEAD;
  }

  /** Byte position of frame `index` in the file. */
  offsetOf(index: number): number {
    return HEADER_BYTES + index * this.stride;
  }

  /** Plaintext size and frame count implied by a file length; throws when no frame layout fits. */
  layout(fileLength: number): { frames: number; size: number; lastLength: number } {
    const body = fileLength - HEADER_BYTES;
    if (body < FRAME_OVERHEAD) throw new IntegrityError('object is truncated');
    const frames = Math.ceil(body / this.stride);
    const lastCipher = body - (frames - 1) * this.stride;
    if (lastCipher < FRAME_OVERHEAD) throw new IntegrityError('object is truncated mid-frame');
    const lastLength = lastCipher - FRAME_OVERHEAD;
    return { frames, size: (frames - 1) * this.frameSize + lastLength, lastLength };
  }

  #aad(index: number, final: boolean): Buffer {
    const base = 1 + 2 + this.#idBytes.length + 8 + 1;
    const aad = Buffer.alloc(base + this.#context.length);
    aad[0] = FORMAT_VERSION;
    aad.writeUInt16BE(this.#idBytes.length, 1);
    this.#idBytes.copy(aad, 3);
    aad.writeBigUInt64BE(BigInt(index), 3 + this.#idBytes.length);
    aad[base - 1] = final ? 1 : 0;
    this.#context.copy(aad, base);
    return aad;
  }

  /** The sealed frame as its three parts (nonce, ciphertext, tag), ready for writev without a copy. */
  sealParts(plain: Uint8Array, index: number, final: boolean): [Buffer, Buffer, Buffer] {
    if (plain.length > this.frameSize) throw new Error('frame too large');
    const nonce = randomBytes(NONCE_BYTES);
    const c = createCipheriv('aes-256-gcm', this.#key, nonce);
    c.setAAD(this.#aad(index, final));
    const body = c.update(plain);
    c.final();
    return [nonce, body, c.getAuthTag()];
  }

  seal(plain: Uint8Array, index: number, final: boolean): Buffer {
    return Buffer.concat(this.sealParts(plain, index, final));
  }

  open(frame: Uint8Array, index: number, final: boolean): Buffer {
    if (frame.length < FRAME_OVERHEAD) throw new IntegrityError(`frame ${index} is truncated`);
    const buf = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
    const d = createDecipheriv('aes-256-gcm', this.#key, buf.subarray(0, NONCE_BYTES));
    d.setAAD(this.#aad(index, final));
    d.setAuthTag(buf.subarray(buf.length - TAG_BYTES));
    try {
      const out = d.update(buf.subarray(NONCE_BYTES, buf.length - TAG_BYTES));
      d.final();
      return out;
    } catch {
      throw new IntegrityError(`frame ${index} failed authentication`);
    }
  }
}
