// JPEG compatibility (Fridrich, Goljan & Du, "Steganalysis based on JPEG compatibility", 2001):
// a lossless picture that is a JPEG decode, saved as it came out of the decoder, can be told
// block for block. Its luminance is recovered exactly from the RGB values (the decoder adds
// whole-number chroma offsets to each luminance sample, and 0.299 R + 0.587 G + 0.114 B undoes
// them to within 0.5), every 8x8 block's DCT lies on the quantisation lattice, and the decoder's
// own inverse DCT (libjpeg's islow, which libjpeg-turbo, mozjpeg and so sharp, browsers, PIL
// and ImageMagick all use) rebuilds the block exactly from the nearest lattice point. One
// replaced LSB in a block breaks that with high probability, so when nearly every block
// rebuilds, no LSB replacement happened, whatever RS, WS or the histogram pairs read on such a
// picture (a JPEG decode's quantised blocks leave its pairs of values lopsided).
//
// Only blocks on the picture's 8x8 grid from its top left corner are read (a crop that moved the
// grid reads as "not a JPEG decode"), and blocks holding a clipped channel or luminance (0 or 255:
// the decoder's clamping breaks the luminance identity and moves the block off the lattice) are
// left out, as are flat blocks (any table rebuilds them). Any doubt
// (another decoder's inverse DCT, quality 100 where the lattice is too fine, a resize) makes
// blocks fail to rebuild, which only takes the verdict back to the usual methods.
import { DCT_BASIS, IJG_LUMA, scaledTable } from '../jpeg-tables.ts';
import { colourChannels } from './common.ts';
import type { PixelImage } from './types.ts';

export interface JpegCompat {
  /** blocks read (on the grid, unclipped, not flat: a flat block rebuilds from any table) */
  blocks: number;
  /** of those, blocks the decoder rebuilds exactly from the estimated quantisation table */
  rebuilt: number;
  /** quantisation steps estimated per frequency (row-major, 64), 0 where every coefficient
   *  was zero */
  table: number[];
}

/** Fewest blocks read for a reading at all. */
const MIN_BLOCKS = 64;
/** Blocks sampled to estimate the quantisation table. */
const TABLE_SAMPLE = 4096;
/** The pixels' rounding moves a coefficient by about 0.3 (sd): below ZERO it is a zero, and a
 *  step q fits a frequency when FIT_SHARE of its non-zero coefficients sit within
 *  min(1, q/2 - 0.2) of a multiple. */
const ZERO = 1.2;
const FIT_SHARE = 0.95;
/** The smallest DC step read as a JPEG's. */
const MIN_DC_STEP = 3;
/** Fewer non-zero coefficients than this at one frequency say nothing about its step. */
const FEW = 10;
const tolerance = (q: number) => Math.min(1, q / 2 - 0.2);
/** An IJG table is the base when this many of the 64 frequencies fit it. */
const IJG_FITS = 56;

// islow constants (jidctint.c): CONST_BITS 13, PASS1_BITS 2
const F0_298 = 2446, F0_390 = 3196, F0_541 = 4433, F0_765 = 6270, F0_899 = 7373, F1_175 = 9633;
const F1_501 = 12299, F1_847 = 15137, F1_961 = 16069, F2_053 = 16819, F2_562 = 20995, F3_072 = 25172;

/** One 8-point pass of libjpeg's islow inverse DCT: in[at + k * step] (k = 0..7) into
 *  out[to + k * outStep], descaled by `shift` bits with rounding (jidctint.c's even and odd parts). */
function islowPass(inp: Int32Array, at: number, step: number, out: Int32Array, to: number, outStep: number, shift: number): void {
  const half = 1 << (shift - 1);
  let z2 = inp[at + 2 * step], z3 = inp[at + 6 * step];
  let z1 = (z2 + z3) * F0_541;
  let tmp2 = z1 - z3 * F1_847;
  let tmp3 = z1 + z2 * F0_765;
  z2 = inp[at];
  z3 = inp[at + 4 * step];
  let tmp0 = (z2 + z3) * 8192;
  let tmp1 = (z2 - z3) * 8192;
  const t10 = tmp0 + tmp3, t13 = tmp0 - tmp3, t11 = tmp1 + tmp2, t12 = tmp1 - tmp2;
  tmp0 = inp[at + 7 * step];
  tmp1 = inp[at + 5 * step];
  tmp2 = inp[at + 3 * step];
  tmp3 = inp[at + step];
  z1 = tmp0 + tmp3;
  z2 = tmp1 + tmp2;
  z3 = tmp0 + tmp2;
  let z4 = tmp1 + tmp3;
  const z5 = (z3 + z4) * F1_175;
  tmp0 *= F0_298;
  tmp1 *= F2_053;
  tmp2 *= F3_072;
  tmp3 *= F1_501;
  z1 *= -F0_899;
  z2 *= -F2_562;
  z3 = z3 * -F1_961 + z5;
  z4 = z4 * -F0_390 + z5;
  tmp0 += z1 + z3;
  tmp1 += z2 + z4;
  tmp2 += z2 + z3;
  tmp3 += z1 + z4;
  out[to] = (t10 + tmp3 + half) >> shift;
  out[to + 7 * outStep] = (t10 - tmp3 + half) >> shift;
  out[to + outStep] = (t11 + tmp2 + half) >> shift;
  out[to + 6 * outStep] = (t11 - tmp2 + half) >> shift;
  out[to + 2 * outStep] = (t12 + tmp1 + half) >> shift;
  out[to + 5 * outStep] = (t12 - tmp1 + half) >> shift;
  out[to + 3 * outStep] = (t13 + tmp0 + half) >> shift;
  out[to + 4 * outStep] = (t13 - tmp0 + half) >> shift;
}

