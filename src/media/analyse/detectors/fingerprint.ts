// Camera/encoder fingerprint of a JPEG: which encoder family made it (from its quantisation
// tables, Huffman tables, frame type and APPn segments), at what quality, and whether it was
// saved as JPEG more than once (double compression, as after an edit).
//
// Double compression: the double-quantisation (DQ) effect. A JPEG saved at step q1, decoded and
// saved again at a smaller step q2 holds, for each DCT frequency, values k = round(m * q1 / q2):
// some integers k cannot occur, so the histogram of that frequency has periodic empty bins. The
// decoded luminance is brought back to the 8x8 grid, transformed, divided by the file's own
// steps and rounded (which gives back the stored values up to decoder rounding), and for each
// candidate first step the counts in the bins it forbids are compared with what a
// single-compressed picture would hold there. That expectation comes from the same picture
// on a grid shifted by 4 pixels ("calibration": the shifted blocks do not carry the
// quantisation, so their histogram is a smooth stand-in for the picture's own statistics).
// Double compressed: the forbidden bins are nearly empty (observed/expected well under 1);
// single: they hold about what the calibration predicts (ratio near 1).
import sharp from 'sharp';
import { throwIfAborted } from '../../errors.ts';
import '../../probe.ts'; // sharp.cache(false): no decoded plaintext kept in libvips' cache
import { FORMAT_NAME, article } from '../../format-names.ts';
import { finding, noAnswer, type AnalyseInput, type AnalyseOptions, type Detector, type DetectorResult, type Finding, type Tags } from '../detector.ts';
import { ZIGZAG, parseJpeg, type JpegProcess, type JpegStructure, type QuantTable } from '../jpeg-structure.ts';
import { DCT_BASIS, IJG_CHROMA, IJG_LUMA, scaledTable } from '../jpeg-tables.ts';

const NAME = 'camera_fingerprint';

export interface DoubleCompressionStats {
  /** 8x8 luminance blocks used (clipped blocks are left out). */
  blocks: number;
  /** DCT frequencies that carried evidence. */
  positions: number;
  /** Coefficients found in the bins a first, coarser quantisation forbids ... */
  observed: number;
  /** ... and how many a single-compressed picture would hold there. */
  expected: number;
  /** observed / expected: near 1 for a single compression, near 0 for a double one. */
  ratio: number;
}

export interface CameraFingerprint {
  applicable: true;
  /** The tables are exactly those of a known encoder family at some quality. */
  matched: boolean;
  /** From the Software tag, the APPn segments or a comment; 'generic' for a bare JFIF (or
   *  segment-less) file that names nothing; null when unknown. */
  encoder_name: string | null;
  encoder_family: string;
  /** The quality setting (1-100) that reproduces the tables (matched), or the closest fit of
   *  the libjpeg scale (not matched). */
  quality_level: number | null;
  /** Root-mean-square difference between the tables and those of quality_level (0 when matched). */
  quality_fit_rms: number;
  make: string | null;
  model: string | null;
  software: string | null;
  process: JpegProcess | null;
  progressive: boolean;
  arithmetic_coding: boolean;
  subsampling: string | null;
  /** Huffman tables other than the standard's examples; null without Huffman tables. */
  optimised_huffman: boolean | null;
  quantisation_tables: Array<{ id: number; precision: 8 | 16; values: number[] }>;
  /** "APP0:JFIF", "APP1:Exif", "APP2:ICC_PROFILE", ..., once each, in file order. */
  app_segments: string[];
  comments: string[];
  restart_interval: number;
  truncated: boolean;
  /** Bytes after the end-of-image marker. */
  trailing_bytes: number;
  /** null: cannot tell (quality too high, picture too small or flat, not decodable, ...). */
  double_compressed: boolean | null;
  /** Strength of the evidence for double compression, 0..1 (0: none found). */
  double_compression_confidence: number | null;
  /** Quality of the earlier save, when known tables (libjpeg or mozjpeg) explain it ... */
  estimated_first_quality: number | null;
  /** ... and the family of those tables. */
  estimated_first_family: string | null;
  double_compression_stats: DoubleCompressionStats | null;
  /** Why double_compressed is null. */
  double_compression_note: string | null;
}

