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
  const only = new Uint8Array(w * h).fill(1);
  const same = (a: number, b: number): boolean => {
    for (let c = 0; c < cc; c++) if ((data[a + c] ^ data[b + c]) >> 1) return false;
    return true;
  };
  for (let y = 1; y + 1 < h; y++) {
    for (let x = 1; x + 1 < w; x++) {
      const i = (y * w + x) * ch;
      const up = i - w * ch, down = i + w * ch;
      if (!(same(i, up - ch) && same(i, up + ch) && same(i, down - ch) && same(i, down + ch))) continue;
      for (let dy = -1; dy <= 1; dy++) only.fill(0, (y + dy) * w + x - 1, (y + dy) * w + x + 2);
    }
  }
  let n = 0;
  for (let p = 0; p < only.length; p++) n += only[p];
  return { only, share: only.length ? n / only.length : 0 };
}
