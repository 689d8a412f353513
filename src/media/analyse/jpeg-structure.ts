// A small, defensive JPEG marker parser: walks the markers from SOI and reports the encoder's
// choices (quantisation tables, frame type, sampling factors, Huffman tables, APPn segments,
// comments) and where the image ends. It never throws on bad input: problems are listed in
// `errors`, and its work is bounded by the file size (every step moves forward).

/** Zig-zag position -> natural (row-major) position of an 8x8 block. */
export const ZIGZAG = Object.freeze([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
  28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
  54, 47, 55, 62, 63,
]);

export interface QuantTable {
  id: number;
  /** 8 or 16 bits per entry. */
  precision: 8 | 16;
  /** 64 steps in natural (row-major) order: index = row * 8 + column. */
  values: number[];
}

export interface JpegComponent {
  id: number;
  h: number;
  v: number;
  /** Quantisation table id. */
  tq: number;
}

export type JpegProcess =
  | 'baseline'
  | 'extended_sequential'
  | 'progressive'
  | 'lossless'
  | 'differential_sequential'
  | 'differential_progressive'
  | 'differential_lossless';

export interface JpegFrame {
  marker: number;
  process: JpegProcess;
  arithmetic: boolean;
  /** Bits per sample. */
  precision: number;
  width: number;
  height: number;
  components: JpegComponent[];
}

export interface HuffmanTable {
  tableClass: 'dc' | 'ac';
  id: number;
  /** Number of codes of each length 1..16. */
  counts: number[];
  symbols: number[];
  /** Equal to one of the four example tables of the standard (Annex K.3), as libjpeg writes
   *  them when it does not optimise. */
  standard: boolean;
}

export interface AppSegment {
  /** n of APPn (0..15). */
  n: number;
  /** The identifier the segment starts with ("JFIF", "Exif", "ICC_PROFILE", ...); '' if none. */
  id: string;
  offset: number;
  length: number;
}

export interface JpegStructure {
  /** The tables in force at the first scan (or at the end of the headers), by id. */
  quantTables: QuantTable[];
  frame: JpegFrame | null;
  /** "4:2:0", "4:4:4", "4:0:0" (one component), or the raw factors ("2x2,1x1,1x1") when unusual. */
  subsampling: string | null;
  huffmanTables: HuffmanTable[];
  appSegments: AppSegment[];
  comments: string[];
  scans: number;
  restartInterval: number;
  /** The transform byte of an Adobe APP14 segment (0 RGB/CMYK, 1 YCbCr, 2 YCCK), null without one. */
  adobeTransform: number | null;
  /** Offset of the FF of the EOI marker; null when there is none (truncated file). */
  eoiOffset: number | null;
  /** Offset just past EOI; null when there is none. */
  end: number | null;
  /** Bytes after EOI (0 when there is no EOI). */
  trailingBytes: number;
  /** The file ends before EOI. */
  truncated: boolean;
  /** What was wrong, in plain words (bounded list). */
  errors: string[];
}

const MAX_ERRORS = 16;
const MAX_COMMENTS = 16;
const MAX_COMMENT_CHARS = 256;
const MAX_APP_SEGMENTS = 256;
const MAX_HUFFMAN_TABLES = 64;

// The example Huffman tables of ITU T.81 Annex K.3 (what libjpeg uses unless it optimises).
const STD_DC_LUMA = { counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] };
const STD_DC_CHROMA = { counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] };
const STD_AC_LUMA = {
  counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
  symbols: [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14,
    0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09,
    0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a,
    0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65,
    0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
    0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
    0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca,
    0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea,
    0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
  ],
};
const STD_AC_CHROMA = {
  counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
  symbols: [
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32,
    0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16,
    0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39,
    0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64,
    0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86,
    0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
    0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8,
    0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9,
    0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
  ],
};
const STANDARD_HUFFMAN = [STD_DC_LUMA, STD_DC_CHROMA, STD_AC_LUMA, STD_AC_CHROMA];