// --- quantisation tables -------------------------------------------------------------------

/** mozjpeg's default (its table set 3, by N. Robidoux), used for luminance and chrominance. */
const MOZJPEG_DEFAULT = [
  16, 16, 16, 18, 25, 37, 56, 85, 16, 17, 20, 27, 34, 40, 53, 75, 16, 20, 24, 31, 43, 62, 91, 135, 18, 27, 31, 40, 53,
  74, 106, 156, 25, 34, 43, 53, 69, 94, 131, 189, 37, 40, 62, 74, 94, 124, 169, 238, 56, 53, 91, 106, 131, 169, 226,
  311, 85, 75, 135, 156, 189, 238, 311, 418,
];

const FAMILY_IJG = 'libjpeg (IJG) standard tables';
const FAMILY_MOZJPEG = 'mozjpeg default tables';
const FAMILY_CUSTOM = 'custom tables (camera firmware, Photoshop or another encoder)';

const sameTable = (a: readonly number[], b: readonly number[]) => a.every((v, i) => v === b[i]);

interface TableUse {
  luma: QuantTable;
  /** The chroma components' table, when they have their own. */
  chroma: QuantTable | null;
}

function tablesInUse(s: JpegStructure): TableUse | null {
  const byId = new Map(s.quantTables.map((t) => [t.id, t]));
  const comps = s.frame?.components ?? [];
  const luma = byId.get(comps[0]?.tq ?? 0) ?? s.quantTables[0];
  if (!luma) return null;
  const chromaId = comps.length >= 3 ? comps[1].tq : null;
  const chroma = chromaId !== null && chromaId !== luma.id ? (byId.get(chromaId) ?? null) : null;
  return { luma, chroma };
}

/** The quality at which a family's tables reproduce these exactly, or null. */
function exactQuality(use: TableUse, lumaBase: readonly number[], chromaBase: readonly number[]): number | null {
  for (let q = 1; q <= 100; q++) {
    for (const baseline of [true, false]) {
      if (!sameTable(use.luma.values, scaledTable(lumaBase, q, baseline))) continue;
      if (use.chroma && !sameTable(use.chroma.values, scaledTable(chromaBase, q, baseline))) continue;
      return q;
    }
  }
  return null;
}

/** The libjpeg quality whose tables are closest (least squares) to these; with the RMS error. */
function closestQuality(use: TableUse): { quality: number; rms: number } {
  let best = { quality: 50, rms: Infinity };
  const baseline = use.luma.precision === 8;
  for (let q = 1; q <= 100; q++) {
    let sse = 0;
    let count = 0;
    const l = scaledTable(IJG_LUMA, q, baseline);
    for (let i = 0; i < 64; i++) sse += (use.luma.values[i] - l[i]) ** 2;
    count += 64;
    if (use.chroma) {
      const c = scaledTable(IJG_CHROMA, q, baseline);
      for (let i = 0; i < 64; i++) sse += (use.chroma.values[i] - c[i]) ** 2;
      count += 64;
    }
    const rms = Math.sqrt(sse / count);
    if (rms < best.rms) best = { quality: q, rms };
  }
  return { quality: best.quality, rms: Math.round(best.rms * 100) / 100 };
}

// --- double compression ----------------------------------------------------------------------

/** Natural indices of the AC frequencies examined: zig-zag 1..20 (the low frequencies, which
 *  keep enough non-zero values at any quality). */
