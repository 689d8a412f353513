// RS analysis (Fridrich, Goljan, Du, "Reliable detection of LSB steganography in color and
// grayscale images", ACM MM&Sec 2001), estimating the LSB-replacement rate p.
//
// Groups are 4 consecutive samples of one colour channel along a row (non-overlapping) and, as
// a second set, down a column. The discrimination function is f(x1..x4) = sum |x_{i+1} - x_i|
// (noise); the flipping mask is M = [0, 1, 1, 0] with F1 (LSB flip: 2k <-> 2k+1) and its shifted
// twin -M with F-1 (2k-1 <-> 2k). A group is Regular under a mask if flipping increases f,
// Singular if it decreases it. In covers R_M ~ R_-M and S_M ~ S_-M; LSB replacement pulls R_M
// and S_M together while R_-M and S_-M move apart. Counting the four shares on the image
// (d0 = R_M - S_M, d-0 = R_-M - S_-M) and on the image with every LSB flipped (d1, d-1), the
// RS quadratic
//   2 (d1 + d0) x^2 + (d-0 - d-1 - d1 - 3 d0) x + d0 - d-0 = 0
// is solved for its root x of smallest magnitude, and p = x / (x - 1/2).
import { checkImage, colourChannels, fmt, noAnswer, quadraticRoots, sampleThreshold } from './common.ts';
import type { PixelImage, Steganalyser, StegoEstimate } from './types.ts';

export interface RsOptions {
  /** per-sample rate above which the method alone calls the image suspect; default
   *  sampleThreshold(pixels) (0.03 from 40 000 pixels up) */
  threshold?: number;
  /** fewest textured groups (varying beyond their LSBs, which embedding cannot change) for an
   *  answer; default 4000 */
  minGroups?: number;
  /** skip groups holding a saturated sample (0, 1, 254, 255; the set is closed under LSB
   *  flipping, so skipping does not depend on the message); default true. Clipped areas break
   *  the cover assumption: without this the clean benchmark covers' sd was 0.043, with it 0.008. */
  skipSaturated?: boolean;
  /** also use vertical groups; default true */
  vertical?: boolean;
}

export const RS_DEFAULTS = { minGroups: 4000, skipSaturated: true, vertical: true };

// Speed: f changes under a mask by the sum of three pair terms, |x1 - F(x2)| - |x1 - x2|,
// |F(x2) - F(x3)| - |x2 - x3| and |F(x3) - x4| - |x3 - x4|, each a small integer (+-1 for the
// outer pairs, -2/0/+2 for the middle one). Two 65536-entry tables give, for a pair of values,
// the four terms at once (M and -M, on the image and on its LSB-flipped twin) packed in 4-bit
// lanes with an offset, plus flags for "same trace" (x >> 1 == y >> 1) and "saturated". A group
// is then three table loads and one histogram increment keyed by the four packed sums.
const SAME = 1 << 16;
const SAT = 1 << 20;
const fNeg = (x: number) => x + ((x & 1) << 1) - 1; // F-1: 2k -> 2k-1, 2k+1 -> 2k+2
const isSat = (x: number) => x <= 1 || x >= 254;
let tables: { outer: Uint32Array; middle: Uint32Array } | null = null;
function rsTables(): { outer: Uint32Array; middle: Uint32Array } {
  if (tables) return tables;
  const outer = new Uint32Array(65536), middle = new Uint32Array(65536);
  const abs = Math.abs;
  for (let x = 0; x < 256; x++) {
    for (let y = 0; y < 256; y++) {
      const xf = x ^ 1, yf = y ^ 1;
      // outer pair: x unmasked, y masked
      const o0 = abs(x - yf) - abs(x - y) + 1;
      const o1 = abs(x - fNeg(y)) - abs(x - y) + 1;
      const o2 = abs(xf - y) - abs(xf - yf) + 1; // flipped image: x' = x ^ 1, F1(y ^ 1) = y
      const o3 = abs(xf - fNeg(yf)) - abs(xf - yf) + 1;
      // middle pair: both masked
      const m0 = abs(xf - yf) - abs(x - y) + 2;
      const m1 = abs(fNeg(x) - fNeg(y)) - abs(x - y) + 2;
      const m2 = abs(x - y) - abs(xf - yf) + 2;
      const m3 = abs(fNeg(xf) - fNeg(yf)) - abs(xf - yf) + 2;
      const flags = (x >> 1 === y >> 1 ? SAME : 0) + (isSat(x) || isSat(y) ? SAT : 0);
      outer[(x << 8) | y] = o0 | (o1 << 4) | (o2 << 8) | (o3 << 12) | flags;
      middle[(x << 8) | y] = m0 | (m1 << 4) | (m2 << 8) | (m3 << 12) | flags;
    }
  }
  tables = { outer, middle };
  return tables;
}

/** Counts of the RS shares; index: 0 R_M, 1 S_M, 2 R_-M, 3 S_-M, then the same four on the
 *  LSB-flipped image (4..7), then 8 = groups counted, 9 = textured groups (varying beyond
 *  their LSBs). */
