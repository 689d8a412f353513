// Copy-move (clone) detection by keypoints, after Amerini et al. 2011 (SIFT-based copy-move
// detection) and the benchmark of Christlein et al. 2012: a copy that was rotated or scaled
// before it was pasted no longer matches block for block (the block matching this replaced),
// but its keypoints do.
// - ORB keypoints and descriptors (OpenCV, opencv.ts) of the grey copy: corners found at 8
//   scales, each with its orientation, so a rotated or scaled copy has the same descriptors;
// - each keypoint is matched to its nearest neighbours in the SAME picture (itself and those
//   within MIN_DISTANCE px left out: a corner is found again at the next scale) and a match is
//   kept by the generalised ratio test (g2NN): a neighbour counts while it is clearly nearer
//   than the next one;
// - matched pairs are grouped (two pairs belong together when both their ends are near each
//   other), and each group's pairs fit one affine transform with RANSAC;
// - a clone is kept when enough pairs agree on a transform that is a plausible copy (a
//   similarity: rotation, scale within SCALE_RANGE, little shear, no mirror) that moves the
//   area away from itself, when the two areas correlate pixel for pixel once one is mapped
//   onto the other (dense check: coincidental keypoint matches do not), when it stands out
//   from the weaker candidates of the picture (a scene full of alike things), and when the two
//   areas share their grain (same-noise.ts): the same thing twice in a scene (a word on two
//   lines of a sign, two alike signs) passes every check before, since its pixels are alike,
//   but it was photographed twice, through different sensor pixels; a copy's grain is its
//   source's, resampled.
import { throwIfAborted } from '../../errors.ts';
import type { Box, ForensicOutcome, GreyImage } from './common.ts';
import { hammingNeighbours } from './hamming-neighbours.ts';
import { openCv, type CvMat, type OpenCv } from './opencv.ts';
import { fineDetail, sameNoise } from './same-noise.ts';

/** ORB settings: keypoints wanted, FAST corner threshold (low: textured but soft areas count). */
const FEATURES = 25000;
const FAST_THRESHOLD = 4;
/** Neighbours looked at per keypoint. */
const NEIGHBOURS = 4;
/** Hamming distance of two unrelated ORB descriptors, for the ratio test of a keypoint whose
 *  hashing found no further neighbour. */
const UNRELATED = 100;
/** g2NN: a neighbour is kept while its distance is below RATIO x the next one's... */
const RATIO = 0.8;
/** ...and below this Hamming distance (of 256 bits). */
const MAX_HAMMING = 64;
/** Two keypoints nearer than this (analysed-copy px) are the same place, not a copy. */
const MIN_DISTANCE = 24;
/** Pairs whose two ends are both within this of another pair's are grouped with it. */
const LINK = 40;
/** Transforms fitted, one after the other, per group of pairs. */
const FITS_PER_GROUP = 4;
/** A clone needs at least this many pairs agreeing on one transform (RANSAC inliers); on the
 *  calibration photos, untouched ones gave weak candidates of up to 24, copies 31 or more. */
export const MIN_MATCHES = 28;
/** Weaker candidates (from this many pairs) are not reported, but they count in the background
 *  a copy must stand out from (below). */
const MIN_CANDIDATE = 10;
/** RANSAC: a pair agrees when the transform maps one end within this of the other (px). */
const REPROJECTION = 3;
/** A plausible copy: scale within this range, the two singular values of the linear part
 *  within MAX_SHEAR of each other, and the copy at least MIN_SHIFT px from its source. */
const SCALE_RANGE: [number, number] = [0.5, 2];
const MAX_SHEAR = 1.25;
const MIN_SHIFT = 32;
/** Dense check: zero-mean normalised cross-correlation of the two areas over WINDOW x WINDOW
 *  windows (textured pixels only), and the share of the inliers' surroundings it must reach. */
const WINDOW = 9;
const MIN_TEXTURE_STD = 3;
const MIN_CORRELATION = 0.6;
const MIN_CORRELATED_SHARE = 0.5;
/** A pattern that correlates this much one period further on (or back) repeats: not a copy. */
const MAX_REPEAT_SHARE = 0.5;
/** A clone must have STAND_OUT x the matches of the BACKGROUND_RANK-th strongest candidate. */
const STAND_OUT = 3;
const BACKGROUND_RANK = 3;
/** A clone's two areas must share their grain (same-noise.ts) at least this much: on the
 *  calibration photos, copies made there measured 0.44 or more but for two (0.23, 0.31), the
 *  word "Centre" twice on a sign (no copy) 0.28: the bar is midway between 0.31 and 0.44. */