const DQ_POSITIONS = ZIGZAG.slice(1, 21);
const DQ_MAX_CROP = 1024;
const DQ_MIN_SIDE = 128;
/** Largest |k| counted. */
const KMAX = 80;
/** Slack around a reachable value, in DCT units: a value m*q1 lands in bin k when it is within
 *  q2/2 of k*q2; steps are integers, so 0.5 also counts the exact ties (decoder rounding ~0.35). */
const DQ_MARGIN = 0.5;
/** Least expected count in the forbidden bins for a frequency to count as evidence. */
const DQ_MIN_EXPECTED = 30;
const DQ_MIN_TOTAL_EXPECTED = 200;
const DQ_MIN_POSITIONS = 3;
/** Luminance tables tried for the earlier save's quality. */
const FIRST_FAMILIES: Array<[string, readonly number[]]> = [
  [FAMILY_IJG, IJG_LUMA],
  [FAMILY_MOZJPEG, MOZJPEG_DEFAULT],
];
/** observed / expected at or below this: double compression. */
const DQ_RATIO_THRESHOLD = 0.35;

export interface DoubleCompression {
  doubleCompressed: boolean | null;
  confidence: number | null;
  firstQuality: number | null;
  /** The table family that explains the earlier save. */
  firstFamily: string | null;
  stats: DoubleCompressionStats | null;
  note: string | null;
}

const unknownDq = (note: string): DoubleCompression => ({ doubleCompressed: null, confidence: null, firstQuality: null, firstFamily: null, stats: null, note });

/**
 * Histograms of |round(F / q2)| for each examined frequency, over the 8x8 blocks of `y`
 * whose top-left corner is at (ox + 8i, oy + 8j). Blocks with a clipped sample are skipped.
 */
function blockHistograms(y: Float32Array, clip: Uint8Array, w: number, h: number, ox: number, oy: number, steps: number[]): { hist: Uint32Array[]; blocks: number } {
  const hist = DQ_POSITIONS.map(() => new Uint32Array(KMAX + 1));
  const rows = DQ_POSITIONS.map((p) => p >> 3);
  const cols = DQ_POSITIONS.map((p) => p & 7);
  const maxCol = Math.max(...cols);
  const rowT = new Float64Array(8 * 8); // rowT[yy * 8 + col]
  let blocks = 0;
  for (let by = oy; by + 8 <= h; by += 8) {
    for (let bx = ox; bx + 8 <= w; bx += 8) {
      let clipped = false;
      for (let yy = 0; yy < 8 && !clipped; yy++) {
        const base = (by + yy) * w + bx;
        for (let xx = 0; xx < 8; xx++) {
          if (clip[base + xx]) {
            clipped = true;
            break;
          }
        }
      }
      if (clipped) continue;
      blocks++;
      for (let yy = 0; yy < 8; yy++) {
        const base = (by + yy) * w + bx;
        for (let col = 0; col <= maxCol; col++) {
          let acc = 0;
          const b = col * 8;
          for (let xx = 0; xx < 8; xx++) acc += y[base + xx] * DCT_BASIS[b + xx];
          rowT[yy * 8 + col] = acc;
        }
      }
      for (let p = 0; p < DQ_POSITIONS.length; p++) {
        const r = rows[p] * 8;
        const c = cols[p];
        let f = 0;
        for (let yy = 0; yy < 8; yy++) f += DCT_BASIS[r + yy] * rowT[yy * 8 + c];
        const k = Math.abs(Math.round(f / steps[p]));
        if (k <= KMAX) hist[p][k]++;
      }
    }
  }
  return { hist, blocks };
}

/** Bins 1..KMAX that no multiple of q1 re-quantised with q2 can reach (with rounding noise). */
function forbiddenBins(q1: number, q2: number): number[] {
  const out: number[] = [];
  const reach = q2 / 2 + DQ_MARGIN;
  for (let k = 1; k <= KMAX; k++) {
    const m0 = Math.round((k * q2) / q1);
    let reachable = false;
    for (let m = m0 - 1; m <= m0 + 1 && !reachable; m++) if (Math.abs(k * q2 - m * q1) <= reach) reachable = true;
    if (!reachable) out.push(k);
  }
  return out;
}

