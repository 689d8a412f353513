// Error level analysis: re-encode the picture as JPEG at a fixed quality and look at how much
// each pixel changes. Content that was saved at that quality before changes little; content
// with another history (pasted from an uncompressed or differently compressed source) can
// change more. Texture and edges also change more whatever their history, so the raw map
// mostly shows texture: the "hot" blocks here are blocks whose error is high *for their
// texture* (compared with blocks of like gradient activity in the same picture, see
// relativeToTexture). On a lossless original there is no compression history to compare, and
// the detector does not read manipulation from ELA there.
import sharp from 'sharp';
import type { PixelImage } from '../steganalysis/types.ts';
import { componentBox, components, histogramPercentile, percentile, relativeToTexture, type ForensicOutcome, type GreyImage } from './common.ts';

// libvips' cache must not keep the decoded picture (see probe.ts).
sharp.cache(false);

/** The re-encoding quality (the usual ELA setting). */
export const ELA_QUALITY = 90;
/** The map's one scaling rule, the same for every image so that maps compare: grey =
 *  min(255, 12 x difference), i.e. a difference of 21 levels or more is white. */
export const ELA_GAIN = 12;
/** A block is "hot" when its error is this many times that of blocks of like texture in the
 *  same picture (relativeToTexture)... */
const HOT_RATIO = 3;
/** ...expectations never below half a level... */
const ELA_FLOOR = 0.5;
/** ...and its mean error is at least this many levels (below, it is rounding noise). */
const HOT_MIN_LEVELS = 3;

export interface ElaStats {
  /** Mean absolute difference after re-encoding, in 8-bit levels (max over colour channels). */
  mean: number;
  /** 99th percentile of the difference, in levels. */
  p99: number;
  /** The brightest block's mean error over the median block's (texture not discounted). */
  max_block_ratio: number;
  /** Share of the blocks that are hot: HOT_RATIO x the error of like-textured blocks or more,
   *  and HOT_MIN_LEVELS levels or more. */
  hot_share: number;
  /** Share of the picture covered by the strongest hot region (a connected group of hot blocks
   *  covering 0.2% of the picture or more). */
  hot_region_share: number;
  /** Its median error over that of like-textured blocks (0 without a region). */
  hot_region_ratio: number;
  quality: number;
  /** Block side used for the block figures, in analysed-copy pixels. */
  block: number;
}

/**
 * ELA of 8-bit pixels (alpha is dropped); `grey` is their luma (toGrey); `block` is the side of
 * the blocks the figures are computed on. The map is min(255, ELA_GAIN x difference) at the
 * image's size.
 */
export async function errorLevel(img: PixelImage, grey: GreyImage, block: number): Promise<ForensicOutcome<ElaStats>> {
  const { width: w, height: h, channels } = img;
  const colour = channels >= 3 ? 3 : 1;
  let pipeline = sharp(img.data, { raw: { width: w, height: h, channels } });
  if (channels === 2 || channels === 4) pipeline = pipeline.removeAlpha();
  if (colour === 1) pipeline = pipeline.toColourspace('b-w'); // a grey JPEG, as a grey original would be
  // no Huffman optimisation: it changes only the entropy coding (same pixels), at twice the cost
  const jpeg = await pipeline.jpeg({ quality: ELA_QUALITY, optimiseCoding: false }).toBuffer();
  const { data: again, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const ac = info.channels;

  // the difference, max over colour channels (plain Uint8Array views: one element type for
  // the JIT whatever buffer type sharp returns)
  const n = w * h;
  const src = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.length);
  const dec = new Uint8Array(again.buffer, again.byteOffset, again.length);
  const diff = new Uint8Array(n);
  if (colour === 3 && ac >= 3) {
    for (let i = 0, j = 0, k = 0; i < n; i++, j += channels, k += ac) {
      diff[i] = Math.max(Math.abs(src[j] - dec[k]), Math.abs(src[j + 1] - dec[k + 1]), Math.abs(src[j + 2] - dec[k + 2]));
    }
  } else {
    for (let i = 0, j = 0, k = 0; i < n; i++, j += channels, k += ac) diff[i] = Math.abs(src[j] - dec[k]);
  }
  // its histogram and map
  const map = new Uint8Array(n);
  const hist = new Float64Array(256);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const d = diff[i];
    hist[d]++;
    sum += d;
    map[i] = Math.min(255, d * ELA_GAIN);
  }
  // per block: sums of the difference and of the gradient activity (|dx| + |dy| of the grey),
  // which stands for texture
  const gy = grey.data;
  const cols = Math.floor(w / block);
  const rows = Math.floor(h / block);
  const eSums = new Float64Array(cols * rows);
  const aSums = new Float64Array(cols * rows);
  for (let y = 0; y < rows * block; y++) {
    const r = Math.floor(y / block) * cols;
    const last = y === h - 1;
    for (let c = 0; c < cols; c++) {
      let se = 0;
      let sa = 0;
      for (let x = c * block, i = y * w + x, end = x + block; x < end; x++, i++) {
        se += diff[i];
        if (x < w - 1 && !last) sa += Math.abs(gy[i + 1] - gy[i]) + Math.abs(gy[i + w] - gy[i]);
      }
      eSums[r + c] += se;
      aSums[r + c] += sa;
    }
  }
  const area = block * block;
  const blocks = eSums.length;
  let maxBlock = 0;
  const means = new Float64Array(blocks);
  const texture = new Float64Array(blocks);
  for (let b = 0; b < blocks; b++) {
    means[b] = eSums[b] / area;
    texture[b] = aSums[b] / area;
    if (means[b] > maxBlock) maxBlock = means[b];
  }
  const medMean = blocks ? percentile(means, 0.5) : 0;
  const rel = relativeToTexture(means, texture, new Uint8Array(blocks).fill(1), ELA_FLOOR);
  const hot = new Uint8Array(blocks);
  let hotCount = 0;
  for (let b = 0; b < blocks; b++) if (means[b] >= HOT_MIN_LEVELS && rel[b] >= HOT_RATIO) (hot[b] = 1), hotCount++;
  // a region: a connected group of hot blocks covering 0.2% of the picture or more (lone hot
  // blocks are everywhere: a bright edge, a specular highlight); the strongest first
  const minCells = Math.max(4, Math.ceil(blocks * 0.002));
  const groups = components(hot, cols, rows)
    .filter((c) => c.cells >= minCells)
    .map((c) => ({ c, ratio: percentile(c.members.map((b) => rel[b]), 0.5) }))
    .sort((p, q) => q.ratio - p.ratio);
  const top = groups[0];
  const stats: ElaStats = {
    mean: n ? sum / n : 0,
    p99: histogramPercentile(hist, n, 0.99),
    max_block_ratio: blocks ? maxBlock / Math.max(medMean, 0.5) : 0,
    hot_share: blocks ? hotCount / blocks : 0,
    hot_region_share: top ? top.c.cells / blocks : 0,
    hot_region_ratio: top ? top.ratio : 0,
    quality: ELA_QUALITY,
    block,
  };
  const regions = groups.slice(0, 3).map((g) => componentBox(g.c, block));
  const out: GreyImage = { data: map, width: w, height: h };
  return { stats, map: out, regions };
}