const MIN_SAME_NOISE = 0.38;

export interface KeypointClone {
  /** The two areas (analysed-copy px): the source's pixels that correlate with the copy once
   *  mapped, and where they map to. */
  from: Box;
  to: Box;
  /** to = matrix x from: [a, b, c, d, e, f] for x' = a x + b y + c, y' = d x + e y + f. */
  matrix: number[];
  rotation_deg: number;
  scale: number;
  /** From the centre of the first side's matched keypoints to the second's (analysed-copy px). */
  dx: number;
  dy: number;
  /** Keypoint pairs that agree on the transform. */
  matches: number;
  /** Share of the area around the matched keypoints that correlates once mapped (0..1). */
  correlated: number;
  /** Correlation of the two areas' grain (same-noise.ts; NaN: it cannot tell). */
  same_noise: number;
}

export interface KeypointStats {
  keypoints: number;
  /** Pairs kept by the ratio test, before grouping. */
  pairs: number;
  clones: KeypointClone[];
}

interface Pair {
  ax: number;
  ay: number;
  bx: number;
  by: number;
}

/** Keypoint copy-move on a grey plane; the map marks the correlated areas (white on black). */
export async function keypointClones(grey: GreyImage, signal?: AbortSignal): Promise<ForensicOutcome<KeypointStats>> {
  const { keypoints, pairs, candidates } = await keypointCandidates(grey, signal);
  // a scene full of alike things (a patterned fabric, a facade) gives many weak candidates; a
  // copy stands out from them
  const background = candidates.length >= BACKGROUND_RANK ? candidates[BACKGROUND_RANK - 1].clone.matches : 0;
  const clones: KeypointClone[] = [];
  const map = new Uint8Array(grey.width * grey.height);
  let detail: Float32Array | null = null;
  for (const { clone, hits } of candidates) {
    if (clone.matches < MIN_MATCHES || clone.matches < STAND_OUT * background) continue;
    // two real things that look alike (a word twice on a sign) match pixel for pixel too, but
    // their grain differs: a copy's does not (too few smooth pixels or too faint a grain to
    // tell: kept)
    detail ??= fineDetail(grey);
    const same = sameNoise(detail, grey, clone.matrix, hits);
    if (same < MIN_SAME_NOISE) continue;
    clones.push({ ...clone, same_noise: Math.round(same * 1000) / 1000, ...mark(map, grey, clone.matrix, hits) });
    throwIfAborted(signal);
  }
  const stats = { keypoints, pairs, clones };
  if (!clones.length) return { stats, map: null, regions: [] };
  return { stats, map: { data: map, width: grey.width, height: grey.height }, regions: clones.flatMap((c) => [c.from, c.to]) };
}

/** Every plausible copy whose two areas correlate pixel for pixel, most matches first, with the
 *  correlated pixels of the wider area (before the background and grain are looked at). */
export async function keypointCandidates(grey: GreyImage, signal?: AbortSignal): Promise<{ keypoints: number; pairs: number; candidates: Array<{ clone: KeypointClone; hits: Array<[number, number]> }> }> {
  const cv = await openCv();
  throwIfAborted(signal);
  const { pts, pairs } = matchPairs(cv, grey);
  throwIfAborted(signal);
  const candidates: Array<{ clone: KeypointClone; hits: Array<[number, number]> }> = [];
  for (const g of group(pairs)) {
    // a group may hold a copy and other matches chained to it: transforms are fitted one after
    // the other, each on the pairs the ones before did not explain
    let rest = g;
    for (let attempt = 0; attempt < FITS_PER_GROUP && rest.length >= MIN_CANDIDATE; attempt++) {
      const fit = fitAffine(cv, rest);
      if (!fit) break;
      const used = new Set(fit.inliers);
      rest = rest.filter((p) => !used.has(p));
      const candidate = check(grey, fit.matrix, fit.inliers);
      if (candidate) candidates.push(candidate);
    }
    throwIfAborted(signal);
  }
  candidates.sort((p, q) => q.clone.matches - p.clone.matches);
  return { keypoints: pts, pairs: pairs.length, candidates };
}

