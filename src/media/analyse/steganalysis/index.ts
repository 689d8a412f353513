// Steganalysis of LSB replacement: runs the chi-square attack, RS analysis and Sample Pairs
// Analysis on 8-bit pixels and combines them into one verdict.
//
// Rates: every StegoEstimate.rate is per colour *sample* (fraction of samples carrying a message
// bit); the verdict's `rate` is in *bits per pixel* (bpp) = payload bits / (width x height) =
// per-sample rate x colour channels (3 for RGB/RGBA, 1 for grey; alpha never counts). 0.2 bpp in
// RGB is a per-sample rate of 0.0667.
//
// Combination: RS and SPA both estimate the per-sample rate of LSB replacement; their mean is
// the payload estimate (their errors on covers are only partly correlated, so the mean is
// tighter than either). The image is suspected when that mean exceeds the threshold, or when the
// chi-square attack finds a sequentially embedded run (its own calibrated test, no false positive
// on the benchmark covers).
//
// Threshold: 0.03 per sample (0.09 bpp in RGB) for images of at least 40 000 pixels, growing as
// 1/sqrt(pixels) below (common.ts, sampleThreshold). Calibration (npm run bench -- stego, 56
// natural covers of 512x512 and 768x512 decoded from JPEG): no clean cover over it, naive random
// LSB replacement caught at 0.1 bpp 93 %, at 0.2 bpp 100 %. On a harsher set (512x512 crops on a
// 6x6 grid over the same photos, 252 covers) 2.4 % of clean covers cross it, all from one very
// textured region of one photo; at 256x256, 4.8 % (0.2 bpp caught 99 %); at 128x128, 5.2 %
// (0.2 bpp caught 88 %, 9 % of the crops, flat sky, without an answer).
//
// Limits: random-position embedding is what RS and SPA model; a message written sequentially
// from the first sample is detected as well (98 % at 0.2 bpp) but its size is underestimated
// (0.18 bpp for 0.2 on average): the chi-square estimate carries its length. LSB *matching*
// (+-1) and adaptive schemes are outside this model. Images too small or too flat for RS and SPA
// get no answer (null), never "clean".
import { chiSquare } from './chi-square.ts';
import { checkImage, colourChannels, fmt, sampleThreshold } from './common.ts';
import { rs } from './rs.ts';
import { samplePairs } from './spa.ts';
import type { PixelImage, Steganalyser, StegoEstimate } from './types.ts';

export type { PixelImage, Steganalyser, StegoEstimate, StegoMethod } from './types.ts';
export { chiSquare, createChiSquare } from './chi-square.ts';
export { rs, createRs } from './rs.ts';
export { samplePairs, createSpa } from './spa.ts';
export { sampleThreshold } from './common.ts';

export interface StegoVerdict {
  /** true: LSB replacement suspected; false: not found above the threshold; null: no answer */
  suspected: boolean | null;
  /** estimated payload in bits per pixel (payload bits / (width x height), colour channels
   *  only), 0..3 for RGB, 0..1 for grey; null if RS and SPA could not answer and the chi-square
   *  attack found nothing. Below the threshold it is within the estimators' noise. */
  rate: number | null;
  /** the threshold applied to the mean RS/SPA per-sample estimate, in bits per pixel */
  thresholdBpp: number | null;
  estimates: StegoEstimate[];
  notes: string[];
}

export const analysers: readonly Steganalyser[] = [chiSquare, rs, samplePairs];

/** `samplePairs: false` leaves out SPA, the costliest method (the analyse product's standard depth). */
export function analyseLsb(img: PixelImage, opts: { samplePairs?: boolean } = {}): StegoVerdict {
  checkImage(img);
  const cc = colourChannels(img);
  const estimates = analysers.filter((a) => opts.samplePairs !== false || a !== samplePairs).map((a) => a.analyse(img));
  const chi = estimates[0];
  const structural = estimates.slice(1).filter((e) => e.score !== null).map((e) => e.score as number);
  const notes: string[] = [];
  const threshold = sampleThreshold(img.width * img.height);
  if (structural.length === 0) {
    if (chi.detected) {
      notes.push('RS and SPA gave no answer; the chi-square attack found a sequential message');
      return { suspected: true, rate: (chi.rate as number) * cc, thresholdBpp: null, estimates, notes };
    }
    notes.push('RS and SPA gave no answer (image too small or too flat): no verdict');
    return { suspected: null, rate: null, thresholdBpp: null, estimates, notes };
  }
  const mean = structural.reduce((a, b) => a + b, 0) / structural.length;
  const rate = Math.min(cc, Math.max(0, mean) * cc);
  const over = mean > threshold;
  if (over) notes.push(`mean RS/SPA estimate ${fmt(mean)} per sample above the threshold ${fmt(threshold)}`);
  if (chi.detected) notes.push(`chi-square attack: sequentially embedded run of about ${fmt((chi.rate as number) * cc, 3)} bpp`);
  if (structural.length === 1) notes.push(opts.samplePairs === false ? 'RS only (Sample Pairs runs at deep analysis)' : 'only one of RS and SPA answered');
  return { suspected: over || chi.detected === true, rate, thresholdBpp: threshold * cc, estimates, notes };
}
