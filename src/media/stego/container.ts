// The plaintext inside the encrypted stream: the secret files with their names, each
// deflated when that makes it smaller.
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw, deflateRawSync } from 'node:zlib';
import { readHead } from '../probe.ts';

export interface Secret {
  name: string;
  data: Uint8Array;
}

const VERSION = 1;
const FLAG_DEFLATE = 1;

/** Bytes a file adds besides its (possibly compressed) data. */
export function fileOverhead(name: string): number {
  return 2 + Buffer.byteLength(name, 'utf8') + 1 + 4 + 4;
}

export const CONTAINER_OVERHEAD = 1 + 2;

export function pack(secrets: Secret[]): Buffer {
  const parts: Buffer[] = [Buffer.from([VERSION]), u16(secrets.length)];
  for (const s of secrets) {
    const name = Buffer.from(s.name, 'utf8');
    const raw = Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength);
    const z = compressible(raw) ? deflateRawSync(raw, { level: DEFLATE_LEVEL }) : raw;
    const deflated = z !== raw && z.length < raw.length;
    const body = deflated ? z : raw;
    parts.push(u16(name.length), name, Buffer.from([deflated ? FLAG_DEFLATE : 0]), u32(raw.length), u32(body.length), body);
  }
  return Buffer.concat(parts);
}

const DEFLATE_LEVEL = 6;

/**
 * The length pack() gives these files, from files on disk, read as a stream and deflated off the
 * event loop (zlib on libuv's pool): what a start can learn of a hide's size before its job runs.
 */
export async function packedSize(files: { name: string; path: string }[]): Promise<number> {
  let total = CONTAINER_OVERHEAD;
  for (const f of files) {
    const { head, size } = await readHead(f.path, PROBE_BYTES);
    let body = size;
    if (size > 64) {
      if (compressible(head, size)) {
        let z = 0;
        const deflate = createDeflateRaw({ level: DEFLATE_LEVEL });
        deflate.on('data', (c: Buffer) => (z += c.length));
        await pipeline(createReadStream(f.path), deflate);
        body = Math.min(z, size);
      }
    }
    total += fileOverhead(f.name) + body;
  }
  return total;
}

/**
 * Whether deflating is worth trying: most secrets worth hiding (photos, videos, archives, PDFs)
 * are compressed already, and deflating 1 MB of them for nothing took 50 ms. A quick level-1
 * pass over the first 64 KiB decides.
 */
function compressible(raw: Buffer, size = raw.length): boolean {
  if (size <= 64) return false;
  const head = raw.subarray(0, PROBE_BYTES);
  return deflateRawSync(head, { level: 1 }).length < head.length * 0.97;
}

const PROBE_BYTES = 64 * 1024;

/** One hidden file as the container declares it; nothing inflated yet. */
export interface Entry {
  name: string;
  deflated: boolean;
  /** The size it declares once inflated: believed only as an upper bound (reveal-files.ts). */
  size: number;
  body: Buffer;
}

/**
 * Reads the container's table of files without inflating anything, so what they add up to can
 * be checked first. Throws a plain Error on a container that does not hold together.
 */
export function entries(buf: Buffer): Entry[] {
  let at = 0;
  const need = (n: number) => {
    if (at + n > buf.length) throw new Error('container truncated');
  };
  need(3);
  if (buf[0] !== VERSION) throw new Error('unknown container version');
  const count = buf.readUInt16BE(1);
  at = 3;
  const out: Entry[] = [];
  for (let i = 0; i < count; i++) {
    need(2);
    const nameLen = buf.readUInt16BE(at);
    at += 2;
    need(nameLen + 9);
    const name = buf.subarray(at, at + nameLen).toString('utf8');
    at += nameLen;
    const deflated = (buf[at++] & FLAG_DEFLATE) !== 0;
    const size = buf.readUInt32BE(at);
    const bodyLen = buf.readUInt32BE(at + 4);
    at += 8;
    need(bodyLen);
    if (!deflated && bodyLen !== size) throw new Error('container length mismatch');
    out.push({ name, deflated, size, body: buf.subarray(at, at + bodyLen) });
    at += bodyLen;
  }
  return out;
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