interface Evidence {
  observed: number;
  expected: number;
}

function evidence(obs: Uint32Array, cal: Float64Array, bins: number[]): Evidence {
  let observed = 0;
  let expected = 0;
  for (const k of bins) {
    observed += obs[k];
    expected += cal[k];
  }
  return { observed, expected };
}

/** How strongly the forbidden bins are emptier than expected (a z-like score). */
const score = (e: Evidence) => (e.expected - e.observed) / Math.sqrt(e.expected + 1);

/** Decoded luminance of a centred, grid-aligned crop of the stored (unrotated) picture. */
async function decodeLuminance(bytes: Buffer, s: JpegStructure): Promise<{ y: Float32Array; clip: Uint8Array; w: number; h: number }> {
  const frame = s.frame!;
  const w = Math.min(DQ_MAX_CROP, frame.width - (frame.width % 8));
  const h = Math.min(DQ_MAX_CROP, frame.height - (frame.height % 8));
  const left = Math.floor((frame.width - w) / 16) * 8;
  const top = Math.floor((frame.height - h) / 16) * 8;
  // no ICC transform, no orientation: the samples the decoder produced, on the stored grid
  const { data, info } = await sharp(bytes, { ignoreIcc: true, failOn: 'truncated', sequentialRead: true, limitInputPixels: false })
    .extract({ left, top, width: w, height: h })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const ch = info.channels;
  const n = w * h;
  const y = new Float32Array(n);
  const clip = new Uint8Array(n);
  if (ch === 1 || ch === 2) {
    for (let i = 0; i < n; i++) {
      const v = data[i * ch];
      y[i] = v - 128;
      clip[i] = v === 0 || v === 255 ? 1 : 0;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const o = i * ch;
      const r = data[o];
      const g = data[o + 1];
      const b = data[o + 2];
      // the JFIF luminance: exactly the inverse of the decoder's YCbCr -> RGB, up to rounding
      y[i] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
      clip[i] = r === 0 || r === 255 || g === 0 || g === 255 || b === 0 || b === 255 ? 1 : 0;
    }
  }
  return { y, clip, w, h };
}

