// How far the picture's own LSB plane already looks like noise, which decides how much the
// structural estimators (RS, SPA) can be trusted. In most camera photos, renders and
// screenshots neighbouring LSBs agree well above half the time (0.52-0.95); fine high-amplitude
// noise (AI-generated pictures and their resizes: 0.498-0.517; noise added after a decode;
// some very textured photo crops) takes them to 0.50,
// and there RS and SPA read 0.03-0.15 per sample on clean pictures (npm run bench -- stego).
// Embedding moves this figure little at the rates that matter (-0.003 at 0.2 bpp on such
// pictures), so it can set how strongly WS must confirm them (index.ts).
import { colourChannels } from './common.ts';
import type { PixelImage } from './types.ts';

/** Below this share of agreeing horizontal LSB neighbours, the picture counts as noise-like. */
export const NOISE_LIKE_AGREEMENT = 0.52;
/** From this share up, the LSB plane is plainly structured (photos, renders, screenshots). */
export const STRUCTURED_AGREEMENT = 0.58;

/**
 * WS's confirming threshold as a factor of the base threshold (common.ts, sampleThreshold),
 * from the picture's LSB agreement: 1.83 (0.055 per sample at full size) on noise-like
 * pictures, the lowest with no clean AI-generated picture of the benchmark corpus above it
 * (they read up to 0.052); 0.5 on structured ones, where RS and SPA are reliable and WS only
 * has to lean the same way (0.015); linear between, since pictures mixing AI noise with flat
 * areas fall there (a crop of the C2PA fixture padded with empty rows agrees 0.564, with RS/SPA
 * at 0.07 and WS at 0.017: its bar is 0.026). Every real resize and crop of the fixture in the
 * corpus agrees 0.498-0.517. A steeper ramp would catch more at 0.1 bpp in photos agreeing
 * 0.52-0.58 (measured: 59 % of the natural covers at 0.1 bpp here, 77 % with a plain step).
 */
export function wsFactor(agreement: number): number {
  const t = Math.min(1, Math.max(0, (agreement - NOISE_LIKE_AGREEMENT) / (STRUCTURED_AGREEMENT - NOISE_LIKE_AGREEMENT)));
  return 0.055 / 0.03 + t * (0.5 - 0.055 / 0.03);
}

/** Share of horizontally adjacent colour samples whose LSBs are equal. */
export function lsbAgreement(img: PixelImage): number {
  const { data, width: w, height: h, channels: ch } = img;
  const cc = colourChannels(img);
  let same = 0, n = 0;
  for (let y = 0; y < h; y++) {
    const row = y * w * ch;
    for (let x = 0; x + 1 < w; x++) {
      const i = row + x * ch;
      for (let c = 0; c < cc; c++) same += ((data[i + c] ^ data[i + c + ch]) & 1) ^ 1;
      n += cc;
    }
  }
  return n ? same / n : 1;
}