/** The copy a fitted transform describes, when it is plausible and the two areas correlate. */
function check(grey: GreyImage, matrix: number[], inliers: Pair[]): { clone: KeypointClone; hits: Array<[number, number]> } | null {
  const clone = plausible(matrix, inliers);
  if (!clone) return null;
  const area = grow(clone.from, WINDOW, grey);
  const dense = correlate(grey, clone.matrix, area);
  if (dense.share < MIN_CORRELATED_SHARE) return null;
  // a repeating pattern (a fence, windows, tiles) is alike one period further on, or one
  // period back, too: a copy is not
  const again = Math.max(correlate(grey, compose(clone.matrix, clone.matrix), area).share, correlate(grey, invert(clone.matrix), area).share);
  if (again >= MAX_REPEAT_SHARE) return null;
  // the copy reaches beyond its keypoints: the map and the areas are drawn from the correlated
  // pixels of a wider area (half the keypoints' box again on each side)
  const wide = correlate(grey, clone.matrix, grow(clone.from, Math.max(WINDOW, Math.max(clone.from.width, clone.from.height) / 2), grey));
  return { clone: { ...clone, correlated: Math.round(dense.share * 1000) / 1000, same_noise: NaN }, hits: wide.hits };
}

/** Keypoints of the picture matched against themselves: pairs kept by the g2NN test. */
function matchPairs(cv: OpenCv, grey: GreyImage): { pts: number; pairs: Pair[] } {
  const img = new cv.Mat(grey.height, grey.width, cv.CV_8UC1);
  const none = new cv.Mat();
  const kps = new cv.KeyPointVector();
  const desc = new cv.Mat();
  const orb = new cv.ORB(FEATURES, 1.2, 8, 31, 0, 2, cv.ORB_HARRIS_SCORE, 31, FAST_THRESHOLD);
  try {
    img.data.set(grey.data);
    orb.detectAndCompute(img, none, kps, desc);
    const n = kps.size();
    if (n < 2 || desc.cols !== 32) return { pts: n, pairs: [] };
    const xs = new Float64Array(n);
    const ys = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const p = kps.get(i).pt;
      xs[i] = p.x;
      ys[i] = p.y;
    }
    const far = (i: number, j: number) => (xs[j] - xs[i]) ** 2 + (ys[j] - ys[i]) ** 2 >= MIN_DISTANCE * MIN_DISTANCE;
    const neighbours = hammingNeighbours(desc.data, 32, NEIGHBOURS, far);
    const seen = new Set<number>();
    const pairs: Pair[] = [];
    for (let i = 0; i < n; i++) {
      const list = neighbours[i];
      // g2NN: keep the neighbours before the first clear jump in distance; a neighbour with no
      // next one found is compared with an unrelated descriptor's distance
      for (let k = 0; k < list.length; k++) {
        const { j, d } = list[k];
        const next = k + 1 < list.length ? list[k + 1].d : list.length < NEIGHBOURS ? UNRELATED : 0;
        if (d > MAX_HAMMING || d >= RATIO * next) break;
        const key = i < j ? i * n + j : j * n + i;
        if (seen.has(key)) continue;
        seen.add(key);
        pairs.push({ ax: xs[i], ay: ys[i], bx: xs[j], by: ys[j] });
      }
    }
    return { pts: n, pairs };
  } finally {
    for (const o of [img, none, kps, desc, orb]) o.delete();
  }
}

/** Groups of pairs whose ends lie near each other's (single linkage), each group oriented so
 *  that its pairs all go from one area to the other. */
function group(pairs: Pair[]): Pair[][] {
  const n = pairs.length;
  const near = (x0: number, y0: number, x1: number, y1: number) => Math.abs(x0 - x1) < LINK && Math.abs(y0 - y1) < LINK;
  // flip[i]: pair i is taken b -> a, relative to the first pair of its group
  const groupOf = new Int32Array(n).fill(-1);
  const flip = new Uint8Array(n);
  const groups: Pair[][] = [];
  for (let s = 0; s < n; s++) {
    if (groupOf[s] >= 0) continue;
    const id = groups.length;
    const members = [s];
    groupOf[s] = id;
    for (let q = 0; q < members.length; q++) {
      const i = members[q];
      const p = pairs[i];
      const [ax, ay, bx, by] = flip[i] ? [p.bx, p.by, p.ax, p.ay] : [p.ax, p.ay, p.bx, p.by];
      for (let j = 0; j < n; j++) {
        if (groupOf[j] >= 0) continue;
        const o = pairs[j];
        if (near(ax, ay, o.ax, o.ay) && near(bx, by, o.bx, o.by)) flip[j] = 0;
        else if (near(ax, ay, o.bx, o.by) && near(bx, by, o.ax, o.ay)) flip[j] = 1;
        else continue;
        groupOf[j] = id;
        members.push(j);
      }
    }
    groups.push(members.map((i) => (flip[i] ? { ax: pairs[i].bx, ay: pairs[i].by, bx: pairs[i].ax, by: pairs[i].ay } : pairs[i])));
  }
  return groups.sort((p, q) => q.length - p.length);
}

