// Copy-move (clone) detection by block matching (after Fridrich et al. 2003 and Popescu & Farid
// 2004): every overlapping BLOCK x BLOCK block of the grey copy (at every pixel offset) gets a
// small feature that survives JPEG and resampling (the first low-frequency DCT coefficients of
// its 4x4 cell means), the features are sorted lexicographically, and neighbours in the sorted
// list that are alike but far apart in the picture vote for their shift vector. A shift is
// kept when enough matched blocks agree on it, in one connected patch. Natural pictures are
// full of things alike at a distance, and each has its filter:
// - flat blocks (sky, walls) are left out: they match each other everywhere;
// - one-dimensional blocks (a straight edge, a horizon, stripes) are left out, and a pair whose
//   half-way block matches too is not counted: they match themselves all along;
// - a shift must stand out from the shifts around it: a texture (foliage, waves) votes for a
//   whole spread of shifts, a copy for one;
// - the patch must not repeat near itself at one offset (blinds, bricks, lacing): two windows
//   with the same blinds are alike at one shift, yet nothing was copied.
// Measured on 1024 px copies: no shift on 7 untouched photos (sample photos of the repository)
// nor on 28 re-encoded variants of them (JPEG q75, q90, 80% size, PNG); random 64, 96 and 128 px
// copies within them (JPEG q90, three seeds), 34 of 63 found with the right shift - the misses
// are mostly flat or small sources (a 64 px copy is 34 px in the copy) and copies of repeating
// patterns.
import { percentile, type Box, type ForensicOutcome, type GreyImage } from './common.ts';

const BLOCK = 16;
const STRIDE = 1;
const CELL = 4;
/** Features kept per block: DCT coefficients of the 4x4 cell means, in zigzag order. */
const FEATURES = 8;
/** Quantisation step of the features for the sort (cell-mean levels). */
const QUANT = 3;
/** Two blocks match when no feature differs by more than this (cell-mean levels)... */
const MATCH_TOLERANCE = 2;
/** ...they are compared with this many following entries of the sorted list... */
const LOOK_AHEAD = 12;
/** ...and they are at least this far apart (pixels of the analysed copy). */
const MIN_DISTANCE = 24;
/** A block is too flat to match when its pixels' standard deviation, or that of its 16 cell
 *  means, is below these (levels). */
const MIN_STD = 6;
const MIN_CELL_STD = 4;
/** A block whose structure is one-dimensional (a straight edge, stripes: coherence of the
 *  structure tensor of its cell means above this, 1 = perfectly 1-D) matches itself all along. */
const MAX_COHERENCE = 0.8;
/** A shift is reported when at least this many matched blocks, in one connected patch, agree on
 *  it (within +-2 px)... */
const MIN_BLOCKS = 100;
/** ...and the shifts around it (up to SPREAD px away, beyond +-2) gather at most this share of
 *  its votes. Measured on 7 untouched photos and an AI picture (1024 px copies): every
 *  self-similar peak had 0.85x or more; a 120 px clone 0.03x. */
const SPREAD = 8;
const MAX_SPREAD_SHARE = 0.3;
/** ...and at most this share of its source blocks (REPEAT_SAMPLE of them tested) match a block
 *  at one same offset, REPEAT_MIN to REPEAT_RADIUS px away from themselves (a repeating
 *  pattern, not a copy). */
const MAX_REPETITIVE_SHARE = 0.33;
const REPEAT_SAMPLE = 200;
const REPEAT_MIN = 12;
const REPEAT_RADIUS = 40;

export interface CloneShift {
  /** Canonical direction: dx > 0, or dx = 0 and dy > 0 (the two regions are interchangeable). */
  dx: number;
  dy: number;
  /** Matched block pairs in the patch. */
  blocks: number;
  /** The two regions (analysed-copy pixels): the one the shift starts from, and its copy. */
  from: Box;
  to: Box;
}

export interface CloneStats {
  /** Kept shifts, most blocks first. */
  shifts: CloneShift[];
  /** Blocks that had enough texture to be compared. */
  compared: number;
}

// orthonormal 4-point DCT-II basis
const BASIS: number[][] = [0, 1, 2, 3].map((u) => [0, 1, 2, 3].map((x) => (u === 0 ? 0.5 : Math.SQRT1_2) * Math.cos(((2 * x + 1) * u * Math.PI) / 8)));
// zigzag order of (row frequency, column frequency)
const ZIGZAG: Array<[number, number]> = [
  [0, 0], [0, 1], [1, 0], [2, 0], [1, 1], [0, 2], [0, 3], [1, 2], [2, 1], [3, 0],
];

