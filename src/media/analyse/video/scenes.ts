// Scene statistics: the video decoded to tiny grey frames (64x36, by decode.ts: piped into this
// process, never written anywhere), and per frame its mean, a 16-bin histogram and its edge energy.
// A join of two recordings shows as one jump between neighbouring frames far above the
// video's own frame-to-frame variation; motion, even fast, changes these figures gradually.

export const SCENE_W = 64;
export const SCENE_H = 36;
const BINS = 16;

export interface FrameStats {
  mean: number;
  hist: Float64Array;
  edge: number;
  pixels: Uint8Array;
}

export function frameStats(px: Uint8Array, w = SCENE_W, h = SCENE_H): FrameStats {
  const hist = new Float64Array(BINS);
  let sum = 0;
  let edge = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = px[y * w + x];
      sum += v;
      hist[v >> 4]++;
      if (x + 1 < w) edge += Math.abs(v - px[y * w + x + 1]);
      if (y + 1 < h) edge += Math.abs(v - px[(y + 1) * w + x]);
    }
  }
  const n = w * h;
  for (let i = 0; i < BINS; i++) hist[i] /= n;
  return { mean: sum / n, hist, edge: edge / n, pixels: px };
}

/** How different frame b is from frame a, about 0 (same) to 3 (unrelated pictures). */
export function frameDistance(a: FrameStats, b: FrameStats): number {
  let h = 0;
  for (let i = 0; i < BINS; i++) h += Math.abs(a.hist[i] - b.hist[i]);
  let p = 0;
  for (let i = 0; i < a.pixels.length; i++) p += Math.abs(a.pixels[i] - b.pixels[i]);
  p /= a.pixels.length * 64; // a mean change of 64 levels counts 1
  const e = Math.abs(a.edge - b.edge) / Math.max(a.edge, b.edge, 4);
  return h + p + e;
}

/** Frames after a jump at which the picture is compared with the one before it again. */
export const SETTLE = 3;

export interface SceneSteps {
  /** Each frame's distance to the one before it (0 for the first), in decoding order. */
  steps: number[];
  /** Around each frame, the nearest match across it within SETTLE frames: small where a jump
   *  is a flash or a glitch and the picture comes back, large at a real change. */
  settled: number[];
}

/** The steps of a run of grey SCENE_W x SCENE_H frames, end to end (what decode.ts reads). */
export function sceneSteps(grey: Buffer): SceneSteps {
  const frame = SCENE_W * SCENE_H;
  const stats: FrameStats[] = [];
  for (let off = 0; off + frame <= grey.length; off += frame) stats.push(frameStats(new Uint8Array(grey.buffer, grey.byteOffset + off, frame)));
  const steps = stats.map((s, i) => (i ? frameDistance(stats[i - 1], s) : 0));
  const settled = stats.map((_, i) => {
    if (!i) return 0;
    // the nearest of: the frame before the jump to the few after it (a flash going), and the
    // frame after it to the few before the jump (a flash ending)
    let m = Infinity;
    for (let k = 1; k <= SETTLE; k++) {
      if (i + k < stats.length) m = Math.min(m, frameDistance(stats[i - 1], stats[i + k]));
      if (i - 1 - k >= 0) m = Math.min(m, frameDistance(stats[i], stats[i - 1 - k]));
    }
    return Number.isFinite(m) ? m : Infinity;
  });
  return { steps, settled };
}
