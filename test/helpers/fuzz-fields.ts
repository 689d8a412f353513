// Where a real file keeps its length, size and dimension fields, so the fuzzer can set them to
// extremes: a parser trusting a declared length is where allocations explode and loops stall.
// Each walker is lenient (it stops where the file stops making sense) and bounded.
import type { Field, Seed } from './fuzz.ts';

const MAX_FIELDS = 400;

function png(b: Buffer): Field[] {
  const out: Field[] = [{ at: 16, width: 4 }, { at: 20, width: 4 }]; // IHDR width, height
  for (let o = 8; o + 12 <= b.length && out.length < MAX_FIELDS; o += 12 + b.readUInt32BE(o)) out.push({ at: o, width: 4 });
  return out;
}

function jpeg(b: Buffer): Field[] {
  const out: Field[] = [];
  let o = 2;
  while (o + 4 <= b.length && b[o] === 0xff && out.length < MAX_FIELDS) {
    const code = b[o + 1];
    if (code === 0xd9) break;
    out.push({ at: o + 2, width: 2 });
    if (code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc) out.push({ at: o + 5, width: 2 }, { at: o + 7, width: 2 }); // height, width
    if (code === 0xda) break; // entropy-coded data follows
    o += 2 + b.readUInt16BE(o + 2);
  }
  return out;
}

const BOX_PARENTS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf', 'mvex', 'udta', 'iprp', 'ipco', 'moof', 'traf']);

function iso(b: Buffer, start = 0, end = b.length, out: Field[] = []): Field[] {
  for (let o = start; o + 8 <= end && out.length < MAX_FIELDS; ) {
    const size = b.readUInt32BE(o);
    const type = b.toString('latin1', o + 4, o + 8);
    out.push({ at: o, width: 4 });
    if (size === 1) out.push({ at: o + 8, width: 8 });
    if (size < 8 || o + size > end) break;
    if (BOX_PARENTS.has(type)) iso(b, o + 8, o + size, out);
    else if (type === 'meta') iso(b, o + 12, o + size, out); // a full box: version and flags first
    else if (type === 'stsd') iso(b, o + 16, o + size, out);
    else if (type === 'tkhd' || type === 'mvhd' || type === 'mdhd') out.push({ at: o + 8, width: 1 }); // version: 0 or 1 decides the layout
    o += size;
  }
  return out;
}

const EBML_MASTERS = new Set([0x1a45dfa3, 0x18538067, 0x114d9b74, 0x4dbb, 0x1549a966, 0x1654ae6b, 0xae, 0xe0, 0xe1, 0x1254c367, 0x7373, 0x63c0, 0x67c8, 0x1043a770, 0x45b9, 0xb6, 0x1941a469, 0x61a7, 0x1c53bb6b, 0xbb, 0x1f43b675]);

function vintLength(first: number): number {
  let len = 1;
  while (len <= 8 && !(first & (0x80 >> (len - 1)))) len++;
  return len;
}

function ebml(b: Buffer, start = 0, end = b.length, out: Field[] = []): Field[] {
  for (let o = start; o < end && out.length < MAX_FIELDS; ) {
    const idLen = vintLength(b[o]);
    if (idLen > 4 || o + idLen >= end) break;
    const id = b.readUIntBE(o, idLen);
    const sizeLen = vintLength(b[o + idLen]);
    if (sizeLen > 8 || o + idLen + sizeLen > end) break;
    out.push({ at: o + idLen, width: sizeLen, vint: true });
    let size = b[o + idLen] & (0xff >> sizeLen);
    for (let i = 1; i < sizeLen; i++) size = size * 256 + b[o + idLen + i];
    const data = o + idLen + sizeLen;
    if (size === 2 ** (7 * sizeLen) - 1) size = end - data; // unknown size: to the end
    if (EBML_MASTERS.has(id)) ebml(b, data, Math.min(end, data + size), out);
    o = data + size;
  }
  return out;
}

function riff(b: Buffer): Field[] {
  const out: Field[] = [{ at: 4, width: 4, le: true }];
  for (let o = 12; o + 8 <= b.length && out.length < MAX_FIELDS; o += 8 + b.readUInt32LE(o + 4) + (b.readUInt32LE(o + 4) & 1)) out.push({ at: o + 4, width: 4, le: true });
  return out;
}

const BMP_FIELDS: Field[] = [2, 10, 14, 18, 22, 30, 34].map((at) => ({ at, width: 4, le: true })).concat([26, 28].map((at) => ({ at, width: 2, le: true })));
const GIF_FIELDS: Field[] = [6, 8].map((at) => ({ at, width: 2, le: true }));

function tiff(b: Buffer): Field[] {
  const le = b[0] === 0x49;
  const out: Field[] = [{ at: 4, width: 4, le }];
  const ifd = le ? b.readUInt32LE(4) : b.readUInt32BE(4);
  if (ifd + 2 > b.length) return out;
  out.push({ at: ifd, width: 2, le });
  const count = le ? b.readUInt16LE(ifd) : b.readUInt16BE(ifd);
  for (let i = 0; i < count && ifd + 2 + 12 * i + 12 <= b.length && out.length < MAX_FIELDS; i++) {
    const e = ifd + 2 + 12 * i;
    out.push({ at: e + 4, width: 4, le }, { at: e + 8, width: 4, le }); // count, value or offset
  }
  return out;
}

/** The fields of a file, found by its magic bytes; none for a format not listed here. */
export function fieldsOf(b: Buffer): Field[] {
  const magic = b.toString('latin1', 0, 4);
  try {
    if (b[0] === 0x89 && magic.slice(1) === 'PNG') return png(b);
    if (b[0] === 0xff && b[1] === 0xd8) return jpeg(b);
    if (b.toString('latin1', 4, 8) === 'ftyp' || b.toString('latin1', 4, 8) === 'moov') return iso(b);
    if (b.readUInt32BE(0) === 0x1a45dfa3) return ebml(b);
    if (magic === 'RIFF') return riff(b);
    if (magic.startsWith('BM')) return BMP_FIELDS;
    if (magic.startsWith('GIF')) return GIF_FIELDS;
    if (magic === 'II*\0' || magic === 'MM\0*') return tiff(b);
  } catch {
    // a walker read past the end of a short file: the fields found so far are lost, none is fine
  }
  return [];
}

export function seed(name: string, bytes: Buffer): Seed {
  return { name, bytes, fields: fieldsOf(bytes) };
}