/** Copy-move detection on a grey plane; the map marks the matched blocks (white on black). */
export function copyMove(grey: GreyImage): ForensicOutcome<CloneStats> {
  const { data, width: w, height: h } = grey;
  const empty = { stats: { shifts: [], compared: 0 }, map: null, regions: [] };
  if (w < BLOCK * 3 || h < BLOCK * 3) return empty;

  // integral images of values and squares
  const W = w + 1;
  const sum = new Float64Array(W * (h + 1));
  const sq = new Float64Array(W * (h + 1));
  for (let y = 0; y < h; y++) {
    let rs = 0;
    let rq = 0;
    for (let x = 0; x < w; x++) {
      const v = data[y * w + x];
      rs += v;
      rq += v * v;
      sum[(y + 1) * W + x + 1] = sum[y * W + x + 1] + rs;
      sq[(y + 1) * W + x + 1] = sq[y * W + x + 1] + rq;
    }
  }
  const box = (t: Float64Array, x: number, y: number, s: number) => t[(y + s) * W + x + s] - t[y * W + x + s] - t[(y + s) * W + x] + t[y * W + x];

  const nx = Math.floor((w - BLOCK) / STRIDE) + 1;
  const ny = Math.floor((h - BLOCK) / STRIDE) + 1;
  const cap = nx * ny;
  const feat = new Float32Array(cap * FEATURES);
  const keys = new Int16Array(cap * FEATURES);
  const posX = new Int32Array(cap);
  const posY = new Int32Array(cap);
  const slot = new Int32Array(nx * ny).fill(-1);
  const m = new Float64Array(16);
  const tmp = new Float64Array(16);
  let count = 0;
  const area = BLOCK * BLOCK;
  const cellArea = CELL * CELL;
  for (let by = 0; by < ny; by++) {
    const y = by * STRIDE;
    for (let bx = 0; bx < nx; bx++) {
      const x = bx * STRIDE;
      const s = box(sum, x, y, BLOCK);
      const mean = s / area;
      const variance = box(sq, x, y, BLOCK) / area - mean * mean;
      if (variance < MIN_STD * MIN_STD) continue;
      let cv = 0;
      for (let j = 0; j < 4; j++) {
        for (let i = 0; i < 4; i++) {
          const c = box(sum, x + i * CELL, y + j * CELL, CELL) / cellArea;
          m[j * 4 + i] = c;
          cv += (c - mean) * (c - mean);
        }
      }
      if (cv / 16 < MIN_CELL_STD * MIN_CELL_STD) continue;
      // one-dimensional structure (a straight edge, stripes, blinds): alike all along itself
      let jxx = 0;
      let jyy = 0;
      let jxy = 0;
      for (let j = 0; j < 3; j++) {
        for (let i = 0; i < 3; i++) {
          const gx = (m[j * 4 + i + 1] - m[j * 4 + i] + m[(j + 1) * 4 + i + 1] - m[(j + 1) * 4 + i]) / 2;
          const gy = (m[(j + 1) * 4 + i] - m[j * 4 + i] + m[(j + 1) * 4 + i + 1] - m[j * 4 + i + 1]) / 2;
          jxx += gx * gx;
          jyy += gy * gy;
          jxy += gx * gy;
        }
      }
      const coherence = ((jxx - jyy) ** 2 + 4 * jxy * jxy) / ((jxx + jyy) ** 2 + 1e-9);
      if (coherence > MAX_COHERENCE) continue;
      // 2-D DCT of the 4x4 cell means: rows, then columns
      for (let j = 0; j < 4; j++) {
        for (let u = 0; u < 4; u++) {
          let a = 0;
          for (let i = 0; i < 4; i++) a += BASIS[u][i] * m[j * 4 + i];
          tmp[j * 4 + u] = a;
        }
      }
      const o = count * FEATURES;
      for (let k = 0; k < FEATURES; k++) {
        const [v, u] = ZIGZAG[k];
        let a = 0;
        for (let j = 0; j < 4; j++) a += BASIS[v][j] * tmp[j * 4 + u];
        // orthonormal 4x4 DCT: the DC is 4 x the mean, AC in the same units; /4 gives levels
        a /= 4;
        feat[o + k] = a;
        keys[o + k] = Math.round(a / QUANT);
      }
      posX[count] = x;
      posY[count] = y;
      slot[by * nx + bx] = count;
      count++;
    }
  }

  // lexicographic order of the quantised features: packed into one number per block (the DC
  // on 7 bits, each AC coefficient clamped to 6 bits), so the sort compares one value
  const packed = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let key = Math.min(127, Math.max(0, keys[i * FEATURES]));
    for (let k = 1; k < FEATURES; k++) key = key * 64 + Math.min(31, Math.max(-32, keys[i * FEATURES + k])) + 32;
    packed[i] = key;
  }
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  order.sort((a, b) => packed[a] - packed[b]);

  // matches vote for their (canonical) shift
  const pairsA: number[] = [];
  const pairsB: number[] = [];
  const votes = new Map<number, number>();
  const OFF = 4096; // shifts are packed as (dx + OFF) * 8192 + (dy + OFF)
  const pack = (dx: number, dy: number) => (dx + OFF) * 8192 + (dy + OFF);
  const alike = (a: number, b: number, tolerance = MATCH_TOLERANCE) => {
    const oa = a * FEATURES;
    const ob = b * FEATURES;
    for (let k = 0; k < FEATURES; k++) if (Math.abs(feat[oa + k] - feat[ob + k]) > tolerance) return false;
    return true;
  };
  for (let r = 0; r < count; r++) {
    const a = order[r];
    for (let q = r + 1; q < Math.min(count, r + 1 + LOOK_AHEAD); q++) {
      const b = order[q];
      if (!alike(a, b)) continue;
      let dx = posX[b] - posX[a];
      let dy = posY[b] - posY[a];
      if (dx * dx + dy * dy < MIN_DISTANCE * MIN_DISTANCE) continue;
      // a straight edge (a horizon, a pole) or a periodic pattern matches itself at many
      // shifts: its block half-way along the shift matches too, a cloned block's does not
      const half = slot[Math.round((posY[a] + dy / 2) / STRIDE) * nx + Math.round((posX[a] + dx / 2) / STRIDE)];
      if (half >= 0 && alike(a, half)) continue;
      let from = a;
      let to = b;
      if (dx < 0 || (dx === 0 && dy < 0)) (dx = -dx), (dy = -dy), (from = b), (to = a);
      pairsA.push(from);
      pairsB.push(to);
      const key = pack(dx, dy);
      votes.set(key, (votes.get(key) ?? 0) + 1);
    }
  }

  // peaks of the votes summed over +-2 px (resampling spreads one copy over neighbouring
  // shifts), kept when they stand out: a clone votes for one shift, a self-similar texture
  // (foliage, waves, a facade) for a whole spread of them
  const near = (dx: number, dy: number, r: number) => {
    let s = 0;
    for (let j = -r; j <= r; j++) for (let i = -r; i <= r; i++) s += votes.get(pack(dx + i, dy + j)) ?? 0;
    return s;
  };
  const candidates: Array<[number, number, number]> = [];
  for (const key of votes.keys()) {
    const dx = Math.floor(key / 8192) - OFF;
    const dy = (key % 8192) - OFF;
    const s = near(dx, dy, 2);
    if (s >= MIN_BLOCKS) candidates.push([dx, dy, s]);
  }
  candidates.sort((p, q) => q[2] - p[2]);
  const peaks: Array<[number, number]> = [];
  const tried: Array<[number, number]> = [];
  for (const [dx, dy, s] of candidates) {
    if (tried.some(([px, py]) => Math.abs(px - dx) <= SPREAD && Math.abs(py - dy) <= SPREAD)) continue;
    tried.push([dx, dy]);
    if (near(dx, dy, SPREAD) - s <= MAX_SPREAD_SHARE * s) peaks.push([dx, dy]);
    if (tried.length >= 64) break;
  }

  // A repeating pattern (blinds, bricks, tiles) is alike at one shift between two places where
  // nothing was copied; it also repeats *near itself*, at one offset (its period) for most of
  // its blocks. Textures match near themselves too, but by accident, at scattered offsets.
  // Returns the largest share of (sampled) source blocks that match a block at one local offset.
  const repetitiveShare = (sources: number[]) => {
    const step = Math.max(1, Math.floor(sources.length / REPEAT_SAMPLE));
    const side = 2 * REPEAT_RADIUS + 1;
    const counts = new Int32Array(side * side);
    const seen = new Int32Array(side * side).fill(-1);
    let tested = 0;
    for (let s = 0; s < sources.length; s += step) {
      const a = sources[s];
      tested++;
      for (let j = -REPEAT_RADIUS; j <= REPEAT_RADIUS; j++) {
        const y = posY[a] + j;
        if (y < 0 || y >= ny * STRIDE) continue;
        for (let i = -REPEAT_RADIUS; i <= REPEAT_RADIUS; i++) {
          if (Math.max(Math.abs(i), Math.abs(j)) < REPEAT_MIN) continue;
          const x = posX[a] + i;
          if (x < 0 || x >= nx * STRIDE) continue;
          const other = slot[(y / STRIDE) * nx + x / STRIDE];
          if (other < 0 || !alike(a, other)) continue;
          // count this block once for each offset within +-1 of the match
          for (let v = Math.max(-REPEAT_RADIUS, j - 1); v <= Math.min(REPEAT_RADIUS, j + 1); v++) {
            for (let u = Math.max(-REPEAT_RADIUS, i - 1); u <= Math.min(REPEAT_RADIUS, i + 1); u++) {
              const k = (v + REPEAT_RADIUS) * side + u + REPEAT_RADIUS;
              if (seen[k] !== s) (seen[k] = s), counts[k]++;
            }
          }
        }
      }
    }
    let most = 0;
    for (let k = 0; k < counts.length; k++) if (counts[k] > most) most = counts[k];
    return tested ? most / tested : 0;
  };

  // each peak: its pairs, kept when their source blocks form one connected patch
  const shifts: CloneShift[] = [];
  const marked = new Uint8Array(nx * ny);
  for (const [px, py] of peaks) {
    const members: number[] = [];
    for (let p = 0; p < pairsA.length; p++) {
      const a = pairsA[p];
      const b = pairsB[p];
      if (Math.abs(posX[b] - posX[a] - px) <= 2 && Math.abs(posY[b] - posY[a] - py) <= 2) members.push(p);
    }
    const patch = largestPatch(members.map((p) => pairsA[p]), posX, posY, nx, ny);
    if (patch.size < MIN_BLOCKS) continue;
    const kept = members.filter((p) => patch.has(pairsA[p]));
    if (repetitiveShare(kept.map((p) => pairsA[p])) > MAX_REPETITIVE_SHARE) continue;
    const dxs = kept.map((p) => posX[pairsB[p]] - posX[pairsA[p]]);
    const dys = kept.map((p) => posY[pairsB[p]] - posY[pairsA[p]]);
    const from = boundsOf(kept.map((p) => pairsA[p]), posX, posY);
    const to = boundsOf(kept.map((p) => pairsB[p]), posX, posY);
    // the two patches of one clone overlap when the shift is shorter than the patch: still a clone
    shifts.push({ dx: Math.round(percentile(dxs, 0.5)), dy: Math.round(percentile(dys, 0.5)), blocks: kept.length, from, to });
    for (const p of kept) {
      marked[(posY[pairsA[p]] / STRIDE) * nx + posX[pairsA[p]] / STRIDE] = 1;
      marked[(posY[pairsB[p]] / STRIDE) * nx + posX[pairsB[p]] / STRIDE] = 1;
    }
  }
  shifts.sort((p, q) => q.blocks - p.blocks);
  if (shifts.length === 0) return { stats: { shifts, compared: count }, map: null, regions: [] };

  // the map: every pixel covered by a matched block
  const map = new Uint8Array(w * h);
  for (let by = 0; by < ny; by++) {
    for (let bx = 0; bx < nx; bx++) {
      if (!marked[by * nx + bx]) continue;
      for (let y = by * STRIDE; y < by * STRIDE + BLOCK; y++) map.fill(255, y * w + bx * STRIDE, y * w + bx * STRIDE + BLOCK);
    }
  }
  const regions = shifts.flatMap((s) => [s.from, s.to]);
  return { stats: { shifts, compared: count }, map: { data: map, width: w, height: h }, regions };
}

