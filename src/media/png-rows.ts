// A PNG decoder that hands over rows as they inflate, for the hide engine: the embedding walks
// the picture top down and can follow the decode instead of waiting for all of it (on 12 MP,
// inflating alone takes about 0.14 s). It takes only the plain case, where its rows are exactly
// what sharp gives: 8-bit grey or RGB, not interlaced, no colour profile, orientation,
// transparency or animation. Anything else is for decodePixels.
import { createInflate } from 'node:zlib';
import { MediaError } from './errors.ts';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Chunks that change nothing in the 8-bit samples sharp gives back. */
const HARMLESS = new Set(['IDAT', 'IEND', 'sRGB', 'gAMA', 'cHRM', 'sBIT', 'pHYs', 'tEXt', 'zTXt', 'iTXt', 'tIME', 'bKGD']);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3 };
/** Compressed bytes per write to zlib. */
const WRITE_BYTES = 256 * 1024;

/** What is wrong with the data, as the refusal every caller already handles. */
const corrupt = (why: string, cause?: unknown) => new MediaError('corrupt', `The PNG image could not be read: ${why}.`, { cause });

export interface PlainPng {
  width: number;
  height: number;
  channels: 1 | 3;
}

/** The picture's geometry when the file is a PNG this decoder takes; undefined otherwise. */
export function plainPng(file: Buffer): PlainPng | undefined {
  if (file.length < 33 || !file.subarray(0, 8).equals(SIGNATURE) || file.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  const width = file.readUInt32BE(16);
  const height = file.readUInt32BE(20);
  const [depth, colourType, compression, filter, interlace] = file.subarray(24, 29);
  const channels = CHANNELS[colourType];
  if (!width || !height || depth !== 8 || !channels || compression !== 0 || filter !== 0 || interlace !== 0) return undefined;
  try {
    for (const c of chunks(file)) if (c.type !== 'IHDR' && !HARMLESS.has(c.type)) return undefined;
  } catch (e) {
    if (e instanceof MediaError) return undefined; // a chunk runs past the end: not a plain case
    throw e;
  }
  return { width, height, channels: channels as 1 | 3 };
}

function* chunks(file: Buffer): Generator<{ type: string; data: Buffer }> {
  for (let at = 8; at + 12 <= file.length; ) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    if (at + 12 + length > file.length) throw corrupt('a chunk runs past the end of the file');
    yield { type, data: file.subarray(at + 8, at + 8 + length) };
    if (type === 'IEND') return;
    at += 12 + length;
  }
}

/**
 * Decodes a plain PNG's rows into `out` (width x height x channels bytes), calling `onRows(n)`
 * whenever the first n rows are final. Rejects with MediaError('corrupt') on anything wrong: a
 * bad filter byte, too few or too many bytes, a broken zlib stream or checksum.
 */
export async function decodePlainPng(file: Buffer, out: Uint8Array, onRows: (rows: number) => void): Promise<PlainPng> {
  const png = plainPng(file);
  if (!png) throw corrupt('not a plain PNG');
  const rows = new RowFilter(out, png);
  const inflate = createInflate({ chunkSize: 1 << 20 });
  const done = new Promise<void>((resolve, reject) => {
    inflate.on('data', (chunk: Buffer) => {
      try {
        const before = rows.done;
        rows.push(chunk);
        if (rows.done > before) onRows(rows.done);
      } catch (err) {
        inflate.destroy(err as Error);
      }
    });
    inflate.on('end', resolve);
    inflate.on('error', (err) => reject(err instanceof MediaError ? err : corrupt('the compressed data is damaged', err)));
  });
  // Encoders cut the data into small IDAT chunks (8 KiB is common), and zlib answers each write
  // on its own round trip to the thread pool: they are written a few hundred KiB at a time.
  let batch: Buffer[] = [];
  let size = 0;
  for (const c of chunks(file)) {
    if (c.type !== 'IDAT') continue;
    batch.push(c.data);
    size += c.data.length;
    if (size >= WRITE_BYTES) {
      inflate.write(batch.length === 1 ? batch[0] : Buffer.concat(batch));
      batch = [];
      size = 0;
    }
  }
  if (batch.length) inflate.write(Buffer.concat(batch));
  inflate.end();
  await done;
  if (rows.done !== png.height) throw corrupt('the image data ends early');
  return png;
}

/** Undoes PNG's per-row filters (None, Sub, Up, Average, Paeth) as inflated bytes arrive. */
export class RowFilter {
  readonly #out: Uint8Array;
  readonly #stride: number;
  readonly #bpp: number;
  readonly #height: number;
  /** The row being filled: its filter byte, then its bytes. */
  readonly #row: Uint8Array;
  #filled = 0;
  done = 0;

