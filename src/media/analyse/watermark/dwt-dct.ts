// Decoder of the open "dwtDct" invisible watermark (the invisible-watermark Python package,
// imwatermark/maxDct.py), which Stable Diffusion's reference scripts and diffusers embed.
// The scheme, as that code does it (its name says DCT, but maxDct.py never applies one):
// - BGR -> YUV as OpenCV does; only the U channel carries the mark (scales [0, 36, 36] with
//   `for channel in range(2)`, so V's scale is never used);
// - the image cropped to a multiple of 4, a one-level Haar DWT (pywt 'haar'), its LL band;
// - LL cut into 4x4 blocks, row by row; block n carries bit n mod L of the L-bit mark;
// - in each block the entry of largest magnitude but the first (row-major) is set to
//   (|v| div 36 + 0.25 + 0.5 * bit) * 36, sign kept; decoding reads |v| mod 36 > 18 as a 1.
// Every block is one vote for its bit, read from the residue of its largest entry.
import type { PixelImage } from '../steganalysis/types.ts';

export const SCALE = 36;
export const BLOCK = 4;

/** How the RGB pixels are fed to the encoder: 'bgr' as the reference scripts do (RGB->BGR
 *  first), 'rgb' when a pipeline hands RGB to it as if it were BGR (early diffusers SDXL). */
export type ChannelOrder = 'bgr' | 'rgb';

/** OpenCV's COLOR_BGR2YUV U of one pixel: 0.492 (B - Y) + 128, rounded and clamped to 8 bits
 *  as the encoder's 8-bit YUV picture has it. */
function uAt(px: PixelImage, i: number, order: ChannelOrder): number {
  const r = px.data[i];
  const g = px.data[i + 1];
  const b = px.data[i + 2];
  // the channel the encoder took for blue: B in 'bgr', R when RGB was passed as BGR
  const blue = order === 'bgr' ? b : r;
  const red = order === 'bgr' ? r : b;
  const y = 0.299 * red + 0.587 * g + 0.114 * blue;
  return Math.min(255, Math.max(0, Math.round(0.492 * (blue - y) + 128)));
}

/** The LL band of a one-level orthonormal Haar DWT (pywt: (a + b + c + d) / 2) of U over the
 *  picture cropped to a multiple of 4, made straight from the pixels: a quarter-size plane is
 *  all the memory it takes, even at the pixel limit. */
export function uLL(px: PixelImage, order: ChannelOrder): { ll: Float32Array; w: number; h: number } {
  const w = (px.width - (px.width % 4)) >> 1;
  const h = (px.height - (px.height % 4)) >> 1;
  const ll = new Float32Array(w * h);
  const c = px.channels;
  const row = px.width * c;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = 2 * y * row + 2 * x * c;
      ll[y * w + x] = (uAt(px, i, order) + uAt(px, i + c, order) + uAt(px, i + row, order) + uAt(px, i + row + c, order)) / 2;
    }
  }
  return { ll, w, h };
}

/** Offset in a block (row-major) of the entry of largest magnitude, the first entry excluded
 *  (numpy argmax: the first one on a tie). */
export function maxEntry(ll: ArrayLike<number>, w: number, bx: number, by: number): number {
  let best = 1;
  let bestAbs = -1;
  for (let k = 1; k < BLOCK * BLOCK; k++) {
    const a = Math.abs(ll[(by * BLOCK + (k >> 2)) * w + bx * BLOCK + (k & 3)]);
    if (a > bestAbs) {
      bestAbs = a;
      best = k;
    }
  }
  return best;
}

/**
 * Per block, in embedding order, how its mark entry reads: +1 right on the "1" level (27 in
 * 36), -1 right on the "0" level (9), near 0 in between. The reference decoder thresholds the
 * same residue (> 18 is a 1); soft scores are used here because the scheme often loses a 0:
 * lowering the largest entry to the "0" level can leave another entry larger, which then reads
 * at random. Random readings average to 0, so they no longer drag the 0s to 1s.
 */
export function blockScores(px: PixelImage, order: ChannelOrder): Float64Array {
  if (px.channels < 3) return new Float64Array(0); // grey: U is flat, nothing can be carried
  const { ll, w, h } = uLL(px, order);
  const bw = Math.floor(w / BLOCK);
  const bh = Math.floor(h / BLOCK);
  const scores = new Float64Array(bw * bh);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      const k = maxEntry(ll, w, bx, by);
      const v = Math.abs(ll[(by * BLOCK + (k >> 2)) * w + bx * BLOCK + (k & 3)]);
      scores[by * bw + bx] = Math.cos((2 * Math.PI * ((v % SCALE) - 0.75 * SCALE)) / SCALE);
    }
  }
  return scores;
}

export interface Agreement {
  /** Share of the mark's bits read right (each bit: the sign of its blocks' centred mean score). */
  bits: number;
  /** Mean over every block of its score signed by the bit it should carry: about 0 on an
   *  unmarked picture, well above on a marked one. */
  correlation: number;
}

/** How far the picture's blocks agree with a mark: block n carries bit n mod L. */
export function agreement(scores: Float64Array, mark: readonly number[]): Agreement {
  const L = mark.length;
  const sum = new Float64Array(L);
  // centred: a picture whose blocks all read alike (a flat colour) correlates with no mark
  const mean = scores.reduce((a, b) => a + b, 0) / (scores.length || 1);
  let corr = 0;
  for (let n = 0; n < scores.length; n++) {
    sum[n % L] += scores[n] - mean;
    corr += mark[n % L] ? scores[n] - mean : mean - scores[n];
  }
  let same = 0;
  for (let i = 0; i < L; i++) if ((sum[i] > 0 ? 1 : 0) === mark[i]) same++;
  return { bits: same / L, correlation: scores.length ? corr / scores.length : 0 };
}
