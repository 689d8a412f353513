// The busy pixels: where an embedder that leaves flat areas alone writes. Stegosuite (PNG and
// BMP) skips every pixel of a 3x3 neighbourhood whose four diagonal neighbours equal its centre
// in the upper 7 bits of every colour channel, and writes only the rest. That rule reads no
// LSB, so it gives the same pixels on the cover and on the stego picture: the methods can read
// exactly the samples such a tool may have changed. On the whole picture the untouched flat
// areas dilute the rate and keep their pairs of values one-sided, which holds the histogram
// pairs' bound (pairs.ts) below the payload.
import { colourChannels } from './common.ts';
import type { PixelImage } from './types.ts';

export interface Selection {
  /** one byte per pixel, 1 = busy */
  only: Uint8Array;
  /** busy pixels' share of the picture */
  share: number;
}

export function busyPixels(img: PixelImage): Selection {
  const { data, width: w, height: h, channels: ch } = img;
  const cc = colourChannels(img);
  // each pixel's colour without its LSBs, packed into one number
  const upper = new Int32Array(w * h);
  for (let p = 0, i = 0; p < upper.length; p++, i += ch) upper[p] = cc === 3 ? ((data[i] >> 1) << 14) | ((data[i + 1] >> 1) << 7) | (data[i + 2] >> 1) : data[i] >> 1;
  const only = new Uint8Array(w * h).fill(1);
  for (let y = 1; y + 1 < h; y++) {
    for (let x = 1, p = y * w + 1; x + 1 < w; x++, p++) {
      const v = upper[p];
      if (upper[p - w - 1] !== v || upper[p - w + 1] !== v || upper[p + w - 1] !== v || upper[p + w + 1] !== v) continue;
      only[p - w - 1] = only[p - w] = only[p - w + 1] = only[p - 1] = only[p] = only[p + 1] = only[p + w - 1] = only[p + w] = only[p + w + 1] = 0;
    }
  }
  let n = 0;
  for (let p = 0; p < only.length; p++) n += only[p];
  return { only, share: only.length ? n / only.length : 0 };
}