function sameArray(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function isStandardHuffman(counts: number[], symbols: number[]): boolean {
  return STANDARD_HUFFMAN.some((t) => sameArray(t.counts, counts) && sameArray(t.symbols, symbols));
}

const SOF_PROCESS: Record<number, [JpegProcess, boolean]> = {
  0xc0: ['baseline', false],
  0xc1: ['extended_sequential', false],
  0xc2: ['progressive', false],
  0xc3: ['lossless', false],
  0xc5: ['differential_sequential', false],
  0xc6: ['differential_progressive', false],
  0xc7: ['differential_lossless', false],
  0xc9: ['extended_sequential', true],
  0xca: ['progressive', true],
  0xcb: ['lossless', true],
  0xcd: ['differential_sequential', true],
  0xce: ['differential_progressive', true],
  0xcf: ['differential_lossless', true],
};

/** The leading printable-ASCII identifier of an APPn payload, up to a NUL (at most 64 chars). */
function segmentId(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end && i < start + 64; i++) {
    const c = bytes[i];
    if (c < 0x20 || c > 0x7e) break;
    s += String.fromCharCode(c);
  }
  // "Adobe" and "Ducky" are followed by binary bytes that may happen to be printable
  if (s.startsWith('Adobe') && !s.startsWith('Adobe_')) return 'Adobe';
  if (s.startsWith('Ducky')) return 'Ducky';
  return s;
}

function subsamplingOf(components: JpegComponent[]): string | null {
  if (components.length === 0) return null;
  if (components.length === 1) return '4:0:0';
  const raw = components.map((c) => `${c.h}x${c.v}`).join(',');
  if (components.length !== 3) return raw;
  const [y, cb, cr] = components;
  if (cb.h !== cr.h || cb.v !== cr.v || cb.h === 0 || cb.v === 0) return raw;
  const hr = y.h / cb.h;
  const vr = y.v / cb.v;
  const table: Record<string, string> = { '1,1': '4:4:4', '2,1': '4:2:2', '2,2': '4:2:0', '4,1': '4:1:1', '1,2': '4:4:0', '4,2': '4:1:0' };
  return table[`${hr},${vr}`] ?? raw;
}

function emptyStructure(): JpegStructure {
  return {
    quantTables: [],
    frame: null,
    subsampling: null,
    huffmanTables: [],
    appSegments: [],
    comments: [],
    scans: 0,
    restartInterval: 0,
    adobeTransform: null,
    eoiOffset: null,
    end: null,
    trailingBytes: 0,
    truncated: false,
    errors: [],
  };
}

/** True when the bytes start with a JPEG SOI marker (FF D8 FF). */
export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/**
 * Walks the markers of the JPEG in `bytes`; null when it does not start with SOI. Stops at the
 * first EOI (bytes after it are counted, not parsed: an MPF secondary image, or appended data).
 */
