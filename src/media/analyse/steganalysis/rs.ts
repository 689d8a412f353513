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
import { checkImage, colourChannels, fmt, noAnswer, quadraticRoots } from './common.ts';
import type { PixelImage, Steganalyser, StegoEstimate } from './types.ts';

export interface RsOptions {
  /** per-sample rate above which the method alone calls the image suspect; default 0.03 */
  threshold?: number;
  /** fewest textured groups (varying beyond their LSBs, which embedding cannot change) for an
   *  answer; default 2000 */
  minGroups?: number;
  /** skip groups holding a saturated sample (0, 1, 254, 255; the set is closed under LSB
   *  flipping, so skipping does not depend on the embedding); default true */
  skipSaturated?: boolean;
  /** also use vertical groups; default true */
  vertical?: boolean;
}

export const RS_DEFAULTS: Required<RsOptions> = { threshold: 0.03, minGroups: 2000, skipSaturated: true, vertical: true };

/** Counts of the RS shares; index: 0 R_M, 1 S_M, 2 R_-M, 3 S_-M, then the same four on the
 *  LSB-flipped image (4..7), then 8 = groups counted, 9 = textured groups (varying beyond
 *  their LSBs). */
export function rsCounts(img: PixelImage, skipSaturated = true, vertical = true): Float64Array {
  const { data, width: w, height: h, channels: ch } = img;
  const cc = colourChannels(img);
  const k = new Float64Array(10);
  let rM = 0, sM = 0, rN = 0, sN = 0, rMf = 0, sMf = 0, rNf = 0, sNf = 0, n = 0, textured = 0;
  const stride = w * ch;
  const group = (a: number, b: number, c: number, d: number) => {
    if (skipSaturated && (a <= 1 || b <= 1 || c <= 1 || d <= 1 || a >= 254 || b >= 254 || c >= 254 || d >= 254)) return;
    n++;
    // textured: the group varies beyond the LSBs (invariant under LSB embedding)
    const t = a >> 1;
    if ((b >> 1) !== t || (c >> 1) !== t || (d >> 1) !== t) textured++;
    const f0 = Math.abs(a - b) + Math.abs(b - c) + Math.abs(c - d);
    // M on the image: b, c -> LSB flipped
    const b1 = b ^ 1, c1 = c ^ 1;
    const fM = Math.abs(a - b1) + Math.abs(b1 - c1) + Math.abs(c1 - d);
    // -M on the image: even -> x - 1, odd -> x + 1
    const bn = b + ((b & 1) << 1) - 1, cn = c + ((c & 1) << 1) - 1;
    const fN = Math.abs(a - bn) + Math.abs(bn - cn) + Math.abs(cn - d);
    if (fM > f0) rM++; else if (fM < f0) sM++;
    if (fN > f0) rN++; else if (fN < f0) sN++;
    // the same on the image with every LSB flipped: a' = a ^ 1 ...
    const af = a ^ 1, df = d ^ 1;
    const g0 = Math.abs(af - b1) + Math.abs(b1 - c1) + Math.abs(c1 - df);
    // M on flipped: F1(b ^ 1) = b
    const gM = Math.abs(af - b) + Math.abs(b - c) + Math.abs(c - df);
    // -M on flipped: b ^ 1 even (b odd) -> b - 2; b ^ 1 odd (b even) -> b + 2
    const bf = b + 2 - ((b & 1) << 2), cf = c + 2 - ((c & 1) << 2);
    const gN = Math.abs(af - bf) + Math.abs(bf - cf) + Math.abs(cf - df);
    if (gM > g0) rMf++; else if (gM < g0) sMf++;
    if (gN > g0) rNf++; else if (gN < g0) sNf++;
  };
  for (let c = 0; c < cc; c++) {
    // rows: groups at x = 0, 4, 8 ...
    for (let y = 0; y < h; y++) {
      const base = y * stride + c;
      for (let x = 0; x + 3 < w; x += 4) {
        const i = base + x * ch;
        group(data[i], data[i + ch], data[i + 2 * ch], data[i + 3 * ch]);
      }
    }
    if (vertical) {
      for (let y = 0; y + 3 < h; y += 4) {
        const base = y * stride + c;
        for (let x = 0; x < w; x++) {
          const i = base + x * ch;
          group(data[i], data[i + stride], data[i + 2 * stride], data[i + 3 * stride]);
        }
      }
    }
  }
  k[0] = rM; k[1] = sM; k[2] = rN; k[3] = sN; k[4] = rMf; k[5] = sMf; k[6] = rNf; k[7] = sNf; k[8] = n; k[9] = textured;
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
  const o = { ...RS_DEFAULTS, ...options };
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
      return {
        method: 'rs',
        rate: Math.min(1, Math.max(0, fit.p)),
        score: fit.p,
        detected: fit.p > o.threshold,
        notes: [...fit.notes, `groups ${fit.groups} (${textured} textured)`, `p = ${fmt(fit.p)}`],
      };
    },
  };
}

export const rs: Steganalyser = createRs();
