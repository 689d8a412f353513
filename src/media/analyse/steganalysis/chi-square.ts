// Westfeld–Pfitzmann chi-square attack on pairs of values ("Attacks on steganographic systems",
// IH 1999). LSB replacement makes the two values of each pair (2k, 2k+1) equally frequent; the
// statistic chi2 = sum_k (n_2k - (n_2k + n_2k+1)/2)^2 / ((n_2k + n_2k+1)/2) over the pairs
// holding enough samples (expected count > 4), with one degree of freedom fewer than pairs, is
// small when they are, so p = P(X >= chi2) near 1 means "embedded". The histograms are per
// colour channel (alpha ignored), their statistics and degrees of freedom summed.
//
// The attack only sees dense embedding: a message scattered at random over the image at a low
// rate leaves the histogram nearly untouched (RS and SPA are the tools for that). So it is run
// sequentially, on growing prefixes of the samples in raster order: a tool that writes its
// message from the first sample leaves p near 1 up to the end of the message, and the length of
// that run estimates the message length.
//
// Calibration: a smooth region (a sky) has a locally flat histogram, so its pairs of values are
// nearly equal without any message, and the plain test fires on it (10 of 49 clean covers of the
// benchmark corpus on their first prefix). LSB replacement equalises only the pairs (2k, 2k+1),
// never the shifted pairs (2k-1, 2k); a flat histogram equalises both. So a prefix counts as
// embedded only if p > pThreshold on the pairs of values AND p < shiftedMax on the shifted
// pairs (0 of 49 clean covers; about 70 % of sequential embeddings are still caught this way).
import { checkImage, colourChannels, fmt, noAnswer } from './common.ts';
import type { PixelImage, Steganalyser, StegoEstimate } from './types.ts';

export interface ChiSquareOptions {
  /** p-value on the pairs of values above which a prefix counts as embedded; default 0.95 */
  pThreshold?: number;
  /** ... provided the shifted pairs' p-value is below this; default 0.5 */
  shiftedMax?: number;
  /** fewest colour samples in a tested prefix (and in the image); default 6000 */
  minPrefixSamples?: number;
  /** most prefixes tested; default 200 */
  steps?: number;
}

export const CHI_DEFAULTS: Required<ChiSquareOptions> = { pThreshold: 0.95, shiftedMax: 0.5, minPrefixSamples: 6000, steps: 200 };
// ln Gamma (Lanczos, g = 7, n = 9)
const LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  x -= 1;
  let a = LANCZOS[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularised upper incomplete gamma Q(a, x) = 1 - P(a, x). */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lead = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) {
    // series for P
    let sum = 1 / a, term = sum, ap = a;
    for (let i = 0; i < 1000; i++) {
      ap += 1;
      term *= x / ap;
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return Math.max(0, 1 - sum * Math.exp(lead));
  }
  // continued fraction for Q (modified Lentz)
  const tiny = 1e-300;
  let b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.min(1, Math.exp(lead) * h);
}

/** Upper tail of the chi-square distribution with `dof` degrees of freedom. */
export function chiSquareSurvival(chi2: number, dof: number): number {
  return gammaQ(dof / 2, chi2 / 2);
}

/** Chi-square statistic and degrees of freedom of per-channel histograms (256 bins each), on
 *  the pairs of values (2k, 2k+1) (shift 0) or on the shifted pairs (2k+1, 2k+2) (shift 1). */
export function pairsOfValues(hist: Uint32Array, channels: number, shift: 0 | 1 = 0): { chi2: number; dof: number } {
  let chi2 = 0, dof = 0;
  for (let c = 0; c < channels; c++) {
    let cats = 0;
    for (let lo = shift; lo < 255; lo += 2) {
      const even = hist[c * 256 + lo], odd = hist[c * 256 + lo + 1];
      const expected = (even + odd) / 2;
      if (expected <= 4) continue;
      chi2 += (even - expected) ** 2 / expected;
      cats++;
    }
    if (cats > 1) dof += cats - 1;
  }
  return { chi2, dof };
}