export function parseJpeg(bytes: Uint8Array): JpegStructure | null {
  if (bytes.length < 2 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  const s = emptyStructure();
  const n = bytes.length;
  const tables = new Map<number, QuantTable>();
  let tablesFrozen = false;
  const err = (m: string) => {
    if (s.errors.length < MAX_ERRORS) s.errors.push(m);
  };
  const u16 = (i: number) => (bytes[i] << 8) | bytes[i + 1];

  let i = 2;
  while (i < n) {
    // a marker: FF, any number of FF fill bytes, then the code
    if (bytes[i] !== 0xff) {
      const next = bytes.indexOf(0xff, i);
      err(`${(next < 0 ? n : next) - i} stray bytes where a marker was expected at offset ${i}`);
      if (next < 0) break;
      i = next;
      continue;
    }
    while (i < n && bytes[i] === 0xff) i++;
    if (i >= n) break;
    const code = bytes[i];
    const at = i - 1; // offset of the FF just before the code
    i++;
    if (code === 0x00) {
      err(`invalid marker FF00 at offset ${at}`);
      continue;
    }
    if (code === 0xd9) {
      s.eoiOffset = at;
      s.end = at + 2;
      s.trailingBytes = n - s.end;
      break;
    }
    if (code === 0xd8) {
      err(`a second start-of-image marker at offset ${at}`);
      continue;
    }
    if (code === 0x01 || (code >= 0xd0 && code <= 0xd7)) continue; // standalone markers
    if (i + 2 > n) {
      err(`segment header cut at offset ${at}`);
      s.truncated = true;
      break;
    }
    const len = u16(i);
    if (len < 2) {
      err(`segment with an impossible length ${len} at offset ${at}`);
      // cannot know where it ends: look for the next marker
      i += 2;
      continue;
    }
    const start = i + 2; // payload
    const end = i + len; // one past the segment
    if (end > n) {
      err(`segment FF${code.toString(16).toUpperCase()} at offset ${at} runs past the end of the file`);
      s.truncated = true;
    }
    const stop = Math.min(end, n);

    if (code >= 0xe0 && code <= 0xef) {
      if (s.appSegments.length < MAX_APP_SEGMENTS) s.appSegments.push({ n: code - 0xe0, id: segmentId(bytes, start, stop), offset: at, length: len + 2 });
      if (code === 0xee && stop - start >= 12 && segmentId(bytes, start, stop) === 'Adobe') s.adobeTransform = bytes[start + 11];
    } else if (code === 0xfe) {
      if (s.comments.length < MAX_COMMENTS) {
        let text = '';
        for (let k = start; k < stop && text.length < MAX_COMMENT_CHARS; k++) {
          const c = bytes[k];
          if (c === 0) break;
          text += c >= 0x20 && c !== 0x7f ? String.fromCharCode(c) : c === 0x0a || c === 0x09 ? ' ' : '';
        }
        s.comments.push(text.trim());
      }
    } else if (code === 0xdb) {
      let k = start;
      while (k < stop) {
        const pq = bytes[k] >> 4;
        const tq = bytes[k] & 15;
        const size = pq ? 128 : 64;
        if (k + 1 + size > stop || pq > 1 || tq > 3) {
          err(`malformed quantisation table at offset ${k}`);
          break;
        }
        const values = new Array<number>(64);
        for (let z = 0; z < 64; z++) values[ZIGZAG[z]] = pq ? u16(k + 1 + 2 * z) : bytes[k + 1 + z];
        if (values.some((v) => v === 0)) err(`quantisation table ${tq} has a zero step`);
        if (!tablesFrozen) tables.set(tq, { id: tq, precision: pq ? 16 : 8, values });
        k += 1 + size;
      }
    } else if (code === 0xc4) {
      let k = start;
      while (k < stop) {
        if (k + 17 > stop) {
          err(`malformed Huffman table at offset ${k}`);
          break;
        }
        const tc = bytes[k] >> 4;
        const th = bytes[k] & 15;
        const counts: number[] = [];
        let total = 0;
        for (let b = 0; b < 16; b++) {
          counts.push(bytes[k + 1 + b]);
          total += bytes[k + 1 + b];
        }
        if (k + 17 + total > stop || tc > 1 || total > 256) {
          err(`malformed Huffman table at offset ${k}`);
          break;
        }
        const symbols = Array.from(bytes.subarray(k + 17, k + 17 + total));
        if (s.huffmanTables.length < MAX_HUFFMAN_TABLES) {
          s.huffmanTables.push({ tableClass: tc ? 'ac' : 'dc', id: th, counts, symbols, standard: isStandardHuffman(counts, symbols) });
        }
        k += 17 + total;
      }
    } else if (code === 0xdd) {
      if (stop - start >= 2) s.restartInterval = u16(start);
    } else if (code in SOF_PROCESS) {
      if (s.frame) err(`a second frame header at offset ${at}`);
      else if (stop - start < 6) err(`frame header cut at offset ${at}`);
      else {
        const [process, arithmetic] = SOF_PROCESS[code];
        const nc = bytes[start + 5];
        const components: JpegComponent[] = [];
        for (let c = 0; c < nc && start + 6 + 3 * c + 3 <= stop; c++) {
          const o = start + 6 + 3 * c;
          components.push({ id: bytes[o], h: bytes[o + 1] >> 4, v: bytes[o + 1] & 15, tq: bytes[o + 2] });
        }
        if (components.length !== nc) err('frame header lists fewer components than it declares');
        s.frame = { marker: code, process, arithmetic, precision: bytes[start], height: u16(start + 1), width: u16(start + 3), components };
        s.subsampling = subsamplingOf(components);
      }
    } else if (code === 0xda) {
      s.scans++;
      tablesFrozen = true;
      // entropy-coded data follows the header: skip to the next marker that is neither a
      // stuffed byte (FF00) nor a restart marker (FFD0-FFD7)
      let k = stop;
      for (;;) {
        const ff = bytes.indexOf(0xff, k);
        if (ff < 0 || ff + 1 >= n) {
          k = n;
          break;
        }
        const c = bytes[ff + 1];
        if (c === 0x00 || (c >= 0xd0 && c <= 0xd7) || c === 0xff) {
          k = ff + (c === 0xff ? 1 : 2);
          continue;
        }
        k = ff;
        break;
      }
      i = k;
      if (i >= n) s.truncated = true;
      continue;
    }
    i = end;
  }
  if (s.eoiOffset === null) {
    s.truncated = true;
    err('no end-of-image marker: the file is truncated');
  }
  if (!s.frame) err('no frame header');
  s.quantTables = [...tables.values()].sort((a, b) => a.id - b.id);
  return s;
}

/**
 * The byte offset just past the EOI marker that ends the JPEG in `bytes` (the first image:
 * the markers are walked, so an EOI inside an Exif thumbnail does not count). Null when the
 * bytes are not a JPEG or it has no EOI. Anything from there on was appended after the image
 * (or is an MPF secondary image, which the APP2 "MPF" segment announces).
 */
export function jpegEnd(bytes: Uint8Array): number | null {
  return parseJpeg(bytes)?.end ?? null;
}
