// Shared shapes of the LSB-replacement steganalysers (chi-square, RS, SPA, WS, histogram pairs,
// grey pixels).
//
// Units used throughout this folder:
// - a *sample* is one 8-bit value of one colour channel of one pixel (alpha is never a colour
//   channel and is ignored by every method);
// - `StegoEstimate.rate` is the estimated *embedding rate per colour sample*, 0..1: the fraction
//   of colour samples that carry one message bit under the LSB-replacement model (about half of
//   those samples actually change);
// - the combined verdict (index.ts) reports *bits per pixel* (bpp): payload bits / (width x
//   height), i.e. per-sample rate x number of colour channels. 0.2 bpp in an RGB image is a
//   per-sample rate of 0.2 / 3 = 0.0667.

/** 8-bit interleaved pixels, as sharp's `.raw()` output. */
export interface PixelImage {
  data: Uint8Array;
  width: number;
  height: number;
  /** 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA */
  channels: 1 | 2 | 3 | 4;
  /** when set, the methods read only the pixels marked 1 here (one byte per pixel): an
   *  embedder's selection channel, such as the busy pixels (selection.ts) */
  only?: Uint8Array;
}

export type StegoMethod = 'chi_square' | 'rs' | 'sample_pairs' | 'weighted_stego' | 'histogram_pairs' | 'grey_pixels';

export interface StegoEstimate {
  method: StegoMethod;
  /** estimated embedding rate in bits per colour sample, 0..1 (LSB replacement model); null if
   *  the method cannot answer (too few samples, degenerate image) */
  rate: number | null;
  /** method-specific score: the chi-square p-value; the raw (unclamped, possibly negative)
   *  per-sample estimate for RS and SPA */
  score: number | null;
  /** null = no answer, never "clean" */
  detected: boolean | null;
  /** set with no answer when the picture breaks the method's cover model (an estimate above 1,
   *  which no payload gives): then the other structural method is not trusted alone either */
  broken?: true;
  /** histogram pairs only: the share of the samples read whose pairs sit on the floor */
  floorShare?: number;
  notes?: string[];
}

export interface Steganalyser {
  method: StegoMethod;
  analyse(img: PixelImage): StegoEstimate;
}
