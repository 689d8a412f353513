// Shapes and helpers shared by the manipulation forensics (ela.ts, noise.ts, keypoint-clone.ts).
//
// Every method works on the *analysed copy* of the picture (full resolution, or a copy
// downscaled for speed) and answers in that copy's pixels; the detector
// (detectors/manipulation.ts) scales regions back to the original picture.
import type { PixelImage } from '../steganalysis/types.ts';

/** One 8-bit grey plane, row-major (also the shape of every map a method draws). */
export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A rectangle in pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What each method returns: its figures, the map it drew (covering the analysed copy, at its
 *  size or on a coarser grid; null when there is nothing to show) and the regions it points at
 *  (analysed-copy pixels, strongest first). */
export interface ForensicOutcome<S> {
  stats: S;
  map: GreyImage | null;
  regions: Box[];
}

/** Luma (BT.601 weights) of 8-bit pixels; alpha is ignored, grey stays as it is. */
export function toGrey(img: PixelImage): GreyImage {
  const { data, width, height, channels } = img;
  const n = width * height;
  const out = new Uint8Array(n);
  if (channels < 3) {
    for (let i = 0, j = 0; i < n; i++, j += channels) out[i] = data[j];
  } else {
    for (let i = 0, j = 0; i < n; i++, j += channels) out[i] = (77 * data[j] + 150 * data[j + 1] + 29 * data[j + 2] + 128) >> 8;
  }
  return { data: out, width, height };
}

/** The p-th percentile (0..1) of a list of numbers (nearest rank); NaN for an empty list. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return NaN;
  const s = Float64Array.from(values).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** The p-th percentile (0..1) of the values counted in a histogram (index = value). */
export function histogramPercentile(hist: ArrayLike<number>, total: number, p: number): number {
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (let v = 0; v < hist.length; v++) {
    seen += hist[v];
    if (seen >= rank) return v;
  }
  return hist.length - 1;
}

/** Sums of `values` (w x h) over the whole blocks of a bs x bs grid (partial blocks at the right
 *  and bottom edges are left out). */
export function blockSums(values: ArrayLike<number>, w: number, h: number, bs: number): { sums: Float64Array; cols: number; rows: number } {
  const cols = Math.floor(w / bs);
  const rows = Math.floor(h / bs);
  const sums = new Float64Array(cols * rows);
  for (let y = 0; y < rows * bs; y++) {
    const r = Math.floor(y / bs) * cols;
    const row = y * w;
    for (let c = 0; c < cols; c++) {
      let s = 0;
      for (let x = c * bs, e = x + bs; x < e; x++) s += values[row + x];
      sums[r + c] += s;
    }
  }
  return { sums, cols, rows };
}

