// The plaintext inside the encrypted stream: the secret files with their names, each
// deflated when that makes it smaller.
import { deflateRawSync, inflateRawSync } from 'node:zlib';

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
    const z = raw.length > 64 ? deflateRawSync(raw, { level: 9 }) : raw;
    const deflated = z !== raw && z.length < raw.length;
    const body = deflated ? z : raw;
    parts.push(u16(name.length), name, Buffer.from([deflated ? FLAG_DEFLATE : 0]), u32(raw.length), u32(body.length), body);
  }
  return Buffer.concat(parts);
}

export function unpack(buf: Buffer): Secret[] {
  let at = 0;
  const need = (n: number) => {
    if (at + n > buf.length) throw new Error('container truncated');
  };
  need(3);
  if (buf[0] !== VERSION) throw new Error('unknown container version');
  const count = buf.readUInt16BE(1);
  at = 3;
  const out: Secret[] = [];
  for (let i = 0; i < count; i++) {
    need(2);
    const nameLen = buf.readUInt16BE(at);
    at += 2;
    need(nameLen + 9);
    const name = buf.subarray(at, at + nameLen).toString('utf8');
    at += nameLen;
    const flags = buf[at++];
    const rawLen = buf.readUInt32BE(at);
    const bodyLen = buf.readUInt32BE(at + 4);
    at += 8;
    need(bodyLen);
    const body = buf.subarray(at, at + bodyLen);
    at += bodyLen;
    const data = flags & FLAG_DEFLATE ? inflateRawSync(body, { maxOutputLength: rawLen }) : Buffer.from(body);
    if (data.length !== rawLen) throw new Error('container length mismatch');
    out.push({ name, data });
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
