// Grey pixels: the LSB patterns of the busy pixels whose three colour channels agree in their
// upper 7 bits. Screenshots and drawings antialias their text and edges in exact greys (red,
// green and blue equal, LSBs included); LSB replacement writes random bits there, and a pixel
// rewritten whole (stegosuite writes all three channels of the pixels it picks, busy ones only)
// lands on each of the 8 LSB patterns alike, 6 of them mixed (say 0-1-0). So the mixed patterns
// fill evenly, each to 1/8 of the rewritten share, where a clean picture's own mixed greys
// (colour processing, resampling, a tint) favour a few patterns. Estimate: 8 x the emptiest mixed
// pattern's count / the grey busy pixels = the share of them rewritten.
//
// It reads stegosuite in menus and text, where the antialiased edges break WS and fool RS and
// SPA (on the calibration half: stegosuite at 0.1 bpp +4 covers of 159, none of 469 clean
// pictures flagged; none of 2,542 in rounds 1-6 either, uploads and covers), and answers only where it can: RGB, a
// structured LSB plane, enough grey busy pixels. Guards, each from a clean picture of the seen
// rounds that read otherwise: the mixed patterns within a factor 2 of each other (telescope
// images' own mixed greys spread 5-10 times), the flat greys exact (a picture whose untouched
// greys are mixed has its own; 1 % at most), and the rewritten share, spread over the whole
// picture, at least a quarter of the threshold (an OpenCV sample drawing, 3 % busy, read 16 %).
import { colourChannels, fmt, sampleThreshold } from './common.ts';
import { STRUCTURED_AGREEMENT } from './content.ts';
import type { Selection } from './selection.ts';
import type { PixelImage, StegoEstimate } from './types.ts';

/** Grey busy pixels needed for an answer, in number and as a share of the busy pixels. */
const MIN_GREYS = 1000;
const MIN_GREY_SHARE = 0.2;
/** The rewritten share of the grey busy pixels from which it decides (per pixel, 0..1). */
const REWRITTEN = 0.08;
/** The fullest mixed pattern at most this many times the emptiest. */
const EVEN = 2;
/** Flat greys: at most this share mixed, when there are MIN_GREYS of them. */
const FLAT_MIXED = 0.01;
/** The rewritten share x the busy share: at least this share of the picture's threshold. */
const SPREAD = 1 / 4;

/** null when the picture is not one it can read (grey, noise-like, too few grey busy pixels).
 *  `agreement`: the whole picture's LSB agreement (content.ts), as the verdict already read it. */
export function greyPixels(img: PixelImage, sel: Selection, agreement: number): StegoEstimate | null {
  if (colourChannels(img) !== 3 || agreement < STRUCTURED_AGREEMENT) return null;
  const { data, channels: ch } = img;
  const busy = new Array<number>(8).fill(0);
  const flat = new Array<number>(8).fill(0);
  const busyPixels = sel.share * sel.only.length;
  for (let p = 0, i = 0; p < sel.only.length; p++, i += ch) {
    const r = data[i], g = data[i + 1], b = data[i + 2];
    if (r >> 1 !== g >> 1 || g >> 1 !== b >> 1) continue;
    (sel.only[p] ? busy : flat)[((r & 1) << 2) | ((g & 1) << 1) | (b & 1)]++;
  }
  const greys = busy.reduce((a, b) => a + b, 0);
  if (greys < MIN_GREYS || greys < MIN_GREY_SHARE * busyPixels) return null;
  const mixed = busy.slice(1, 7);
  const least = Math.min(...mixed), most = Math.max(...mixed);
  const rewritten = Math.min(1, (8 * least) / greys);
  const flatGreys = flat.reduce((a, b) => a + b, 0);
  const flatMixed = flatGreys ? (flatGreys - flat[0] - flat[7]) / flatGreys : 0;
  // per colour sample over the whole picture: each rewritten pixel carries 3 bits
  const rate = rewritten * sel.share;
  const even = least > 0 && most <= EVEN * least;
  const flatExact = flatGreys < MIN_GREYS || flatMixed <= FLAT_MIXED;
  const spread = rate >= SPREAD * sampleThreshold(img.width * img.height);
  const detected = rewritten >= REWRITTEN && even && flatExact && spread;
  const why = !even ? `the mixed patterns uneven (${least}-${most}): the picture's own` : !flatExact ? `but ${fmt(100 * flatMixed, 1)} % of the flat greys are mixed too: the picture's own` : !spread ? 'too few over the whole picture to be a payload' : rewritten < REWRITTEN ? `under ${REWRITTEN}` : 'as rewriting leaves them';
  return {
    method: 'grey_pixels',
    rate,
    score: rewritten,
    detected,
    notes: [`${greys} grey busy pixels (three channels equal in their upper 7 bits), their 6 mixed LSB patterns at ${least}-${most}: about ${fmt(100 * rewritten, 1)} % of them rewritten, ${why}`],
  };
}