/** Double-compression analysis of a parsed JPEG (see the header comment for the method). */
export async function analyseDoubleCompression(bytes: Buffer, s: JpegStructure, signal?: AbortSignal): Promise<DoubleCompression> {
  const frame = s.frame;
  if (!frame) return unknownDq('no frame header');
  if (frame.process === 'lossless' || frame.process.startsWith('differential')) return unknownDq('lossless or hierarchical JPEG');
  if (frame.precision !== 8) return unknownDq(`${frame.precision}-bit samples`);
  const nc = frame.components.length;
  const rgbIds = nc === 3 && frame.components.map((c) => String.fromCharCode(c.id)).join('') === 'RGB';
  if (nc !== 1 && (nc !== 3 || s.adobeTransform === 0 || rgbIds)) return unknownDq('not a YCbCr or greyscale JPEG');
  if (s.truncated) return unknownDq('the file is truncated');
  if (frame.width < DQ_MIN_SIDE || frame.height < DQ_MIN_SIDE) return unknownDq('the picture is too small');
  const use = tablesInUse(s);
  if (!use || use.luma.precision !== 8) return unknownDq('no usable luminance table');
  const q2 = DQ_POSITIONS.map((p) => use.luma.values[p]);
  if (q2.some((v) => v < 1)) return unknownDq('invalid luminance table');
  if (q2.every((v) => v === 1)) return unknownDq('saved at the highest quality: a previous save leaves no trace the method can see');

  let lum: Awaited<ReturnType<typeof decodeLuminance>>;
  try {
    lum = await decodeLuminance(bytes, s);
  } catch {
    return unknownDq('the picture could not be decoded');
  }
  throwIfAborted(signal);
  const aligned = blockHistograms(lum.y, lum.clip, lum.w, lum.h, 0, 0, q2);
  const shifted = blockHistograms(lum.y, lum.clip, lum.w, lum.h, 4, 4, q2);
  if (aligned.blocks < 256 || shifted.blocks < 200) return unknownDq('too few unclipped 8x8 blocks');
  const norm = aligned.blocks / shifted.blocks;
  const cal = shifted.hist.map((h) => Float64Array.from(h, (v) => v * norm));

  // per frequency: the first step (any value) whose forbidden bins are the most clearly empty
  let observed = 0;
  let expected = 0;
  let positions = 0;
  const binCache = new Map<string, number[]>();
  const bins = (a: number, b: number) => {
    const key = `${a}/${b}`;
    let v = binCache.get(key);
    if (!v) binCache.set(key, (v = forbiddenBins(a, b)));
    return v;
  };
  for (let p = 0; p < DQ_POSITIONS.length; p++) {
    let best: Evidence | null = null;
    for (let q1 = q2[p] + 1; q1 <= 255; q1++) {
      const e = evidence(aligned.hist[p], cal[p], bins(q1, q2[p]));
      if (e.expected < DQ_MIN_EXPECTED) continue;
      if (!best || score(e) > score(best)) best = e;
    }
    if (!best) continue;
    positions++;
    observed += best.observed;
    expected += best.expected;
  }
  if (positions < DQ_MIN_POSITIONS || expected < DQ_MIN_TOTAL_EXPECTED) {
    const note = 'too little detail at this quality to tell';
    return { doubleCompressed: null, confidence: null, firstQuality: null, firstFamily: null, stats: { blocks: aligned.blocks, positions, observed, expected: Math.round(expected), ratio: expected ? round3(observed / expected) : 1 }, note };
  }
  const ratio = observed / expected;
  const doubleCompressed = ratio <= DQ_RATIO_THRESHOLD;
  // evidence strength: 1 when the forbidden bins are empty, 0 from half of the expectation up
  const confidence = round3(Math.max(0, Math.min(1, (0.5 - ratio) / 0.4)) * Math.min(1, expected / (4 * DQ_MIN_TOTAL_EXPECTED)));

  // the earlier quality, if libjpeg or mozjpeg tables at some quality explain the empty bins
  let firstQuality: number | null = null;
  let firstFamily: string | null = null;
  if (doubleCompressed) {
    let best: { q: number; family: string; e: Evidence } | null = null;
    for (let q = 1; q <= 100; q++) for (const [family, base] of FIRST_FAMILIES) {
      const q1 = scaledTable(base, q);
      const e: Evidence = { observed: 0, expected: 0 };
      for (let p = 0; p < DQ_POSITIONS.length; p++) {
        const a = q1[DQ_POSITIONS[p]];
        if (a <= q2[p]) continue;
        const ev = evidence(aligned.hist[p], cal[p], bins(a, q2[p]));
        e.observed += ev.observed;
        e.expected += ev.expected;
      }
      if (e.expected < DQ_MIN_TOTAL_EXPECTED) continue;
      if (!best || score(e) > score(best.e)) best = { q, family, e };
    }
    if (best && best.e.observed / best.e.expected <= DQ_RATIO_THRESHOLD) {
      firstQuality = best.q;
      firstFamily = best.family;
    }
  }
  return {
    doubleCompressed,
    confidence,
    firstQuality,
    firstFamily,
    stats: { blocks: aligned.blocks, positions, observed, expected: Math.round(expected), ratio: round3(ratio) },
    note: null,
  };
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

// --- encoder names -----------------------------------------------------------------------------

const EDITORS =
  /photoshop|lightroom|gimp|affinity|paint\.net|pixelmator|snapseed|acdsee|capture one|darktable|rawtherapee|luminar|picasa|photoscape|fotor|canva|polarr|vsco|picsart|facetune|paintshop|corel|imagemagick|graphicsmagick|xnview|irfanview|photopea|krita|digikam|photo editor/i;

const COMMENT_ENCODERS: Array<[RegExp, string]> = [
  [/gd-jpeg/i, 'gd-jpeg (PHP GD)'],
  [/^Lav[cf]/, 'FFmpeg (libavcodec)'],
  [/GIMP/, 'GIMP'],
  [/JPEGmini/i, 'JPEGmini'],
  [/ImageMagick/i, 'ImageMagick'],
  [/LEAD Technologies/i, 'LEADTOOLS'],
  [/Intel\(R\) JPEG Library/i, 'Intel JPEG Library'],
  [/Photoshop/i, 'Adobe Photoshop'],
];

function tagString(tags: Tags, ...keys: string[]): string | null {
  for (const k of keys) {
    const v = tags[k];
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 128);
    if (typeof v === 'number') return String(v);
  }
  return null;
}