  constructor(out: Uint8Array, png: PlainPng) {
    this.#stride = png.width * png.channels;
    this.#bpp = png.channels;
    this.#height = png.height;
    if (out.length !== this.#stride * png.height) throw new RangeError('the output does not fit the picture');
    this.#out = out;
    this.#row = new Uint8Array(this.#stride + 1);
  }

  push(chunk: Uint8Array): void {
    // one element kind (Uint8Array, never Buffer) for the loops below, so their loads stay monomorphic
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const full = this.#stride + 1;
    for (let at = 0; at < bytes.length; ) {
      if (this.done === this.#height) throw corrupt('more image data than rows');
      const take = Math.min(full - this.#filled, bytes.length - at);
      if (this.#filled === 0 && take === full) {
        this.#unfilter(bytes.subarray(at, at + full)); // a whole row in place: no copy
      } else {
        this.#row.set(bytes.subarray(at, at + take), this.#filled);
        this.#filled += take;
        if (this.#filled === full) {
          this.#unfilter(this.#row);
          this.#filled = 0;
        }
      }
      at += take;
    }
  }

  #unfilter(row: Uint8Array): void {
    const out = this.#out;
    const n = this.#stride;
    const bpp = this.#bpp;
    const o = this.done * n;
    const up = o - n; // the row above; the first row has zeros above it
    const first = this.done === 0;
    switch (row[0]) {
      case 0:
        out.set(row.subarray(1), o);
        break;
      case 1:
        for (let x = 0; x < bpp; x++) out[o + x] = row[x + 1];
        for (let x = bpp; x < n; x++) out[o + x] = row[x + 1] + out[o + x - bpp];
        break;
      case 2:
        if (first) out.set(row.subarray(1), o);
        else for (let x = 0; x < n; x++) out[o + x] = row[x + 1] + out[up + x];
        break;
      case 3:
        if (first) {
          for (let x = 0; x < bpp; x++) out[o + x] = row[x + 1];
          for (let x = bpp; x < n; x++) out[o + x] = row[x + 1] + (out[o + x - bpp] >>> 1);
          break;
        }
        for (let x = 0; x < bpp; x++) out[o + x] = row[x + 1] + (out[up + x] >>> 1);
        for (let x = bpp; x < n; x++) out[o + x] = row[x + 1] + ((out[o + x - bpp] + out[up + x]) >>> 1);
        break;
      case 4:
        if (first) {
          // Paeth with nothing above is Sub
          for (let x = 0; x < bpp; x++) out[o + x] = row[x + 1];
          for (let x = bpp; x < n; x++) out[o + x] = row[x + 1] + out[o + x - bpp];
          break;
        }
        if (bpp === 3) paeth3(row, out, o, up, n);
        else paeth1(row, out, o, up, n);
        break;
      default:
        throw corrupt(`row ${this.done} has an unknown filter`);
    }
    this.done++;
  }
}

// Paeth, the filter most photographs' rows use, picks the predictor without branches (they
// mispredict on photographs) and carries left (a) and upper-left (c) in registers; each byte
// depends on the one before it in its channel, so RGB runs its three channels side by side.

/** |x| of an int32, without a branch. */
const abs = (x: number) => (x ^ (x >> 31)) - (x >> 31);

/** The Paeth predictor of left a, above b, upper-left c. */
function predict(a: number, b: number, c: number): number {
  const pa = abs(b - c);
  const pb = abs(a - c);
  const pc = abs(a + b - 2 * c);
  const notA = ((pb - pa) | (pc - pa)) >> 31; // -1 unless pa is the least
  const notB = (pc - pb) >> 31; // -1 when pc beats pb
  return (a & ~notA) | (((b & ~notB) | (c & notB)) & notA);
}

function paeth1(row: Uint8Array, out: Uint8Array, o: number, up: number, n: number): void {
  let a = (row[1] + out[up]) & 255;
  let c = out[up];
  out[o] = a;
  for (let x = 1; x < n; x++) {
    const b = out[up + x];
    a = (row[x + 1] + predict(a, b, c)) & 255;
    c = b;
    out[o + x] = a;
  }
}

function paeth3(row: Uint8Array, out: Uint8Array, o: number, up: number, n: number): void {
  let c0 = out[up];
  let c1 = out[up + 1];
  let c2 = out[up + 2];
  let a0 = (row[1] + c0) & 255;
  let a1 = (row[2] + c1) & 255;
  let a2 = (row[3] + c2) & 255;
  out[o] = a0;
  out[o + 1] = a1;
  out[o + 2] = a2;
  for (let x = 3; x < n; x += 3) {
    const b0 = out[up + x];
    const b1 = out[up + x + 1];
    const b2 = out[up + x + 2];
    a0 = (row[x + 1] + predict(a0, b0, c0)) & 255;
    a1 = (row[x + 2] + predict(a1, b1, c1)) & 255;
    a2 = (row[x + 3] + predict(a2, b2, c2)) & 255;
    c0 = b0;
    c1 = b1;
    c2 = b2;
    out[o + x] = a0;
    out[o + x + 1] = a1;
    out[o + x + 2] = a2;
  }
}