export function rsCounts(img: PixelImage, skipSaturated = RS_DEFAULTS.skipSaturated, vertical = RS_DEFAULTS.vertical): Float64Array {
  const { data, width: w, height: h, channels: ch, only } = img;
  const cc = colourChannels(img);
  const { outer, middle } = rsTables();
  const hist = new Uint32Array(65536);
  const limit = skipSaturated ? SAT : 0x7fffffff;
  let flat = 0;
  const stride = w * ch;
  const s1 = ch, s2 = 2 * ch, s3 = 3 * ch;
  for (let c = 0; c < cc; c++) {
    // rows: groups at x = 0, 4, 8 ...
    for (let y = 0; y < h; y++) {
      const base = y * stride + c;
      const end = base + (w - 3) * ch;
      for (let i = base, px = y * w; i < end; i += 4 * ch, px += 4) {
        if (only && !(only[px] && only[px + 1] && only[px + 2] && only[px + 3])) continue;
        const a = data[i], b = data[i + s1], cc2 = data[i + s2], d = data[i + s3];
        const s = outer[(a << 8) | b] + middle[(b << 8) | cc2] + outer[(d << 8) | cc2];
        if (s >= limit) continue;
        hist[s & 0xffff]++;
        if ((s & 0xf0000) === 3 * SAME) flat++;
      }
    }
    if (vertical) {
      const t1 = stride, t2 = 2 * stride, t3 = 3 * stride;
      for (let y = 0; y + 3 < h; y += 4) {
        const base = y * stride + c;
        const end = base + w * ch;
        for (let i = base, px = y * w; i < end; i += ch, px++) {
          if (only && !(only[px] && only[px + w] && only[px + 2 * w] && only[px + 3 * w])) continue;
          const a = data[i], b = data[i + t1], cc2 = data[i + t2], d = data[i + t3];
          const s = outer[(a << 8) | b] + middle[(b << 8) | cc2] + outer[(d << 8) | cc2];
          if (s >= limit) continue;
          hist[s & 0xffff]++;
          if ((s & 0xf0000) === 3 * SAME) flat++;
        }
      }
    }
  }
  const k = new Float64Array(10);
  let n = 0;
  for (let key = 0; key < 65536; key++) {
    const cnt = hist[key];
    if (cnt === 0) continue;
    n += cnt;
    // lane sums carry an offset of 4: above is Regular, below Singular
    for (let lane = 0; lane < 4; lane++) {
      const v = (key >> (4 * lane)) & 15;
      if (v > 4) k[2 * lane] += cnt;
      else if (v < 4) k[2 * lane + 1] += cnt;
    }
  }
  k[8] = n;
  k[9] = n - flat;
  return k;
}

export interface RsFit {
  p: number | null;
  groups: number;
  notes: string[];
}

export function rsFromCounts(k: Float64Array): RsFit {
  const n = k[8];
  const notes: string[] = [];
  if (n === 0) return { p: null, groups: 0, notes: ['no groups'] };
  const d0 = (k[0] - k[1]) / n, dn0 = (k[2] - k[3]) / n, d1 = (k[4] - k[5]) / n, dn1 = (k[6] - k[7]) / n;
  const roots = quadraticRoots(2 * (d1 + d0), dn0 - dn1 - d1 - 3 * d0, d0 - dn0);
  let x: number;
  if (roots) {
    x = roots.reduce((best, r) => (Math.abs(r) < Math.abs(best) ? r : best));
  } else {
    const a = 2 * (d1 + d0);
    if (Math.abs(a) < 1e-12) return { p: null, groups: n, notes: ['degenerate quadratic'] };
    x = -(dn0 - dn1 - d1 - 3 * d0) / (2 * a);
    notes.push('quadratic without real root; used its real part');
  }
  return { p: x / (x - 0.5), groups: n, notes };
}

export function createRs(options: RsOptions = {}): Steganalyser {
  const o: RsOptions & typeof RS_DEFAULTS = { ...RS_DEFAULTS, ...options };
  return {
    method: 'rs',
    analyse(img: PixelImage): StegoEstimate {
      checkImage(img);
      const k = rsCounts(img, o.skipSaturated, o.vertical);
      const textured = k[9];
      if (textured < o.minGroups) {
        return noAnswer('rs', `too few textured groups (${textured} < ${o.minGroups}): image too small or too flat`);
      }
      const fit = rsFromCounts(k);
      if (fit.p === null) return noAnswer('rs', ...fit.notes);
      // no payload reads above 1 (every sample): the picture breaks RS's cover model
      if (fit.p > 1) return { ...noAnswer('rs', ...fit.notes, `p = ${fmt(fit.p)}: above 1, which no payload can read: the picture breaks the cover model`), broken: true };
      return {
        method: 'rs',
        rate: Math.min(1, Math.max(0, fit.p)),
        score: fit.p,
        detected: fit.p > (o.threshold ?? sampleThreshold(img.width * img.height)),
        notes: [...fit.notes, `groups ${fit.groups} (${textured} textured)`, `p = ${fmt(fit.p)}`],
      };
    },
  };
}

export const rs: Steganalyser = createRs();