/** The affine transform most pairs agree on (RANSAC), with the pairs that agree. */
function fitAffine(cv: OpenCv, pairs: Pair[]): { matrix: number[]; inliers: Pair[] } | null {
  const from = cv.matFromArray(pairs.length, 1, cv.CV_32FC2, pairs.flatMap((p) => [p.ax, p.ay]));
  const to = cv.matFromArray(pairs.length, 1, cv.CV_32FC2, pairs.flatMap((p) => [p.bx, p.by]));
  const mask = new cv.Mat();
  let m: CvMat | null = null;
  try {
    m = cv.estimateAffine2D(from, to, mask, cv.RANSAC, REPROJECTION, 4000, 0.995, 10);
    if (m.rows !== 2 || m.cols !== 3) return null;
    const matrix = Array.from(m.data64F);
    const inliers = pairs.filter((_, i) => mask.data[i]);
    return inliers.length >= MIN_CANDIDATE ? { matrix, inliers } : null;
  } finally {
    for (const o of [from, to, mask, m]) o?.delete();
  }
}

/** The clone a transform describes, when it is a plausible copy. */
function plausible(matrix: number[], inliers: Pair[]): Omit<KeypointClone, 'correlated' | 'same_noise'> | null {
  const [a, b, , d, e] = matrix;
  const det = a * e - b * d;
  if (det <= 0) return null; // a mirror image: ORB descriptors do not survive one
  // singular values of [[a, b], [d, e]]
  const s1 = Math.hypot(a + e, d - b) / 2;
  const s2 = Math.hypot(a - e, d + b) / 2;
  const big = s1 + s2;
  const small = Math.abs(s1 - s2);
  if (small <= 0 || big / small > MAX_SHEAR) return null;
  const scale = Math.sqrt(det);
  if (scale < SCALE_RANGE[0] || scale > SCALE_RANGE[1]) return null;
  const from = bounds(inliers.map((p) => [p.ax, p.ay]));
  const to = bounds(inliers.map((p) => [p.bx, p.by]));
  const dx = to.x + to.width / 2 - (from.x + from.width / 2);
  const dy = to.y + to.height / 2 - (from.y + from.height / 2);
  if (Math.hypot(dx, dy) < MIN_SHIFT || overlap(from, to)) return null;
  const rotation = (Math.atan2(d - b, a + e) * 180) / Math.PI;
  return { from, to, matrix, rotation_deg: Math.round(rotation * 10) / 10, scale: Math.round(scale * 1000) / 1000, dx: Math.round(dx), dy: Math.round(dy), matches: inliers.length };
}

/**
 * Share of the textured pixels of `area` that correlate (ZNCC over WINDOW x WINDOW >=
 * MIN_CORRELATION) with the picture at the positions the transform maps them to, and those
 * pixels.
 */
