// The manipulation detector ("forensic"): error level analysis, noise residual and, at 'deep'
// depth, copy-move detection (src/media/analyse/forensics/). Each method draws a map (an asset
// for people to look at) and gives figures; the verdict combines the figures into a score.
//
// What counts as evidence, and how much (score 0..1 = 1 - product of (1 - each part)):
// - a copy-move match (keypoint-clone.ts: ORB keypoints matched within the picture, a turned or
//   resized copy included, checked pixel for pixel): 0.85 to 0.95 on its own. It replaced block
//   matching (DCT features of 16 px blocks voting for one shift), which on the outside corpus's
//   calibration photos found no copy keypoints missed and flagged more untouched photos;
// - a region whose noise is 3x or more that of like-textured areas of the same picture: up to
//   0.6 (reached at 6x). Untouched photos measured 2.7x at most (see noise.ts);
// - on a JPEG only, a region whose re-encoding error is 5x or more that of like-textured
//   areas: up to 0.35 (reached at 9x), doubled (up to 0.6) when it lies on the noise region.
//   Untouched photos measured 4.5x at most. On any other format ELA mostly shows texture (and
//   lossy non-JPEG codecs have their own error patterns): its map is drawn, never counted.
// Verdict: 0.7 or more 'likely_manipulated', 0.35 or more 'possibly_manipulated', else
// 'no_indication' ("nothing stood out", never "authentic").
//
// Speed: at 'standard' depth, ELA and noise run on a copy of at most 2048 px on the long side
// (full size for most web pictures) and maps are stored at most 1024 px on the long side; at
// 'deep', both run at full size and maps are full size. Copy-move always works on a grey copy
// of at most 1024 px: keypoint matching takes 1-2 s there whatever the picture's size, and its
// memory is bounded (see memory.ts, DEEP_COPY_MOVE).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import sharp from 'sharp';
import { throwIfAborted } from '../../errors.ts';
import { listOf, type Message, type MessageId } from '../../../i18n/findings-format.ts';
import { gradeReason } from '../grade.ts';
import { finding, noAnswer, type AnalyseInput, type AnalyseOptions, type AssetCategory, type AssetFile, type Detector, type Finding } from '../detector.ts';
import { toGrey, type Box, type GreyImage } from '../forensics/common.ts';
import { errorLevel, type ElaStats } from '../forensics/ela.ts';
import { keypointClones, type KeypointClone } from '../forensics/keypoint-clone.ts';
import { noiseResidual, type NoiseStats } from '../forensics/noise.ts';
import type { PixelImage } from '../steganalysis/types.ts';

// libvips' cache must not keep the decoded picture (see probe.ts).
sharp.cache(false);

const NAME = 'forensic';
/** Below this (either side), the methods have too few blocks to compare. */
export const MIN_SIDE = 64;
/** Long side of the copy ELA and noise run on at 'standard' depth. */
const STANDARD_LONG_SIDE = 2048;
/** Long side of the maps stored at 'standard' depth. */
const STANDARD_MAP_SIDE = 1024;
/** Long side of the grey copy copy-move runs on. */
const CLONE_LONG_SIDE = 1024;
/** Block side of the ELA and noise figures, in analysed-copy pixels. */
const BLOCK = 16;

const LIKELY = 0.7;
const POSSIBLY = 0.35;
/** A noise region counts from this ratio to like-textured areas (untouched photos: 2.7x at most). */
const NOISE_EVIDENCE = 3;
/** An ELA hot region counts from this ratio (untouched photos: 4.5x at most). */
const ELA_EVIDENCE = 5;

export interface ElaVerdict extends ElaStats {
  /** Whether ELA counts in the score (JPEG files only). */
  counted: boolean;
  /** The strongest hot region, in the picture's pixels (null without one). */
  region: Box | null;
}

export interface NoiseVerdict extends NoiseStats {
  /** The strongest inconsistent region, in the picture's pixels (null without one). */
  region: Box | null;
}

