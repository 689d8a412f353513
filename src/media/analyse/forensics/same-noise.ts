// Whether two areas that look alike share their noise. A copy's pixels are its source's pixels
// (resampled when it was turned or resized, then saved again), so the fine grain left once the
// picture's shapes are taken out (pixel minus the median of its 3 x 3 neighbourhood) is the
// same in both; two real things that look alike (the same word twice on a sign, two windows)
// were photographed through different sensor pixels and their grain is independent. Edges
// and fine texture are shapes, copied or not, and alike in both: only the grain of smooth
// pixels is compared.
import { median3, type GreyImage } from './common.ts';

/** The transform is fitted to keypoints and off by a pixel here and there, and grain one pixel
 *  off does not correlate: each TILE x TILE tile (source px) is aligned on its own first, by the
 *  shift within SEARCH px (SEARCH_STEP steps) under which its fine detail correlates best. */
const TILE = 24;
const SEARCH = 1;
const SEARCH_STEP = 0.25;
/** A tile is aligned when this many of its pixels are compared. */
const MIN_TILE_PIXELS = 96;
/** Smooth: the median-filtered picture changes by at most this much (grey levels) from one
 *  neighbour to the other, across and down; its fine detail is then grain, not shape. */
const SMOOTH = 16;
/** Fewer smooth pixels than this, or grain fainter than this (RMS, grey levels): no figure
 *  (NaN). Saving as JPEG adds its own error of about a grey level, different in the two areas:
 *  it drowns fainter grain (a smooth 256 px calibration picture: 0.57-0.69, its copies'
 *  grain correlating 0.23; the faintest grain a copy was told by there, 0.94). */
const MIN_SMOOTH_PIXELS = 200;
const MIN_GRAIN = 0.8;

/** Fine detail of a grey plane: each pixel minus the median of its 3 x 3 neighbourhood (the
 *  border keeps 0: its neighbourhood is clamped, not whole). */
export function fineDetail(grey: GreyImage): Float32Array {
  const { data, width: w, height: h } = grey;
  const med = median3(grey);
  const out = new Float32Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const o = y * w + x;
      out[o] = data[o] - med[o];
    }
  }
  return out;
}

/**
 * Correlation (-1..1) of the grain of the smooth pixels among `points` (source px) with the
 * grain where `matrix` maps them, each tile aligned on its own: a copy's is high (0.44 or more
 * for nearly every copy made on the calibration photos, turned, resized and saved as JPEG
 * q85-95), that of two real look-alikes low (0.28 for the word "Centre" twice on a sign).
 * NaN when it cannot tell: too few smooth pixels, or too faint a grain.
 */
export function sameNoise(detail: Float32Array, grey: GreyImage, matrix: number[], points: Array<[number, number]>): number {
  const { data, width: w, height: h } = grey;
  const [a, b, c, d, e, f] = matrix;
  const at = (tx: number, ty: number) => {
    const ix = Math.floor(tx);
    const iy = Math.floor(ty);
    const fx = tx - ix;
    const fy = ty - iy;
    const o = iy * w + ix;
    return (detail[o] * (1 - fx) + detail[o + 1] * fx) * (1 - fy) + (detail[o + w] * (1 - fx) + detail[o + w + 1] * fx) * fy;
  };
  const inside = (tx: number, ty: number) => tx >= 1 && ty >= 1 && tx < w - 2 && ty < h - 2;
  const tiles = new Map<number, Array<[number, number]>>();
  for (const p of points) {
    if (p[0] < 1 || p[1] < 1 || p[0] >= w - 1 || p[1] >= h - 1) continue;
    const key = Math.floor(p[1] / TILE) * 65536 + Math.floor(p[0] / TILE);
    let list = tiles.get(key);
    if (!list) tiles.set(key, (list = []));
    list.push(p);
  }
  const smooth = new Pearson();
  const steps = Math.round(SEARCH / SEARCH_STEP);
  for (const list of tiles.values()) {
    if (list.length < MIN_TILE_PIXELS) continue;
    let best = -Infinity;
    let shift: [number, number] | null = null;
    for (let sy = -steps; sy <= steps; sy++) {
      for (let sx = -steps; sx <= steps; sx++) {
        const r = new Pearson();
        for (const [x, y] of list) {
          const tx = a * x + b * y + c + sx * SEARCH_STEP;
          const ty = d * x + e * y + f + sy * SEARCH_STEP;
          if (inside(tx, ty)) r.add(detail[y * w + x], at(tx, ty));
        }
        const v = r.n >= MIN_TILE_PIXELS ? r.value() : NaN;
        if (v > best) {
          best = v;
          shift = [sx * SEARCH_STEP, sy * SEARCH_STEP];
        }
      }
    }
    if (!shift) continue;
    const med = (o: number) => data[o] - detail[o];
    for (const [x, y] of list) {
      const o = y * w + x;
      if (Math.max(Math.abs(med(o + 1) - med(o - 1)), Math.abs(med(o + w) - med(o - w))) > SMOOTH) continue;
      const tx = a * x + b * y + c + shift[0];
      const ty = d * x + e * y + f + shift[1];
      if (inside(tx, ty)) smooth.add(detail[o], at(tx, ty));
    }
  }
  return smooth.n >= MIN_SMOOTH_PIXELS && smooth.spread() >= MIN_GRAIN ? smooth.value() : NaN;
}

/** Running Pearson correlation of pairs of values. */
class Pearson {
  n = 0;
  private s = 0;
  private t = 0;
  private ss = 0;
  private tt = 0;
  private st = 0;
  add(u: number, v: number): void {
    this.n++;
    this.s += u;
    this.t += v;
    this.ss += u * u;
    this.tt += v * v;
    this.st += u * v;
  }
  /** Standard deviation of the first values. */
  spread(): number {
    return Math.sqrt(Math.max(0, this.ss / this.n - (this.s / this.n) ** 2));
  }
  /** NaN when either side is constant. */
  value(): number {
    const n = this.n;
    const vs = this.ss / n - (this.s / n) ** 2;
    const vt = this.tt / n - (this.t / n) ** 2;
    return vs > 1e-9 && vt > 1e-9 ? (this.st / n - (this.s / n) * (this.t / n)) / Math.sqrt(vs * vt) : NaN;
  }
}
