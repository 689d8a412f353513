// Shapes of what OCR reads: boxes are in pixels of the picture as displayed (orientation
// applied), whatever size the OCR itself ran at.

/** 8-bit interleaved pixels (sharp's raw output); 1 grey .. 4 RGBA channels. */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

import type { Box } from '../forensics/common.ts';

export type { Box };

/** One line of text OCR is confident about. */
export interface TextRegion {
  box: Box;
  text: string;
  /** 0..1, tesseract's line confidence. */
  confidence: number;
}

export interface TextReading {
  regions: TextRegion[];
  /** The regions' text, one line each, top to bottom. */
  text: string;
  /** Size of the picture the boxes refer to (the displayed picture). */
  width: number;
  height: number;
}