/** The largest group of block positions connected through neighbours on the stride grid
 *  (8-neighbourhood, a gap of one position allowed: matching misses some blocks). */
function largestPatch(blocks: number[], posX: Int32Array, posY: Int32Array, nx: number, ny: number): Set<number> {
  const at = new Map<number, number>();
  for (const b of blocks) at.set((posY[b] / STRIDE) * nx + posX[b] / STRIDE, b);
  const seen = new Set<number>();
  let best = new Set<number>();
  for (const [start] of at) {
    if (seen.has(start)) continue;
    const group = new Set<number>();
    const stack = [start];
    seen.add(start);
    while (stack.length) {
      const cellIndex = stack.pop() as number;
      group.add(at.get(cellIndex) as number);
      const cx = cellIndex % nx;
      const cy = (cellIndex - cx) / nx;
      for (let j = -2; j <= 2; j++) {
        for (let i = -2; i <= 2; i++) {
          const x = cx + i;
          const y = cy + j;
          if (x < 0 || y < 0 || x >= nx || y >= ny) continue;
          const k = y * nx + x;
          if (at.has(k) && !seen.has(k)) seen.add(k), stack.push(k);
        }
      }
    }
    if (group.size > best.size) best = group;
  }
  return best;
}

function boundsOf(blocks: number[], posX: Int32Array, posY: Int32Array): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const b of blocks) {
    x0 = Math.min(x0, posX[b]);
    y0 = Math.min(y0, posY[b]);
    x1 = Math.max(x1, posX[b] + BLOCK);
    y1 = Math.max(y1, posY[b] + BLOCK);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}