/** A connected group of marked cells of a grid (4-neighbourhood), with its bounding box in cells. */
export interface Component {
  cells: number;
  /** Indices of its cells in the grid. */
  members: number[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The connected groups of marked cells, largest first. */
export function components(mask: Uint8Array, cols: number, rows: number): Component[] {
  const seen = new Uint8Array(mask.length);
  const stack: number[] = [];
  const out: Component[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    const c: Component = { cells: 0, members: [], x0: cols, y0: rows, x1: -1, y1: -1 };
    seen[start] = 1;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop() as number;
      const x = i % cols;
      const y = (i - x) / cols;
      c.cells++;
      c.members.push(i);
      if (x < c.x0) c.x0 = x;
      if (x > c.x1) c.x1 = x;
      if (y < c.y0) c.y0 = y;
      if (y > c.y1) c.y1 = y;
      if (x > 0 && mask[i - 1] && !seen[i - 1]) (seen[i - 1] = 1), stack.push(i - 1);
      if (x < cols - 1 && mask[i + 1] && !seen[i + 1]) (seen[i + 1] = 1), stack.push(i + 1);
      if (y > 0 && mask[i - cols] && !seen[i - cols]) (seen[i - cols] = 1), stack.push(i - cols);
      if (y < rows - 1 && mask[i + cols] && !seen[i + cols]) (seen[i + cols] = 1), stack.push(i + cols);
    }
    out.push(c);
  }
  return out.sort((a, b) => b.cells - a.cells);
}

/** The pixel box of a group of cells of a bs x bs grid. */
export function componentBox(c: Component, bs: number): Box {
  return { x: c.x0 * bs, y: c.y0 * bs, width: (c.x1 - c.x0 + 1) * bs, height: (c.y1 - c.y0 + 1) * bs };
}

/** 3x3 median of a grey plane (edge pixels use the clamped neighbourhood). Each column's three
 *  values are sorted once per row; the median of the nine is then the median of (the largest
 *  of the three minima, the median of the three middles, the smallest of the three maxima).
 *  Branch-free min/max: on photo data the branches mispredict, and this runs twice as fast. */
export function median3(g: GreyImage): Uint8Array {
  const { data, width: w, height: h } = g;
  const out = new Uint8Array(w * h);
  const lo = new Int32Array(w + 2);
  const mid = new Int32Array(w + 2);
  const hi = new Int32Array(w + 2);
  for (let y = 0; y < h; y++) {
    const ym = (y > 0 ? y - 1 : 0) * w;
    const y0 = y * w;
    const yp = (y < h - 1 ? y + 1 : y) * w;
    for (let x = 0; x < w; x++) {
      const a = data[ym + x];
      const b = data[y0 + x];
      const c = data[yp + x];
      const mn = min2(a, b);
      const mx = max2(a, b);
      lo[x + 1] = min2(mn, c);
      hi[x + 1] = max2(mx, c);
      mid[x + 1] = max2(mn, min2(mx, c));
    }
    // clamped edges: the column outside is the edge column again
    lo[0] = lo[1];
    mid[0] = mid[1];
    hi[0] = hi[1];
    lo[w + 1] = lo[w];
    mid[w + 1] = mid[w];
    hi[w + 1] = hi[w];
    for (let x = 0; x < w; x++) {
      const maxLo = max2(max2(lo[x], lo[x + 1]), lo[x + 2]);
      const minHi = min2(min2(hi[x], hi[x + 1]), hi[x + 2]);
      const m0 = mid[x];
      const m1 = mid[x + 1];
      const medMid = max2(min2(m0, m1), min2(max2(m0, m1), mid[x + 2]));
      out[y0 + x] = max2(min2(maxLo, medMid), min2(max2(maxLo, medMid), minHi));
    }
  }
  return out;
}

// min and max of small integers without a branch: (a - b) >> 31 is -1 when a < b, else 0
function min2(a: number, b: number): number {
  const d = a - b;
  return b + (d & (d >> 31));
}
function max2(a: number, b: number): number {
  const d = a - b;
  return a - (d & (d >> 31));
}

/**
 * Each block's value over what blocks of similar texture show in the same picture: the usable
 * blocks are split into up to 20 equal-count bins by texture, each bin gives (median texture,
 * median value), and a block's expectation is interpolated linearly between bin centres
 * (clamped at the ends), never decreasing with texture. Texture explains most of a residual or a compression error; what it
 * does not explain is what these methods look for. Expectations are never taken below `floor`.
 * Unusable blocks get NaN.
 */
export function relativeToTexture(values: Float64Array, texture: Float64Array, usable: Uint8Array, floor: number): Float64Array {
  const idx: number[] = [];
  for (let b = 0; b < values.length; b++) if (usable[b]) idx.push(b);
  idx.sort((a, b) => texture[a] - texture[b]);
  const bins = Math.max(1, Math.min(20, Math.floor(idx.length / 16)));
  const centreT: number[] = [];
  const centreV: number[] = [];
  for (let k = 0; k < bins; k++) {
    const part = idx.slice(Math.floor((k * idx.length) / bins), Math.floor(((k + 1) * idx.length) / bins));
    if (part.length === 0) continue;
    const t = percentile(part.map((b) => texture[b]), 0.5);
    const v = percentile(part.map((b) => values[b]), 0.5);
    if (centreT.length && t <= centreT[centreT.length - 1]) {
      // equal textures (flat areas): one centre, the larger expectation
      centreV[centreV.length - 1] = Math.max(centreV[centreV.length - 1], v);
      continue;
    }
    centreT.push(t);
    centreV.push(v);
  }
  // more texture never explains less: the expectation may not fall as texture grows (a lone
  // smooth region - a pasted patch in a busy picture - otherwise sets its own expectation)
  for (let k = centreV.length - 2; k >= 0; k--) centreV[k] = Math.min(centreV[k], centreV[k + 1]);
  const out = new Float64Array(values.length).fill(NaN);
  for (const b of idx) {
    const t = texture[b];
    let e: number;
    if (centreT.length === 0) e = floor;
    else if (t <= centreT[0]) e = centreV[0];
    else if (t >= centreT[centreT.length - 1]) e = centreV[centreV.length - 1];
    else {
      let k = 1;
      while (centreT[k] < t) k++;
      const f = (t - centreT[k - 1]) / (centreT[k] - centreT[k - 1]);
      e = centreV[k - 1] + f * (centreV[k] - centreV[k - 1]);
    }
    out[b] = values[b] / Math.max(e, floor);
  }
  return out;
}