/** "Canon" + "Canon EOS R5" -> "Canon EOS R5"; "Apple" + "iPhone 15" -> "Apple iPhone 15". */
function camera(make: string | null, model: string | null): string | null {
  if (make && model) return model.toLowerCase().startsWith(make.toLowerCase()) ? model : `${make} ${model}`;
  return make ?? model;
}

function encoderName(s: JpegStructure, software: string | null, make: string | null, model: string | null): string | null {
  if (software) {
    // a camera's firmware or OS version says little on its own: name the camera with it
    const cam = camera(make, model);
    if (cam && !EDITORS.test(software) && /^(v|ver\.?|version|firmware)?\s*[\d.]+[\w.() -]*$/i.test(software)) return `${cam} (firmware ${software})`;
    return software;
  }
  const ids = new Set(s.appSegments.map((a) => `APP${a.n}:${a.id}`));
  if (ids.has('APP12:Ducky')) return 'Adobe Photoshop (Save for Web)';
  for (const c of s.comments) for (const [re, name] of COMMENT_ENCODERS) if (re.test(c)) return name;
  if (ids.has('APP14:Adobe')) return 'Adobe (APP14 segment)';
  if ([...ids].every((id) => id === 'APP0:JFIF' || id === 'APP0:JFXX')) return 'generic';
  return null;
}

// --- the detector ------------------------------------------------------------------------------