/** libjpeg's islow inverse DCT of dequantised coefficients (row-major) into 8-bit samples:
 *  columns first (CONST_BITS - PASS1_BITS = 11 bits off), then rows (CONST_BITS + PASS1_BITS + 3
 *  = 18), with its shortcuts for all-zero AC terms, which give the same values. */
export function idctIslow(coef: Int32Array, out: Uint8Array): void {
  const ws = new Int32Array(64);
  const row = new Int32Array(8);
  for (let c = 0; c < 8; c++) {
    if (coef[8 + c] === 0 && coef[16 + c] === 0 && coef[24 + c] === 0 && coef[32 + c] === 0 && coef[40 + c] === 0 && coef[48 + c] === 0 && coef[56 + c] === 0) {
      const dc = coef[c] * 4;
      for (let r = 0; r < 8; r++) ws[8 * r + c] = dc;
      continue;
    }
    islowPass(coef, c, 8, ws, c, 8, 11);
  }
  const clamp = (v: number) => (v < -128 ? 0 : v > 127 ? 255 : v + 128);
  for (let r = 0; r < 8; r++) {
    const o = 8 * r;
    if (ws[o + 1] === 0 && ws[o + 2] === 0 && ws[o + 3] === 0 && ws[o + 4] === 0 && ws[o + 5] === 0 && ws[o + 6] === 0 && ws[o + 7] === 0) {
      out.fill(clamp((ws[o] + 16) >> 5), o, o + 8);
      continue;
    }
    islowPass(ws, o, 1, row, 0, 1, 18);
    for (let k = 0; k < 8; k++) out[o + k] = clamp(row[k]);
  }
}

/** The JPEG forward DCT of a level-shifted 8x8 block (row-major) into `out`. */
function fdct(block: Float64Array, tmp: Float64Array, out: Float64Array): void {
  for (let r = 0; r < 8; r++) {
    for (let u = 0; u < 8; u++) {
      let s = 0;
      for (let x = 0; x < 8; x++) s += DCT_BASIS[8 * u + x] * block[8 * r + x];
      tmp[8 * r + u] = s;
    }
  }
  for (let u = 0; u < 8; u++) {
    for (let v = 0; v < 8; v++) {
      let s = 0;
      for (let y = 0; y < 8; y++) s += DCT_BASIS[8 * v + y] * tmp[8 * y + u];
      out[8 * v + u] = s;
    }
  }
}

/** The blocks that can be read: on the grid, no clipped channel. Returns their top-left pixel
 *  indices and fills `luma` with the recovered luminance of the whole picture. */
function readableBlocks(img: PixelImage, luma: Uint8Array): number[] {
  const { data, width: w, height: h, channels: ch } = img;
  const cc = colourChannels(img);
  const clipped = new Uint8Array(w * h);
  for (let p = 0, i = 0; p < w * h; p++, i += ch) {
    if (cc === 1) {
      luma[p] = data[i];
    } else {
      const r = data[i], g = data[i + 1], b = data[i + 2];
      luma[p] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
      if (r === 0 || r === 255 || g === 0 || g === 255 || b === 0 || b === 255) clipped[p] = 1;
    }
    // the decoder clamps its luminance too, which moves the block's DCT off the lattice
    if (luma[p] === 0 || luma[p] === 255) clipped[p] = 1;
  }
  const blocks: number[] = [];
  for (let by = 0; by + 8 <= h; by += 8) {
    for (let bx = 0; bx + 8 <= w; bx += 8) {
      let ok = true;
      for (let y = 0; y < 8 && ok; y++) for (let x = 0; x < 8; x++) if (clipped[(by + y) * w + bx + x]) { ok = false; break; }
      if (ok) blocks.push(by * w + bx);
    }
  }
  return blocks;
}

function blockDct(luma: Uint8Array, w: number, at: number, block: Float64Array, tmp: Float64Array, out: Float64Array): void {
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) block[8 * y + x] = luma[at + y * w + x] - 128;
  fdct(block, tmp, out);
}

/** Share of one frequency's non-zero coefficients (|c| >= ZERO) that sit on multiples of q;
 *  1 when there are too few to tell (a stray rounding outlier would decide). */
function fitShare(dcts: Float64Array, n: number, k: number, q: number): number {
  let nz = 0, fit = 0;
  const tol = tolerance(q);
  for (let b = 0; b < n; b++) {
    const c = dcts[64 * b + k];
    if (Math.abs(c) < ZERO) continue;
    nz++;
    if (Math.abs(c - Math.round(c / q) * q) < tol) fit++;
  }
  return nz < FEW ? 1 : fit / nz;
}

