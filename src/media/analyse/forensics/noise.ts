// Noise residual: the grey image minus its 3x3 median is mostly sensor and compression noise
// on smooth areas, and texture on detailed ones. The map shows its local mean. The figures
// compare each block's residual with that of blocks of like texture in the same picture
// (relativeToTexture in common.ts): a region pasted from another picture often carries another
// camera's, ISO's or processing's noise, and stands out against areas of the same texture.
import { blockSums, componentBox, components, median3, percentile, relativeToTexture, type ForensicOutcome, type GreyImage } from './common.ts';

/** The map is computed on MAP_CELL x MAP_CELL cells (each grid value: the mean |residual| over
 *  the 3x3 cells around it, a 24 px window), and the detector resizes it to the picture. */
export const MAP_CELL = 8;
/** The map's one scaling rule, the same for every image: grey = min(255, 64 x log2(1 + r)) where
 *  r is the local mean |residual| in levels: 0.5 -> 37, 1 -> 64, 3 -> 128, 7 -> 192, 15 or
 *  more -> 255 (logarithmic, so that both a smooth sky's noise and a meadow's texture stay
 *  readable). */
const LUT_STEP = 16;
const LUT = Uint8Array.from({ length: 256 * LUT_STEP + 1 }, (_, i) => Math.min(255, Math.round(64 * Math.log2(1 + i / LUT_STEP))));
/** A block is strongly inconsistent when its residual (averaged in log with its neighbours')
 *  is this many times that of blocks of like texture in the same picture. */
const INCONSISTENT_FACTOR = 2.5;
/** Regions are the connected groups of blocks at 1.5x or more (log2 here) covering 0.2% of the
 *  picture or more; a region's ratio is the median of its blocks'. The strongest region of 7
 *  untouched photos measured 2.4x at most at full size and 2.7x on 1024 px copies; a sky crop
 *  with Gaussian noise of sigma 5 pasted into a clean picture 3.3x (2.6x at 1024 px), sigma 8
 *  7.1x (3.5x). */
const REGION_LOG2 = Math.log2(1.5);
/** Expectations are never taken below this (levels of mean |residual|): flat or heavily
 *  compressed areas measure ~0, and anything would be "noisier" than that. */
const NOISE_FLOOR = 0.5;
/** For the `median` figure: blocks whose 4x4 cell means differ from their neighbours' by less
 *  than this (levels, on average) are smooth; their residual is mostly noise. */
const SMOOTH_LIMIT = 4;

export interface NoiseStats {
  /** The picture's noise level: median mean |grey - median3| of its smooth blocks, in levels. */
  median: number;
  /** Share of the usable blocks at INCONSISTENT_FACTOR x or more of their like. */
  inconsistent_share: number;
  /** Share of the picture covered by the strongest region (0 without one). */
  region_share: number;
  /** That region's residual over that of like-textured blocks (0 without one). */
  region_ratio: number;
  /** Share of the blocks usable (not clipped to black or white, which cuts noise off). */
  measured_share: number;
  /** Block side, in analysed-copy pixels. */
  block: number;
}

/** Noise residual of a grey plane, figures on blocks of side `block` (a multiple of MAP_CELL).
 *  The map is on the MAP_CELL grid (floor(width / MAP_CELL) x floor(height / MAP_CELL)). */
