// Helpers shared by the steganalysers: input checks, colour-channel layout, quadratic roots.
import type { PixelImage, StegoEstimate, StegoMethod } from './types.ts';

/** Number of colour channels (alpha excluded): 1 for grey (+alpha), 3 for RGB(A). */
export function colourChannels(img: PixelImage): 1 | 3 {
  return img.channels >= 3 ? 3 : 1;
}

/** Throws on a malformed image (a programming error, not a property of the picture). */
export function checkImage(img: PixelImage): void {
  const { width, height, channels, data } = img;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) {
    throw new RangeError(`bad image size ${width}x${height}`);
  }
  if (channels !== 1 && channels !== 2 && channels !== 3 && channels !== 4) {
    throw new RangeError(`bad channel count ${channels}`);
  }
  if (data.length !== width * height * channels) {
    throw new RangeError(`pixel buffer holds ${data.length} bytes, expected ${width}x${height}x${channels}`);
  }
}

/** The "no answer" estimate: rate, score and detected all null, with the reason. */
export function noAnswer(method: StegoMethod, ...notes: string[]): StegoEstimate {
  return { method, rate: null, score: null, detected: null, notes };
}

/** Real roots of a x^2 + b x + c = 0, or null if there is none (or the equation is void). */
export function quadraticRoots(a: number, b: number, c: number): number[] | null {
  if (Math.abs(a) < 1e-12) {
    if (Math.abs(b) < 1e-12) return null;
    return [-c / b];
  }
  const disc = b * b - 4 * a * c;
  if (disc < 0) return null;
  const s = Math.sqrt(disc);
  // numerically stable form
  const q = -0.5 * (b + (b >= 0 ? s : -s));
  const r1 = q / a;
  const r2 = q !== 0 ? c / q : r1;
  return [r1, r2];
}

/**
 * Detection threshold on a per-sample LSB-replacement estimate (RS, SPA or their mean) for an
 * image of `pixels` pixels: 0.03 from 40 000 pixels up, growing as 1/sqrt(pixels) below. The
 * spread of the estimates on clean covers is mostly the covers' own (their content), not
 * sampling noise, so it shrinks much more slowly with size than 1/sqrt(pixels) above ~200x200;
 * measured on the benchmark photos (crops on a 6x6 grid, 95th percentile of the clean mean
 * RS/SPA estimate): 0.016 at 512x512, 0.024 at 256x256, 0.030 at 192x192, 0.043 at 128x128,
 * 0.055 at 96x96 and 64x64.
 */
export function sampleThreshold(pixels: number): number {
  return 0.03 * Math.sqrt(Math.max(1, 40_000 / Math.max(1, pixels)));
}

/** Rounds for notes and reports. */
export function fmt(x: number, digits = 4): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}