/** Largest step one frequency's non-zero coefficients sit on (0: (nearly) all zero, 1: none fits). */
function estimateStep(dcts: Float64Array, n: number, k: number): number {
  const mags: number[] = [];
  for (let b = 0; b < n; b++) {
    const c = Math.abs(dcts[64 * b + k]);
    if (c >= ZERO) mags.push(c);
  }
  if (mags.length < FEW) return 0;
  // no step exceeds the smallest multiples seen (the 5th percentile leaves stray values out)
  mags.sort((x, y) => x - y);
  const top = Math.min(255, Math.floor(mags[Math.floor(0.05 * (mags.length - 1))] + 1));
  for (let q = top; q >= 2; q--) if (fitShare(dcts, n, k, q) >= FIT_SHARE) return q;
  return 1;
}

/**
 * The quantisation tables the sample's DCT coefficients may sit on: the IJG tables that the most
 * frequencies fit, then the coarsest of them with each frequency it does not fit estimated on its
 * own (tables close to IJG's: cameras, other encoders). A frequency whose coefficients are rare
 * is where a table read from the coefficients alone goes wrong; the IJG scaling fills those in.
 */
function estimateTables(dcts: Float64Array, n: number): number[][] {
  let bases: number[][] = [], most = IJG_FITS - 1;
  for (let quality = 1; quality <= 100; quality++) {
    const table = scaledTable(IJG_LUMA, quality);
    if (table[0] < 2) break; // steps of 1 fit anything: no longer a reading
    let fits = 0;
    for (let k = 0; k < 64; k++) if (fitShare(dcts, n, k, table[k]) >= FIT_SHARE) fits++;
    if (fits > most) {
      most = fits;
      bases = [table];
    } else if (fits === most) bases.push(table);
  }
  // neighbouring qualities differ only at frequencies too rare to tell: each is tried
  const base = bases[0];
  const own = Array.from({ length: 64 }, (_, k) => (base && fitShare(dcts, n, k, base[k]) >= FIT_SHARE ? base[k] : estimateStep(dcts, n, k)));
  return [...bases, own];
}

/** Whether the picture is a JPEG decode, block for block; null when too few blocks can be read.
 *  `atLeast`: stop as soon as that share of rebuilt blocks is out of reach (the counts are then
 *  those read so far). */
export function jpegCompat(img: PixelImage, atLeast = 0): JpegCompat | null {
  const { width: w } = img;
  const luma = new Uint8Array(img.width * img.height);
  const blocks = readableBlocks(img, luma);
  if (blocks.length < MIN_BLOCKS) return null;
  const block = new Float64Array(64), tmp = new Float64Array(64), out = new Float64Array(64);
  // the table from a spread sample of blocks
  const step = Math.max(1, blocks.length / TABLE_SAMPLE);
  const sample = Math.min(blocks.length, TABLE_SAMPLE);
  const dcts = new Float64Array(64 * sample);
  for (let s = 0; s < sample; s++) {
    blockDct(luma, w, blocks[Math.floor(s * step)], block, tmp, out);
    dcts.set(out, 64 * s);
  }
  // a decode's DC coefficients sit on a step of 3 or more (quality 90 and below); a picture that
  // never was a JPEG has none, and a finer step cannot be told from rounding: no reading
  if (estimateStep(dcts, sample, 0) < MIN_DC_STEP) return null;
  let best: JpegCompat | null = null;
  for (const table of estimateTables(dcts, sample)) {
    const r = rebuild(luma, w, blocks, table, atLeast);
    if (r && (!best || r.rebuilt / r.blocks > best.rebuilt / best.blocks)) best = r;
    if (atLeast > 0 && best && best.rebuilt >= atLeast * best.blocks) break;
  }
  return best;
}

/** How many of the blocks with detail the decoder rebuilds from `table`. */
function rebuild(luma: Uint8Array, w: number, blocks: readonly number[], table: number[], atLeast: number): JpegCompat | null {
  const block = new Float64Array(64), tmp = new Float64Array(64), out = new Float64Array(64);
  const coef = new Int32Array(64);
  const rebuilt8 = new Uint8Array(64);
  let rebuilt = 0, read = 0;
  for (const at of blocks) {
    blockDct(luma, w, at, block, tmp, out);
    let ac = false;
    for (let k = 0; k < 64; k++) {
      coef[k] = table[k] === 0 ? 0 : Math.round(out[k] / table[k]) * table[k];
      if (k > 0 && coef[k] !== 0) ac = true;
    }
    if (!ac) continue;
    read++;
    if (atLeast > 0 && read - rebuilt > (1 - atLeast) * blocks.length) return { blocks: read, rebuilt, table };
    idctIslow(coef, rebuilt8);
    let same = true;
    for (let y = 0; y < 8 && same; y++) for (let x = 0; x < 8; x++) if (rebuilt8[8 * y + x] !== luma[at + y * w + x]) { same = false; break; }
    if (same) rebuilt++;
  }
  return read < MIN_BLOCKS ? null : { blocks: read, rebuilt, table };
}