export interface CloneVerdict {
  /** The method that saw the strongest copy: 'keypoints' (matched keypoints, any rotation or
   *  scale); null when nothing was found. ('blocks', block matching, is no longer run.) */
  method: 'keypoints' | 'blocks' | null;
  /** The two areas of the strongest copy (the one the shift starts from, then its copy), in
   *  the picture's pixels; empty when nothing was found. */
  regions: Box[];
  /** From the first region to the second (their centres, for keypoints), in the picture's
   *  pixels (blocks: dx > 0, or dx = 0 and dy > 0, as which of the two is the original cannot
   *  be told); null when nothing was found. */
  shift: { dx: number; dy: number } | null;
  /** How the copy was turned (degrees, clockwise as seen; -20 = 20° counter-clockwise) and resized (2 = twice as
   *  large) from the first region to the second; null unless keypoints saw it. */
  rotation_deg: number | null;
  scale: number | null;
  /** Keypoint pairs that agree on the copy's transform (0 when keypoints did not see it). */
  matches: number;
  /** Matched block pairs of block matching, which no longer runs: always 0, kept for clients
   *  that read it. */
  blocks: number;
  /** Further copies found, not described here. */
  other_shifts: number;
}

export interface ForensicVerdict {
  score: number;
  verdict: 'likely_manipulated' | 'possibly_manipulated' | 'no_indication';
  ela: ElaVerdict;
  noise: NoiseVerdict;
  /** null: copy-move was not run (standard depth, or the picture is too small for it). */
  clone: CloneVerdict | null;
}

