// The invisible part of the watermark check: the picture's blocks against every known mark,
// in both channel orders a generator may have used. Thresholds measured on clean and marked
// pictures (bench/watermark-agreement.ts): clean pictures reach at most 0.66 bit agreement and
// |0.02| correlation; marked ones 0.99-1.00 and 0.25 or more (even after a JPEG at quality 90
// without chroma subsampling). Both must pass, so a mark that shares bits with another (SD 1.x
// and 2.x are both ASCII) is not named in its place.
import type { PixelImage } from '../steganalysis/types.ts';
import { agreement, blockScores, type ChannelOrder } from './dwt-dct.ts';
import { KNOWN_MARKS } from './known-marks.ts';

export const MIN_BITS = 0.9;
export const MIN_CORRELATION = 0.1;
/** The reference encoder refuses smaller pictures, so they never carry the mark. */
export const MIN_PIXELS = 256 * 256;

export interface InvisibleReading {
  /** The known mark found, or null. */
  mark: string | null;
  source: string | null;
  /** Of the best-matching known mark: share of its bits read right, and block correlation. */
  agreement: number;
  correlation: number;
  channel_order: ChannelOrder | null;
  /** Too small for the scheme: the reference encoder never marks such a picture. */
  too_small: boolean;
}

export function readInvisible(px: PixelImage): InvisibleReading {
  const none: InvisibleReading = { mark: null, source: null, agreement: 0, correlation: 0, channel_order: null, too_small: false };
  if (px.width * px.height < MIN_PIXELS) return { ...none, too_small: true };
  let best = none;
  let bestFound: InvisibleReading | undefined;
  for (const order of ['bgr', 'rgb'] as const) {
    const scores = blockScores(px, order);
    for (const m of KNOWN_MARKS) {
      const a = agreement(scores, m.bits);
      const r: InvisibleReading = { mark: m.name, source: m.source, agreement: round(a.bits), correlation: round(a.correlation), channel_order: order, too_small: false };
      if (a.bits >= MIN_BITS && a.correlation >= MIN_CORRELATION && (!bestFound || a.correlation > bestFound.correlation)) bestFound = r;
      if (!bestFound && (best.channel_order === null || a.correlation > best.correlation)) best = { ...r, mark: null, source: null };
    }
  }
  return bestFound ?? best;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
