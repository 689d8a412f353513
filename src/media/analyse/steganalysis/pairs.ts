// Histogram pairs: what LSB replacement must do to the pairs of values (2k, 2k+1) of each
// colour channel. Replacing the LSB of a share p of the samples moves each of them to the other
// value of its pair with probability 1/2, so afterwards the smaller side of every pair holds at
// least p/2 of the pair's samples. Two readings follow, both from counts alone:
// - the *bound*: no pair can have its smaller side below p/2 of its samples, so the smallest
//   ratio 2 x smaller / pair (with a 4-sigma allowance for counting noise) bounds the rate of
//   any LSB replacement from above. Screenshots, drawings, stretched astronomy photos and
//   flat skies have pairs with one side (nearly) empty: there RS and SPA may read 0.05-0.4 from
//   their content, but a payload that large would have filled those pairs.
// - the *floor*: in a picture whose histogram has such one-sided pairs, embedding lifts every
//   one of them to the same ratio p, within counting noise. Several large pairs sitting
//   together on one low ratio is the payload's own trace, and it is read where RS and SPA have
//   no answer (flat and palette-like pictures). In a photo with a smooth histogram no pair is
//   one-sided: the floor is high (0.1-1) and says nothing.
// Calibration (bench/accuracy, calibration half of the outside corpus): clean pictures' floors
// were 0-0.021 or above 0.1; naive LSB replacement at 0.1 bpp (0.033 per sample) put them at
// 0.015-0.035.
// A channel whose pair holds the very counts of an earlier channel's (a grey picture, or a grey
// area, stored as RGB) is the same reading again: it bounds, but it is not another pair on the
// floor (a clipping spike of a grey telescope frame read as 3 pairs and a D in round 2).
// Known limits (held-out half, docs/design.md, Accuracy): a picture whose own histogram has steep
// one-sided pairs (a black clipping spike, a stretched telescope sky) can read a floor with no
// payload (3 of 256 clean pictures): the verdict (index.ts) sets such a floor aside when WS and
// the RS/SPA mean both read under a third of it; and an embedder that leaves flat areas alone
// (stegosuite) keeps their pairs one-sided, so the bound holds a real payload's estimate down.
import { checkImage, colourChannels, fmt } from './common.ts';
import type { PixelImage, Steganalyser, StegoEstimate } from './types.ts';

/** Pairs with fewer samples than this are too noisy to read. */
const MIN_PAIR = 400;
/** Counting-noise allowance on the bound, in standard deviations. */
const BOUND_SIGMAS = 4;
/** A pair joins the floor while its ratio is within this many standard deviations of it. */
const FLOOR_SIGMAS = 3;
/** The floor says something when at least this many pairs, holding at least this share of the
 *  colour samples, sit on it, and it is below FLOOR_MAX (above, pairs are naturally balanced). */
const FLOOR_PAIRS = 3;
const FLOOR_SHARE = 0.01;
const FLOOR_MAX = 0.25;
/** Per-sample rate above which a floor counts as a payload (0.075 bpp in RGB). */
export const FLOOR_THRESHOLD = 0.025;

export interface PairReading {
  /** upper bound on any LSB-replacement rate, per sample (Infinity without a large pair) */
  bound: number;
  /** the rate the lowest pairs agree on, per sample; null when it says nothing (too few such
   *  pairs, or pairs naturally balanced) */
  floor: number | null;
  /** pairs on the floor, and their share of the colour samples */
  floorPairs: number;
  floorShare: number;
}

export function histogramPairs(img: PixelImage): PairReading {
  checkImage(img);
  const { data, channels, only } = img;
  const cc = colourChannels(img);
  const hist = new Float64Array(256 * cc);
  for (let i = 0, px = 0; i < data.length; i += channels, px++) {
    if (only && !only[px]) continue;
    for (let c = 0; c < cc; c++) hist[c * 256 + data[i + c]]++;
  }
  const pairs: Array<{ small: number; n: number; ratio: number }> = [];
  let bound = Infinity;
  for (let c = 0; c < cc; c++) {
    for (let k = 0; k < 128; k++) {
      const a = hist[c * 256 + 2 * k];
      const b = hist[c * 256 + 2 * k + 1];
      const n = a + b;
      if (n < MIN_PAIR) continue;
      const small = Math.min(a, b);
      bound = Math.min(bound, (2 * (small + BOUND_SIGMAS * Math.sqrt(Math.max(small, 1)))) / n);
      // a channel holding the very counts of an earlier one (a grey picture stored as RGB) is
      // the same reading again, not a second pair on the floor
      if (!sameAsEarlierChannel(hist, c, k)) pairs.push({ small, n, ratio: (2 * small) / n });
    }
  }
  if (pairs.length < FLOOR_PAIRS) return { bound, floor: null, floorPairs: 0, floorShare: 0 };
  pairs.sort((x, y) => x.ratio - y.ratio);
  // grow the floor from the lowest pair while the next one is consistent with the pooled ratio
  let small = 0;
  let n = 0;
  let k = 0;
  for (const p of pairs) {
    const q = n ? (2 * small) / n : p.ratio;
    const sd = 2 * Math.sqrt((Math.max(q / 2, 0.5 / p.n) * (1 - q / 2)) / p.n);
    if (n && p.ratio > q + FLOOR_SIGMAS * sd) break;
    small += p.small;
    n += p.n;
    k++;
  }
  const floor = (2 * small) / n;
  let counted = 0;
  for (let c = 0; c < cc; c++) for (let v = 0; v < 256; v++) counted += hist[c * 256 + v];
  const floorShare = n / counted;
  const says = k >= FLOOR_PAIRS && floorShare >= FLOOR_SHARE && floor < FLOOR_MAX;
  return { bound, floor: says ? floor : null, floorPairs: k, floorShare };
}

function sameAsEarlierChannel(hist: Float64Array, c: number, k: number): boolean {
  for (let d = 0; d < c; d++) if (hist[d * 256 + 2 * k] === hist[c * 256 + 2 * k] && hist[d * 256 + 2 * k + 1] === hist[c * 256 + 2 * k + 1]) return true;
  return false;
}

export function createHistogramPairs(): Steganalyser {
  return {
    method: 'histogram_pairs',
    analyse(img: PixelImage): StegoEstimate {
      const r = histogramPairs(img);
      const notes = [`bound ${Number.isFinite(r.bound) ? fmt(r.bound) : 'none'} per sample`];
      if (r.floor === null) {
        notes.push('no floor: the histogram has too few one-sided pairs of values to read a payload from');
        return { method: 'histogram_pairs', rate: null, score: Number.isFinite(r.bound) ? r.bound : null, detected: null, notes };
      }
      notes.push(`${r.floorPairs} pairs of values (${fmt(100 * r.floorShare, 1)} % of the samples) agree on a ratio of ${fmt(r.floor)}`);
      return { method: 'histogram_pairs', rate: r.floor, score: r.bound, detected: r.floor > FLOOR_THRESHOLD, floorShare: r.floorShare, notes };
    },
  };
}

export const histogramPairsAnalyser = createHistogramPairs();
