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

/** WS's bar on noise-like pictures, per sample at full size. */
const NOISE_LIKE_BAR = 0.035;

/**
 * WS's confirming threshold as a factor of the base threshold (common.ts, sampleThreshold),
 * from the picture's LSB agreement: 7/6 (0.035 per sample at full size) on noise-like pictures,
 * above every clean one measured: the AI fixture and its resizes read up to 0.022 with the
 * cross-channel predictor (ws.ts; 0.052 before it, when this bar was 0.055), the noise-like
 * pictures of the outside corpus's calibration half up to 0.025; 0.5 on structured ones, where
 * RS and SPA are reliable and WS only has to lean the same way (0.015); linear between, since
 * pictures mixing AI noise with flat areas fall there (a crop of the C2PA fixture padded with
 * empty rows agrees 0.564). A 0.1 bpp payload (0.033 per sample) in a noise-like camera cover
 * reads 0.011-0.053 (median 0.035): the bar at 0.035 lets WS confirm about half of them, and
 * the verdict's near rule (index.ts: WS over 0.03 with RS/SPA over 0.02) more; 0.055 let none.
 */
export function wsFactor(agreement: number): number {
  const t = Math.min(1, Math.max(0, (agreement - NOISE_LIKE_AGREEMENT) / (STRUCTURED_AGREEMENT - NOISE_LIKE_AGREEMENT)));
  return NOISE_LIKE_BAR / 0.03 + t * (0.5 - NOISE_LIKE_BAR / 0.03);
}

/** Share of horizontally adjacent colour samples whose LSBs are equal. */
export function lsbAgreement(img: PixelImage): number {
  const { data, width: w, height: h, channels: ch, only } = img;
  const cc = colourChannels(img);
  let same = 0, n = 0;
  for (let y = 0; y < h; y++) {
    const row = y * w * ch;
    for (let x = 0; x + 1 < w; x++) {
      if (only && !(only[y * w + x] && only[y * w + x + 1])) continue;
      const i = row + x * ch;
      for (let c = 0; c < cc; c++) same += ((data[i + c] ^ data[i + c + ch]) & 1) ^ 1;
      n += cc;
    }
  }
  return n ? same / n : 1;
}
