// OCR of one picture: scaled into the range tesseract reads well (huge inputs down, so a
// 12 MP photo costs what a 4 MP one does; small ones up, tesseract wants letters of 20+ px),
// greyscale, in memory only, and read back as lines with their boxes mapped to the displayed
// picture's pixels. A picture over about 1 MP at that scale is not read whole: tesseract's
// layout pass on a ~1 MP copy says where lines may be (find-lines.ts), and only those crops
// are read, at the full OCR scale. Lines tesseract is unsure of are dropped: in a photo without
// text it "reads" noise, foliage and textures at low confidence.
import sharp from 'sharp';
import type Tesseract from 'tesseract.js';
import { FIND_MAX_PIXELS, findLines, type GreyPlane } from './find-lines.ts';
import { AGAIN, distinct, readCrop, readLine } from './read-crops.ts';
import { withOcr } from './pool.ts';
import type { RawImage, TextReading, TextRegion } from './types.ts';

/** Pixels OCR runs on at most; larger pictures are downscaled first. */
export const OCR_MAX_PIXELS = 4_000_000;
/** Pictures whose long side is shorter are upscaled to it. */
const OCR_MIN_SIDE = 1200;
/** Confidence bars (0..100). Words under `word` are dropped from their line (mostly
 *  texture); a line's kept words must average `line`, and short lines (2-3 letters or digits,
 *  the commonest noise in photos: "Wi", "oF:", "23") `short`. Redaction reads with lower bars:
 *  blurring a patch of foliage costs little, leaving a name readable costs much. */
export const BARS = {
  report: { word: 50, line: 70, short: 88 },
  redact: { word: 40, line: 55, short: 80 },
};
/** Words without a letter or digit that still mean something (copyright, e-mail, phone). */
const MEANINGFUL_SYMBOLS = /^[©@+&®™#(]$/;
const MIN_SYMBOL_CONFIDENCE = 30;

export interface OcrOptions {
  recycleAfter?: number;
  signal?: AbortSignal;
  /** 'redact': keep less certain lines too (default 'report'). */
  purpose?: keyof typeof BARS;
}

export function ocrScale(width: number, height: number): number {
  const down = Math.sqrt(OCR_MAX_PIXELS / (width * height));
  if (down < 1) return down;
  const up = OCR_MIN_SIDE / Math.max(width, height);
  return Math.min(Math.max(1, up), 2, down);
}

/** Crops that together cover more than this share of the picture: it is read whole instead. */
const CROPS_MAX_SHARE = 0.6;

export async function readText(img: RawImage, opts: OcrOptions = {}): Promise<TextReading> {
  const scale = ocrScale(img.width, img.height);
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const base = sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: img.channels as 1 | 2 | 3 | 4 } });
  const flat = img.channels === 2 || img.channels === 4 ? base.flatten({ background: '#ffffff' }) : base;
  const data = await flat
    .resize(w, h, { fit: 'fill', kernel: scale < 1 ? 'lanczos3' : 'cubic' })
    .greyscale()
    .raw()
    .toBuffer();
  const grey: GreyPlane = { data, width: w, height: h };
  const lines = await withOcr(async (worker) => {
    if (w * h <= FIND_MAX_PIXELS) return readCrop(worker, grey, { x: 0, y: 0, width: w, height: h });
    const crops = await findLines(worker, grey);
    if (crops.reduce((n, c) => n + c.width * c.height, 0) > CROPS_MAX_SHARE * w * h) return readCrop(worker, grey, { x: 0, y: 0, width: w, height: h });
    const all: Tesseract.Line[] = [];
    const budget = { ...AGAIN };
    for (const crop of crops) {
      opts.signal?.throwIfAborted(); // the pool has ended the worker: stop here
      all.push(...(await readLine(worker, grey, crop, BARS.redact, budget)));
    }
    return distinct(all);
  }, opts);
  const bars = BARS[opts.purpose ?? 'report'];
  const regions = lines.flatMap((line) => region(line, bars, img.width / w, img.height / h, img.width, img.height));
  regions.sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x);
  return { regions, text: regions.map((r) => r.text).join('\n'), width: img.width, height: img.height };
}

function region(line: Tesseract.Line, bars: (typeof BARS)['report'], sx: number, sy: number, width: number, height: number): TextRegion[] {
  // a lone symbol is read less surely than a word (a small © after JPEG), so it gets a lower bar
  const words = line.words.filter((w) => (/[\p{L}\p{N}]/u.test(w.text) ? w.confidence >= bars.word : MEANINGFUL_SYMBOLS.test(w.text.trim()) && w.confidence >= MIN_SYMBOL_CONFIDENCE));
  const text = words.map((w) => w.text.trim()).filter(Boolean).join(' ');
  const alnum = (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
  if (alnum < 2) return [];
  // mean confidence weighted by length: one sure long word outweighs a shaky symbol
  const confidence = words.reduce((n, w) => n + w.confidence * w.text.length, 0) / words.reduce((n, w) => n + w.text.length, 0);
  if (confidence < (alnum < 4 ? bars.short : bars.line) || !plausible(text)) return [];
  const x0 = Math.min(...words.map((w) => w.bbox.x0));
  const y0 = Math.min(...words.map((w) => w.bbox.y0));
  const x1 = Math.max(...words.map((w) => w.bbox.x1));
  const y1 = Math.max(...words.map((w) => w.bbox.y1));
  const x = Math.max(0, Math.floor(x0 * sx));
  const y = Math.max(0, Math.floor(y0 * sy));
  const box = { x, y, width: Math.min(width, Math.ceil(x1 * sx)) - x, height: Math.min(height, Math.ceil(y1 * sy)) - y };
  return [{ box, text, confidence: Math.round(confidence) / 100 }];
}

/** Text, not noise: mostly letters and digits. */
function plausible(text: string): boolean {
  const alnum = (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
  return alnum / text.replace(/\s/g, '').length >= 0.5;
}
