// The embedding side of the open dwtDct scheme (invisible-watermark's maxDct.py, used by Stable
// Diffusion's scripts), written for the tests so the decoder can be checked on marked files.
// It follows that code step for step, quirks included: 8-bit YUV, only U, LL of a Haar DWT,
// the largest non-first entry of each 4x4 block quantised to 36, and the inverse DWT called
// with the horizontal and vertical details swapped. One difference: out-of-range U values are
// clamped where numpy would wrap them.
import { BLOCK, maxEntry, SCALE } from '../../src/media/analyse/watermark/dwt-dct.ts';

const clamp8 = (v: number) => Math.min(255, Math.max(0, Math.round(v)));

/** Embeds `bits` into interleaved 8-bit RGB pixels (3 channels); returns new pixels. */
export function embedDwtDct(rgb: Uint8Array, width: number, height: number, bits: readonly number[]): Uint8Array {
  if (width * height < 256 * 256) throw new Error('image too small, should be larger than 256x256'); // as the reference
  const n = width * height;
  const Y = new Float64Array(n);
  const U = new Float64Array(n);
  const V = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const [r, g, b] = [rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]];
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    Y[i] = clamp8(y);
    U[i] = clamp8(0.492 * (b - y) + 128);
    V[i] = clamp8(0.877 * (r - y) + 128);
  }
  const cw = width - (width % 4);
  const ch = height - (height % 4);
  const w = cw / 2;
  const h = ch / 2;
  // forward Haar (pywt conventions): A, H (detail across rows), V (across columns), D
  const A = new Float64Array(w * h);
  const H = new Float64Array(w * h);
  const Vd = new Float64Array(w * h);
  const D = new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = 2 * y * width + 2 * x;
      const [a, b, c, d] = [U[i], U[i + 1], U[i + width], U[i + width + 1]];
      const k = y * w + x;
      A[k] = (a + b + c + d) / 2;
      H[k] = (a + b - c - d) / 2;
      Vd[k] = (a - b + c - d) / 2;
      D[k] = (a - b - c + d) / 2;
    }
  }
  // one bit per 4x4 block of LL, cycled
  const bw = Math.floor(w / BLOCK);
  const bh = Math.floor(h / BLOCK);
  for (let by = 0, num = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++, num++) {
      const bit = bits[num % bits.length];
      const k = maxEntry(A, w, bx, by);
      const at = (by * BLOCK + (k >> 2)) * w + bx * BLOCK + (k & 3);
      const q = (Math.floor(Math.abs(A[at]) / SCALE) + 0.25 + 0.5 * bit) * SCALE;
      A[at] = A[at] >= 0 ? q : -q;
    }
  }
  // inverse Haar with H and V swapped, as maxDct.py calls idwt2((ca1, (v1, h1, d1)))
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      const [a, hh, vv, d] = [A[k], Vd[k], H[k], D[k]];
      const i = 2 * y * width + 2 * x;
      U[i] = clamp8((a + hh + vv + d) / 2);
      U[i + 1] = clamp8((a + hh - vv - d) / 2);
      U[i + width] = clamp8((a - hh + vv - d) / 2);
      U[i + width + 1] = clamp8((a - hh - vv + d) / 2);
    }
  }
  const out = new Uint8Array(3 * n);
  for (let i = 0; i < n; i++) {
    const [y, u, v] = [Y[i], U[i] - 128, V[i] - 128];
    out[3 * i] = clamp8(y + 1.14 * v);
    out[3 * i + 1] = clamp8(y - 0.395 * u - 0.581 * v);
    out[3 * i + 2] = clamp8(y + 2.032 * u);
  }
  return out;
}