export function noiseResidual(grey: GreyImage, block: number): ForensicOutcome<NoiseStats> {
  const { data, width: w, height: h } = grey;
  const med = median3(grey);
  const gw = Math.floor(w / MAP_CELL);
  const gh = Math.floor(h / MAP_CELL);
  // residual sums per MAP_CELL cell (pixels past the last whole cell are left out)
  const cellSum = new Float64Array(gw * gh);
  const colOf = new Int32Array(w).fill(-1);
  for (let x = 0; x < gw * MAP_CELL; x++) colOf[x] = Math.floor(x / MAP_CELL);
  for (let y = 0; y < gh * MAP_CELL; y++) {
    const row = Math.floor(y / MAP_CELL) * gw;
    for (let x = 0, i = y * w; x < gw * MAP_CELL; x++, i++) {
      const d = data[i] - med[i];
      cellSum[row + colOf[x]] += d < 0 ? -d : d;
    }
  }

  // the map: mean over the 3x3 cells around each cell
  const map = new Uint8Array(gw * gh);
  const cellArea = MAP_CELL * MAP_CELL;
  for (let cy = 0; cy < gh; cy++) {
    for (let cx = 0; cx < gw; cx++) {
      let s = 0;
      let k = 0;
      for (let j = Math.max(0, cy - 1); j <= Math.min(gh - 1, cy + 1); j++) {
        for (let i = Math.max(0, cx - 1); i <= Math.min(gw - 1, cx + 1); i++) (s += cellSum[j * gw + i]), k++;
      }
      map[cy * gw + cx] = LUT[Math.min(256 * LUT_STEP, Math.round((s / (k * cellArea)) * LUT_STEP))];
    }
  }

  // per block: residual, texture (from 4x4 cell means) and clipping
  const per = block / MAP_CELL;
  const cols = Math.floor(gw / per);
  const rows = Math.floor(gh / per);
  const blocks = cols * rows;
  const area = block * block;
  const fine = blockSums(data, w, h, 4);
  const fineMeans = fine.sums.map((v) => v / 16);
  const perSide = block / 4;
  const noise = new Float64Array(blocks);
  const texture = new Float64Array(blocks);
  const usable = new Uint8Array(blocks);
  const smooth: number[] = [];
  let usableCount = 0;
  for (let by = 0; by < rows; by++) {
    for (let bx = 0; bx < cols; bx++) {
      const b = by * cols + bx;
      let s = 0;
      for (let j = 0; j < per; j++) for (let i = 0; i < per; i++) s += cellSum[(by * per + j) * gw + bx * per + i];
      noise[b] = s / area;
      let diffs = 0;
      let count = 0;
      let mean = 0;
      for (let cy = 0; cy < perSide; cy++) {
        const base = (by * perSide + cy) * fine.cols + bx * perSide;
        for (let cx = 0; cx < perSide; cx++) {
          const v = fineMeans[base + cx];
          mean += v;
          if (cx + 1 < perSide) (diffs += Math.abs(fineMeans[base + cx + 1] - v)), count++;
          if (cy + 1 < perSide) (diffs += Math.abs(fineMeans[base + fine.cols + cx] - v)), count++;
        }
      }
      mean /= perSide * perSide;
      texture[b] = diffs / count;
      // near black or white, clipping cuts the noise off
      if (mean > 12 && mean < 243) {
        usable[b] = 1;
        usableCount++;
        if (texture[b] < SMOOTH_LIMIT) smooth.push(noise[b]);
      }
    }
  }

  const rel = relativeToTexture(noise, texture, usable, NOISE_FLOOR);
  // log2 of it, averaged over the block and its usable neighbours: one block is a noisy measure
  const lr = new Float64Array(blocks).fill(NaN);
  for (let b = 0; b < blocks; b++) if (usable[b]) lr[b] = Math.log2(Math.max(rel[b], 1 / 64));
  const smoothed = new Float64Array(blocks).fill(NaN);
  for (let by = 0; by < rows; by++) {
    for (let bx = 0; bx < cols; bx++) {
      if (!usable[by * cols + bx]) continue;
      let s = 0;
      let k = 0;
      for (let j = Math.max(0, by - 1); j <= Math.min(rows - 1, by + 1); j++) {
        for (let i = Math.max(0, bx - 1); i <= Math.min(cols - 1, bx + 1); i++) {
          const v = lr[j * cols + i];
          if (!Number.isNaN(v)) (s += v), k++;
        }
      }
      smoothed[by * cols + bx] = s / k;
    }
  }
  // Only "noisier than its like" counts: compression, denoising and clipping make smooth areas
  // quieter in untouched photos too (a clean horizon measured 0.1x), so quiet proves little.
  const candidate = new Uint8Array(blocks);
  let strong = 0;
  for (let b = 0; b < blocks; b++) {
    if (!(smoothed[b] >= REGION_LOG2)) continue;
    candidate[b] = 1;
    if (smoothed[b] >= Math.log2(INCONSISTENT_FACTOR)) strong++;
  }
  const minCells = Math.max(4, Math.ceil(blocks * 0.002));
  const groups = components(candidate, cols, rows)
    .filter((c) => c.cells >= minCells)
    .map((c) => ({ c, ratio: 2 ** percentile(c.members.map((b) => smoothed[b]), 0.5) }))
    .sort((p, q) => q.ratio - p.ratio);
  const top = groups[0];
  const stats: NoiseStats = {
    median: smooth.length ? percentile(smooth, 0.5) : 0,
    inconsistent_share: usableCount ? strong / usableCount : 0,
    region_share: top ? top.c.cells / blocks : 0,
    region_ratio: top ? top.ratio : 0,
    measured_share: blocks ? usableCount / blocks : 0,
    block,
  };
  return { stats, map: { data: map, width: gw, height: gh }, regions: groups.slice(0, 3).map((g) => componentBox(g.c, block)) };
}