function pValue(hist: Uint32Array, channels: number, shift: 0 | 1): number | null {
  const { chi2, dof } = pairsOfValues(hist, channels, shift);
  return dof > 0 ? chiSquareSurvival(chi2, dof) : null;
}

export interface ChiSequence {
  /** prefix sizes in colour samples, the p-value of each on the pairs of values and on the
   *  shifted pairs (null: too few populated pairs) */
  prefixes: number[];
  p: Array<number | null>;
  pShifted: Array<number | null>;
  total: number;
}

/** Chi-square tests on growing raster-order prefixes of the colour samples: equal steps of at
 *  least minPrefixSamples, at most `steps` of them, the last being the whole image. */
export function chiSquareSequence(img: PixelImage, steps = CHI_DEFAULTS.steps, minPrefixSamples = CHI_DEFAULTS.minPrefixSamples): ChiSequence {
  const { data, width, height, channels: ch } = img;
  const cc = colourChannels(img);
  const pixels = width * height;
  const total = pixels * cc;
  const hist = new Uint32Array(cc * 256);
  const out: ChiSequence = { prefixes: [], p: [], pShifted: [], total };
  const stepPixels = Math.max(Math.ceil(minPrefixSamples / cc), Math.ceil(pixels / steps));
  let pix = 0;
  while (pix < pixels) {
    const upto = Math.min(pixels, pix + stepPixels);
    if (cc === 1) {
      for (let i = pix * ch, end = upto * ch; i < end; i += ch) hist[data[i]]++;
    } else {
      for (let i = pix * ch, end = upto * ch; i < end; i += ch) {
        hist[data[i]]++;
        hist[256 + data[i + 1]]++;
        hist[512 + data[i + 2]]++;
      }
    }
    pix = upto;
    out.prefixes.push(upto * cc);
    out.p.push(pValue(hist, cc, 0));
    out.pShifted.push(pValue(hist, cc, 1));
  }
  return out;
}

export function createChiSquare(options: ChiSquareOptions = {}): Steganalyser {
  const o = { ...CHI_DEFAULTS, ...options };
  return {
    method: 'chi_square',
    analyse(img: PixelImage): StegoEstimate {
      checkImage(img);
      const cc = colourChannels(img);
      if (img.width * img.height * cc < o.minPrefixSamples) {
        return noAnswer('chi_square', `too few colour samples (${img.width * img.height * cc} < ${o.minPrefixSamples})`);
      }
      const seq = chiSquareSequence(img, o.steps, o.minPrefixSamples);
      const last = seq.p.length - 1;
      const whole = seq.p[last];
      if (whole === null) return noAnswer('chi_square', 'too few populated pairs of values (image too flat)');
      const embedded = (i: number) => (seq.p[i] ?? 0) > o.pThreshold && (seq.pShifted[i] ?? 1) < o.shiftedMax;
      const notes = [`whole-image p = ${fmt(whole)}, shifted pairs p = ${fmt(seq.pShifted[last] ?? NaN)}`];
      let rate = 0;
      if (embedded(last)) {
        rate = 1;
        notes.push('pairs of values equalised over the whole image');
      } else if (embedded(0)) {
        // the run of prefixes whose pairs of values stay equalised; its end is the message end
        let run = 0;
        for (let i = 0; i < seq.p.length && (seq.p[i] ?? 0) > o.pThreshold; i++) run = seq.prefixes[i];
        rate = run / seq.total;
        notes.push(`pairs of values equalised on the first ${fmt(rate * 100, 1)} % of samples (raster order): sequential embedding`);
      }
      notes.push('rate assumes sequential embedding from the first sample; blind to sparse random-position embedding');
      return { method: 'chi_square', rate, score: whole, detected: rate > 0, notes };
    },
  };
}

export const chiSquare: Steganalyser = createChiSquare();