export const manipulationDetector: Detector<ForensicVerdict> = {
  name: NAME,
  verdictOrder: 40,
  explainNoAnswerOnVideo: true,
  grade: {
    section: 'manipulation',
    points: (v) =>
      v?.verdict === 'likely_manipulated'
        ? [gradeReason(3, 'grade.forensic.likely')]
        : v?.verdict === 'possibly_manipulated'
          ? [gradeReason(1, 'grade.forensic.possible')]
          : [],
    unanswered: (v) => (v === null ? 'grade.check.forensic' : null),
  },
  async run(input: AnalyseInput, options: AnalyseOptions) {
    if (input.probe.kind === 'video') {
      // the same maps on the video's sampled frames (imported here: frame-checks imports this module's users)
      const { frameForensics } = await import('../video/frame-checks.ts');
      return frameForensics(input, options, manipulationDetector);
    }
    let img: PixelImage;
    try {
      img = await input.pixels();
    } catch {
      return noAnswer<ForensicVerdict>(NAME, 'finding.forensic.undecodable');
    }
    if (img.width < MIN_SIDE || img.height < MIN_SIDE) {
      return noAnswer<ForensicVerdict>(NAME, { id: 'finding.forensic.too_small', values: { width: img.width, height: img.height, min: MIN_SIDE } });
    }
    throwIfAborted(options.signal);
    const deep = options.depth === 'deep';

    const copy = deep ? img : await downscale(img, STANDARD_LONG_SIDE);
    const grey = toGrey(copy);
    const sx = img.width / copy.width;
    const sy = img.height / copy.height;
    const toPicture = (b: Box): Box => scaleBox(b, sx, sy, img.width, img.height);

    // libvips re-encodes for ELA in its own threads while the noise residual runs here
    const [ela, noise] = await Promise.all([errorLevel(copy, grey, BLOCK), Promise.resolve().then(() => noiseResidual(grey, BLOCK))]);
    throwIfAborted(options.signal);

    let clone: Awaited<ReturnType<typeof keypointClones>> | null = null;
    let cloneScale = { sx: 1, sy: 1 };
    if (deep) {
      const small = Math.max(grey.width, grey.height) > CLONE_LONG_SIDE ? await downscaleGrey(grey, CLONE_LONG_SIDE) : grey;
      cloneScale = { sx: img.width / small.width, sy: img.height / small.height };
      clone = await keypointClones(small, options.signal);
      throwIfAborted(options.signal);
    }

    const assets: AssetFile[] = [];
    // maps: the analysed copy's size at 'deep', at most STANDARD_MAP_SIDE at 'standard' (the
    // noise map is computed on a coarser grid and resized to the same size)
    const fit = deep ? 1 : Math.min(1, STANDARD_MAP_SIDE / Math.max(copy.width, copy.height));
    const mapW = Math.max(1, Math.round(copy.width * fit));
    const mapH = Math.max(1, Math.round(copy.height * fit));
    if (ela.map) assets.push(await writeMap(ela.map, mapW, mapH, options.outDir, 'ela_map'));
    if (noise.map) assets.push(await writeMap(noise.map, mapW, mapH, options.outDir, 'forensic_noise_map'));
    // The clone map is written only when a copy was found: an all-black map would tell nothing
    // the verdict does not (clone.regions is empty), and it would cost a file and a download.
    // It keeps the size of the copy copy-move ran on (white: matched blocks).
    if (clone?.map) assets.push(await writeMap(clone.map, clone.map.width, clone.map.height, options.outDir, 'forensic_clone'));

    // ---- verdict -----------------------------------------------------------------------
    const jpeg = input.probe.kind === 'image' && input.probe.format === 'jpeg';
    const elaRegion = ela.regions.length && ela.stats.hot_region_ratio > 0 ? toPicture(ela.regions[0]) : null;
    const noiseRegion = noise.regions.length && noise.stats.region_ratio > 0 ? toPicture(noise.regions[0]) : null;
    const elaVerdict: ElaVerdict = { ...ela.stats, counted: jpeg, region: elaRegion };
    const noiseVerdict: NoiseVerdict = { ...noise.stats, region: noiseRegion };

    const cloneVerdict = clone ? describeClones(clone.stats.clones, cloneScale, img.width, img.height) : null;

    const nr = noise.stats.region_ratio;
    const sNoise = nr >= NOISE_EVIDENCE ? 0.6 * Math.min(1, (nr - NOISE_EVIDENCE) / NOISE_EVIDENCE) : 0;
    const er = ela.stats.hot_region_ratio;
    const agree = elaRegion !== null && noiseRegion !== null && sNoise > 0 && overlaps(elaRegion, noiseRegion);
    let sEla = jpeg && er >= ELA_EVIDENCE ? 0.35 * Math.min(1, (er - ELA_EVIDENCE) / 4) : 0;
    if (agree) sEla = Math.min(0.6, 2 * sEla);
    const sClone = cloneVerdict?.method ? 0.85 + 0.1 * Math.min(1, cloneVerdict.matches / 100) : 0;
    const score = round(1 - (1 - sClone) * (1 - sNoise) * (1 - sEla), 3);
    const verdict: ForensicVerdict = {
      score,
      verdict: score >= LIKELY ? 'likely_manipulated' : score >= POSSIBLY ? 'possibly_manipulated' : 'no_indication',
      ela: roundAll(elaVerdict),
      noise: roundAll(noiseVerdict),
      clone: cloneVerdict,
    };

    // ---- findings ------------------------------------------------------------------------
    const findings: Finding[] = [];
    if (cloneVerdict && cloneVerdict.shift) {
      const [a, b] = cloneVerdict.regions;
      const values = {
        a: describe(a),
        b: describe(b),
        offset: offset(cloneVerdict.shift.dx, cloneVerdict.shift.dy),
        turned: transformed(cloneVerdict.rotation_deg ?? 0, cloneVerdict.scale ?? 1),
        matches: cloneVerdict.matches,
        others: cloneVerdict.other_shifts,
      };
      findings.push(finding(NAME, 'high', 'finding.forensic.clone', values, 'tip.forensic.clone'));
    }
    if (sNoise > 0 && noiseRegion) {
      findings.push(finding(NAME, 'medium', 'finding.forensic.noise', { area: describe(noiseRegion), ratio: nr.toFixed(1) }, 'tip.forensic.noise'));
    }
    if (elaRegion && er >= ELA_EVIDENCE) {
      if (jpeg) {
        findings.push(finding(NAME, agree ? 'medium' : 'low', 'finding.forensic.ela', { area: describe(elaRegion), ratio: er.toFixed(1), agree: agree ? 'yes' : 'no' }, 'tip.forensic.ela'));
      } else {
        findings.push(finding(NAME, 'info', 'finding.forensic.ela_not_jpeg', { area: describe(elaRegion) }));
      }
    }
    if (!clone) findings.push(finding(NAME, 'info', 'finding.forensic.clone_not_run'));
    if (findings.every((f) => f.severity === 'info')) {
      const methods: Message[] = [...(jpeg ? [{ id: 'finding.forensic.part.error_level' as const }] : []), { id: 'finding.forensic.part.noise' }, ...(clone ? [{ id: 'finding.forensic.part.copy_move' as const }] : [])];
      findings.push(finding(NAME, 'info', 'finding.forensic.none', { methods: listOf(methods, 'finding.part.comma', 'finding.part.and') }));
    }
    return { verdict, findings, assets };
  },
};

// ---- helpers ------------------------------------------------------------------------------