async function run(input: AnalyseInput, options: AnalyseOptions): Promise<DetectorResult<CameraFingerprint>> {
  if (input.probe.format !== 'jpeg') {
    const label = FORMAT_NAME[input.probe.format as keyof typeof FORMAT_NAME] ?? input.probe.format;
    return noAnswer(NAME, { id: 'finding.camera_fingerprint.not_jpeg', values: { article: article(label), format: label } });
  }
  const bytes = await input.bytes();
  const s = parseJpeg(bytes);
  if (!s) return noAnswer(NAME, 'finding.camera_fingerprint.not_jpeg_start', 'low');
  const use = tablesInUse(s);
  if (!s.frame || !use) return noAnswer(NAME, 'finding.camera_fingerprint.no_frame', 'low');
  throwIfAborted(options.signal);

  let tags: Tags = {};
  try {
    tags = await input.tags();
  } catch {
    // no tags: the fingerprint stands on the file's structure alone
  }
  const make = tagString(tags, 'IFD0:Make', 'XMP-tiff:Make');
  const model = tagString(tags, 'IFD0:Model', 'XMP-tiff:Model');
  const software = tagString(tags, 'IFD0:Software', 'XMP-xmp:CreatorTool', 'XMP-tiff:Software');

  let family = FAMILY_CUSTOM;
  let quality: number | null = exactQuality(use, IJG_LUMA, IJG_CHROMA);
  let matched = quality !== null;
  let rms = 0;
  if (matched) family = FAMILY_IJG;
  else if ((quality = exactQuality(use, MOZJPEG_DEFAULT, MOZJPEG_DEFAULT)) !== null) {
    matched = true;
    family = FAMILY_MOZJPEG;
  } else {
    const fit = closestQuality(use);
    quality = fit.quality;
    rms = fit.rms;
  }

  const dq = await analyseDoubleCompression(bytes, s, options.signal);
  throwIfAborted(options.signal);

  const appSegments = [...new Set(s.appSegments.map((a) => (a.id ? `APP${a.n}:${a.id}` : `APP${a.n}`)))];
  const name = encoderName(s, software, make, model);
  const huffman = s.huffmanTables.length ? s.huffmanTables.some((t) => !t.standard) : null;
  const verdict: CameraFingerprint = {
    applicable: true,
    matched,
    encoder_name: name,
    encoder_family: family,
    quality_level: quality,
    quality_fit_rms: rms,
    make,
    model,
    software,
    process: s.frame.process,
    progressive: s.frame.process === 'progressive' || s.frame.process === 'differential_progressive',
    arithmetic_coding: s.frame.arithmetic,
    subsampling: s.subsampling,
    optimised_huffman: huffman,
    quantisation_tables: s.quantTables.map((t) => ({ id: t.id, precision: t.precision, values: [...t.values] })),
    app_segments: appSegments,
    comments: s.comments,
    restart_interval: s.restartInterval,
    truncated: s.truncated,
    trailing_bytes: s.trailingBytes,
    double_compressed: dq.doubleCompressed,
    double_compression_confidence: dq.confidence,
    estimated_first_quality: dq.firstQuality,
    estimated_first_family: dq.firstFamily,
    double_compression_stats: dq.stats,
    double_compression_note: dq.note,
  };

  const findings: Finding[] = [];
  if (dq.doubleCompressed) {
    findings.push(
      dq.firstQuality
        ? finding(NAME, 'medium', 'finding.camera_fingerprint.double_compressed_first', { quality: dq.firstQuality }, 'tip.camera_fingerprint.double_compressed')
        : finding(NAME, 'medium', 'finding.camera_fingerprint.double_compressed', undefined, 'tip.camera_fingerprint.double_compressed'),
    );
  }
  const editor = name && EDITORS.test(name) ? name : null;
  if (editor) {
    findings.push(finding(NAME, 'low', 'finding.camera_fingerprint.edited_with', { editor }, 'tip.camera_fingerprint.edited_with'));
  }
  if (quality !== null) {
    // the tables matched exactly are IJG's or mozjpeg's (the verdict names the family in English)
    const tables = { id: family === FAMILY_MOZJPEG ? 'finding.camera_fingerprint.family.mozjpeg' : 'finding.camera_fingerprint.family.ijg' } as const;
    findings.push(matched ? finding(NAME, 'info', 'finding.camera_fingerprint.quality', { quality, family: tables }) : finding(NAME, 'info', 'finding.camera_fingerprint.quality_about', { quality }));
  }
  if (s.truncated) {
    findings.push(finding(NAME, 'info', 'finding.camera_fingerprint.truncated'));
  } else if (s.errors.length) {
    findings.push(finding(NAME, 'info', 'finding.camera_fingerprint.damaged', { error: s.errors[0], others: s.errors.length - 1, orMore: s.errors.length >= 16 ? 'yes' : 'no' }));
  }
  return { verdict, findings, assets: [] };
}

export const fingerprintDetector: Detector<CameraFingerprint> = {
  name: NAME,
  verdictOrder: 30,
  explainNoAnswerOnVideo: true,
  async run(input, options) {
    try {
      return await run(input, options);
    } catch (e) {
      if (options.signal?.aborted) throw e;
      return noAnswer(NAME, 'finding.camera_fingerprint.unreadable', 'low');
    }
  },
};