function correlate(grey: GreyImage, matrix: number[], area: Box): { share: number; hits: Array<[number, number]> } {
  const { data, width: w, height: h } = grey;
  const [a, b, c, d, e, f] = matrix;
  const { x: x0, y: y0, width: bw, height: bh } = area;
  if (bw < WINDOW || bh < WINDOW) return { share: 0, hits: [] };
  // the area and the picture sampled at the mapped positions (bilinear); `inside` where mapped in
  const src = new Float64Array(bw * bh);
  const dst = new Float64Array(bw * bh);
  const inside = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const px = x0 + x;
      const py = y0 + y;
      const tx = a * px + b * py + c;
      const ty = d * px + e * py + f;
      const i = y * bw + x;
      src[i] = data[py * w + px];
      if (tx < 0 || ty < 0 || tx >= w - 1 || ty >= h - 1) continue;
      const ix = Math.floor(tx);
      const iy = Math.floor(ty);
      const fx = tx - ix;
      const fy = ty - iy;
      const o = iy * w + ix;
      dst[i] = (data[o] * (1 - fx) + data[o + 1] * fx) * (1 - fy) + (data[o + w] * (1 - fx) + data[o + w + 1] * fx) * fy;
      inside[i] = 1;
    }
  }
  // windowed sums through integral images
  const W = bw + 1;
  const sums = [src, dst, src.map((v) => v * v), dst.map((v) => v * v), src.map((v, i) => v * dst[i])].map((plane) => {
    const t = new Float64Array(W * (bh + 1));
    for (let y = 0; y < bh; y++) {
      let row = 0;
      for (let x = 0; x < bw; x++) {
        row += plane[y * bw + x];
        t[(y + 1) * W + x + 1] = t[y * W + x + 1] + row;
      }
    }
    return t;
  });
  const box = (t: Float64Array, x: number, y: number) => t[(y + WINDOW) * W + x + WINDOW] - t[y * W + x + WINDOW] - t[(y + WINDOW) * W + x] + t[y * W + x];
  const n = WINDOW * WINDOW;
  const r = WINDOW >> 1;
  let textured = 0;
  const hits: Array<[number, number]> = [];
  for (let y = 0; y + WINDOW <= bh; y++) {
    for (let x = 0; x + WINDOW <= bw; x++) {
      const cx = x + r;
      const cy = y + r;
      if (!inside[cy * bw + cx]) continue;
      const [s, t, ss, tt, st] = sums.map((p) => box(p, x, y));
      const vs = ss / n - (s / n) ** 2;
      const vt = tt / n - (t / n) ** 2;
      if (vs < MIN_TEXTURE_STD ** 2 || vt < MIN_TEXTURE_STD ** 2) continue;
      textured++;
      const ncc = (st / n - (s / n) * (t / n)) / Math.sqrt(vs * vt);
      if (ncc >= MIN_CORRELATION) hits.push([x0 + cx, y0 + cy]);
    }
  }
  return { share: textured ? hits.length / textured : 0, hits };
}

/** Marks the correlated windows and their mapped positions on the map; their boxes. */
function mark(map: Uint8Array, grey: GreyImage, matrix: number[], hits: Array<[number, number]>): { from: Box; to: Box } {
  const { width: w, height: h } = grey;
  const [a, b, c, d, e, f] = matrix;
  const r = WINDOW >> 1;
  const dot = (px: number, py: number) => {
    for (let y = Math.max(0, py - r); y <= Math.min(h - 1, py + r); y++) map.fill(255, y * w + Math.max(0, px - r), y * w + Math.min(w, px + r + 1));
  };
  const mapped = hits.map(([px, py]) => [Math.max(0, Math.min(w - 1, a * px + b * py + c)), Math.max(0, Math.min(h - 1, d * px + e * py + f))]);
  for (const [px, py] of hits) dot(px, py);
  for (const [px, py] of mapped) dot(Math.round(px), Math.round(py));
  return { from: bounds(hits), to: bounds(mapped) };
}

/** p after q, as [a, b, c, d, e, f] affine matrices. */
function compose(p: number[], q: number[]): number[] {
  const [a, b, c, d, e, f] = p;
  const [A, B, C, D, E, F] = q;
  return [a * A + b * D, a * B + b * E, a * C + b * F + c, d * A + e * D, d * B + e * E, d * C + e * F + f];
}

function invert(m: number[]): number[] {
  const [a, b, c, d, e, f] = m;
  const det = a * e - b * d;
  const ia = e / det;
  const ib = -b / det;
  const id = -d / det;
  const ie = a / det;
  return [ia, ib, -(ia * c + ib * f), id, ie, -(id * c + ie * f)];
}

/** The box grown by `by` on every side, within the picture. */
function grow(box: Box, by: number, grey: GreyImage): Box {
  const x = Math.max(0, Math.floor(box.x - by));
  const y = Math.max(0, Math.floor(box.y - by));
  return { x, y, width: Math.min(grey.width, Math.ceil(box.x + box.width + by)) - x, height: Math.min(grey.height, Math.ceil(box.y + box.height + by)) - y };
}

function bounds(points: number[][]): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of points) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return { x: Math.round(x0), y: Math.round(y0), width: Math.max(1, Math.round(x1 - x0)), height: Math.max(1, Math.round(y1 - y0)) };
}

function overlap(p: Box, q: Box): boolean {
  return p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height;
}
