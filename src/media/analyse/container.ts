// Where a still image's own data ends, and which of its chunks are unusual: bytes past the end
// marker, or in private chunks, are the classic places to hide a file. Pure byte walking,
// bounded by the file's size; a file it cannot walk gives undefined, never a throw.
import { parseJpeg } from './jpeg-structure.ts';

export interface Chunk {
  /** PNG chunk type, RIFF FourCC, or JPEG "APPn:<id>" / "COM". */
  type: string;
  offset: number;
  size: number;
}

export interface Layout {
  /** Offset just past the image's final marker (IEND, EOI, trailer, RIFF size). */
  end: number;
  chunks: Chunk[];
}

export function pngLayout(b: Buffer): Layout | undefined {
  if (b.length < 8 || b.readUInt32BE(0) !== 0x89504e47) return undefined;
  const chunks: Chunk[] = [];
  let at = 8;
  while (at + 12 <= b.length) {
    const len = b.readUInt32BE(at);
    const type = b.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type) || at + 12 + len > b.length) return undefined;
    chunks.push({ type, offset: at, size: len });
    at += 12 + len;
    if (type === 'IEND') return { end: at, chunks };
  }
  return undefined;
}

export function gifLayout(b: Buffer): Layout | undefined {
  if (b.length < 13 || b.toString('latin1', 0, 3) !== 'GIF') return undefined;
  let at = 13;
  const flags = b[10];
  if (flags & 0x80) at += 3 * (2 << (flags & 7)); // global colour table
  const chunks: Chunk[] = [];
  const subBlocks = () => {
    while (at < b.length) {
      const n = b[at++];
      if (n === 0) return true;
      at += n;
    }
    return false;
  };
  while (at < b.length) {
    const intro = b[at];
    if (intro === 0x3b) return { end: at + 1, chunks };
    if (intro === 0x21) {
      const label = b[at + 1];
      const start = at;
      at += 2;
      if (label === 0xff && b[at] === 11) chunks.push({ type: `APP:${b.toString('latin1', at + 1, at + 12)}`, offset: start, size: 0 });
      if (label === 0xfe) chunks.push({ type: 'COM', offset: start, size: 0 });
      if (!subBlocks()) return undefined;
    } else if (intro === 0x2c) {
      if (at + 10 > b.length) return undefined;
      const f = b[at + 9];
      at += 10;
      if (f & 0x80) at += 3 * (2 << (f & 7));
      at += 1; // LZW minimum code size
      if (!subBlocks()) return undefined;
    } else return undefined;
  }
  return undefined;
}

export function riffLayout(b: Buffer): Layout | undefined {
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF') return undefined;
  const end = 8 + b.readUInt32LE(4);
  if (end > b.length) return undefined;
  const chunks: Chunk[] = [];
  let at = 12;
  while (at + 8 <= end) {
    const size = b.readUInt32LE(at + 4);
    chunks.push({ type: b.toString('latin1', at, at + 4), offset: at, size });
    at += 8 + size + (size & 1);
  }
  return { end, chunks };
}

export function bmpLayout(b: Buffer): Layout | undefined {
  if (b.length < 14 || b.toString('latin1', 0, 2) !== 'BM') return undefined;
  const end = b.readUInt32LE(2);
  return end <= b.length && end >= 14 ? { end, chunks: [] } : undefined;
}

/** JPEG: from the marker parser shared with the fingerprint detector. */
export function jpegLayout(b: Buffer): Layout | undefined {
  const j = parseJpeg(b);
  if (!j || j.end === null) return undefined;
  const chunks: Chunk[] = j.appSegments.map((a) => ({ type: `APP${a.n}:${a.id.replace(/[^\x20-\x7e]/g, '?')}`, offset: a.offset, size: a.length }));
  for (const c of j.comments) chunks.push({ type: 'COM', offset: 0, size: c.length });
  return { end: j.end, chunks };
}

export function layoutOf(format: string, b: Buffer): Layout | undefined {
  switch (format) {
    case 'png':
      return pngLayout(b);
    case 'jpeg':
      return jpegLayout(b);
    case 'gif':
      return gifLayout(b);
    case 'webp':
      return riffLayout(b);
    case 'bmp':
      return bmpLayout(b);
    default:
      return undefined;
  }
}

/** File types worth finding inside or after an image: archives and documents. */
const SIGNATURES: { name: string; bytes: Buffer; valid?: (b: Buffer, at: number) => boolean }[] = [
  { name: 'ZIP archive', bytes: Buffer.from('PK\x03\x04', 'latin1'), valid: (b, at) => at + 30 <= b.length && b.readUInt16LE(at + 4) <= 63 && b.readUInt16LE(at + 26) > 0 && b.readUInt16LE(at + 26) < 1024 },
  { name: 'ZIP archive (central directory)', bytes: Buffer.from('PK\x05\x06', 'latin1'), valid: (b, at) => at + 22 <= b.length },
  { name: 'RAR archive', bytes: Buffer.from('Rar!\x1a\x07', 'latin1') },
  { name: '7-Zip archive', bytes: Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]) },
  { name: 'PDF document', bytes: Buffer.from('%PDF-', 'latin1'), valid: (b, at) => at + 8 <= b.length && /^%PDF-\d\.\d/.test(b.toString('latin1', at, at + 8)) },
  { name: 'gzip stream', bytes: Buffer.from([0x1f, 0x8b, 0x08]), valid: (b, at) => at + 10 <= b.length && (b[at + 3] & 0xe0) === 0 && b[at + 9] <= 13 },
  { name: 'PGP/GPG data', bytes: Buffer.from('-----BEGIN PGP', 'latin1') },
  { name: 'executable (ELF)', bytes: Buffer.from('\x7fELF', 'latin1') },
  { name: 'executable (Windows)', bytes: Buffer.from('MZ', 'latin1'), valid: (b, at) => at + 0x40 <= b.length && b.readUInt32LE(at + 0x3c) < 4096 && at + b.readUInt32LE(at + 0x3c) + 4 <= b.length && b.toString('latin1', at + b.readUInt32LE(at + 0x3c), at + b.readUInt32LE(at + 0x3c) + 4) === 'PE\0\0' },
];

/** Signatures of other file types between `from` and `to`, first hit of each kind. */
export function signaturesIn(b: Buffer, from: number, to = b.length): { name: string; offset: number }[] {
  const out: { name: string; offset: number }[] = [];
  for (const s of SIGNATURES) {
    for (let at = b.indexOf(s.bytes, from); at >= 0 && at < to; at = b.indexOf(s.bytes, at + 1)) {
      if (!s.valid || s.valid(b, at)) {
        out.push({ name: s.name, offset: at });
        break;
      }
    }
  }
  return out.sort((x, y) => x.offset - y.offset);
}