/** The verdict on copies: the strongest keypoint clone (most matches) in the picture's pixels. */
function describeClones(clones: KeypointClone[], scale: { sx: number; sy: number }, w: number, h: number): CloneVerdict {
  const best = clones[0];
  if (!best) return { method: null, regions: [], shift: null, rotation_deg: null, scale: null, matches: 0, blocks: 0, other_shifts: 0 };
  return {
    method: 'keypoints',
    regions: [best.from, best.to].map((b) => scaleBox(b, scale.sx, scale.sy, w, h)),
    shift: { dx: Math.round(best.dx * scale.sx), dy: Math.round(best.dy * scale.sy) },
    rotation_deg: best.rotation_deg,
    scale: best.scale,
    matches: best.matches,
    blocks: 0,
    other_shifts: clones.length - 1,
  };
}

/** ", turned 12° clockwise and 1.20× larger" (empty for what did not change). */
function transformed(rotation: number, scale: number): Message | '' {
  const parts: Message[] = [];
  const degrees = Math.abs(Math.round(rotation));
  if (Math.abs(rotation) >= 1) parts.push({ id: rotation > 0 ? 'finding.forensic.part.clockwise' : 'finding.forensic.part.counter_clockwise', values: { degrees } });
  if (Math.abs(scale - 1) >= 0.03) parts.push(scale > 1 ? { id: 'finding.forensic.part.larger', values: { factor: scale.toFixed(2) } } : { id: 'finding.forensic.part.smaller', values: { factor: (1 / scale).toFixed(2) } });
  return parts.length ? { id: 'finding.forensic.part.turned', values: { how: listOf(parts, 'finding.part.and') } } : '';
}

async function downscale(img: PixelImage, longSide: number): Promise<PixelImage> {
  if (Math.max(img.width, img.height) <= longSide) return img;
  const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels } })
    .resize(longSide, longSide, { fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as PixelImage['channels'] };
}

async function downscaleGrey(g: GreyImage, longSide: number): Promise<GreyImage> {
  const { data, info } = await sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } })
    .resize(longSide, longSide, { fit: 'inside' })
    .toColourspace('b-w') // one channel in, one out (sharp otherwise gives sRGB)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Writes a grey map as a PNG of width x height (no metadata: sharp writes none unless asked)
 *  under a fresh name. */
async function writeMap(map: GreyImage, width: number, height: number, dir: string, category: AssetCategory): Promise<AssetFile> {
  const file = path.join(dir, `${category}-${randomBytes(8).toString('hex')}.png`);
  let p = sharp(map.data, { raw: { width: map.width, height: map.height, channels: 1 } });
  if (map.width !== width || map.height !== height) {
    p = p.resize(width, height, { fit: 'fill', kernel: map.width < width ? 'linear' : 'lanczos3' });
  }
  await p.toColourspace('b-w').png().toFile(file);
  return { category, path: file, mime: 'image/png' };
}

function scaleBox(b: Box, sx: number, sy: number, w: number, h: number): Box {
  const x = Math.max(0, Math.min(w - 1, Math.round(b.x * sx)));
  const y = Math.max(0, Math.min(h - 1, Math.round(b.y * sy)));
  return { x, y, width: Math.max(1, Math.min(w - x, Math.round(b.width * sx))), height: Math.max(1, Math.min(h - y, Math.round(b.height * sy))) };
}

/** Whether the two boxes share at least half of the smaller one. */
function overlaps(a: Box, b: Box): boolean {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return false;
  return w * h >= 0.5 * Math.min(a.width * a.height, b.width * b.height);
}

/** "740 px right and 340 px up" (empty when it did not move) */
function offset(dx: number, dy: number): Message | '' {
  const parts: Message[] = [];
  const part = (id: MessageId, px: number): Message => ({ id, values: { px } });
  if (dx) parts.push(part(dx > 0 ? 'finding.forensic.part.right' : 'finding.forensic.part.left', Math.abs(dx)));
  if (dy) parts.push(part(dy > 0 ? 'finding.forensic.part.down' : 'finding.forensic.part.up', Math.abs(dy)));
  return parts.length ? listOf(parts, 'finding.part.and') : '';
}

/** "120×80 px at (10, 20)" */
function describe(b: Box): Message {
  return { id: 'finding.forensic.part.area', values: { width: b.width, height: b.height, x: b.x, y: b.y } };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The same object with its numbers rounded to 4 decimals (figures for people, not for maths). */
function roundAll<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = typeof v === 'number' ? round(v, 4) : v;
  return out as T;
}
