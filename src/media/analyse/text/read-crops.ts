// Reading the crops find-lines.ts points at. Tesseract's reading of a line shifts with what is
// around it (letters outlined on a photo most of all: one crop reads "© Getty Images", one a few
// pixels wider "© Getty"), so a crop is widened while a line that reads like text runs into its
// side, a line that reads like text but was cut or is not sure is read again in crops fitted
// to it, and of the readings of one place the surest that no crop side cut is kept.
import sharp from 'sharp';
import type Tesseract from 'tesseract.js';
import type { GreyPlane } from './find-lines.ts';
import { countRead } from './pool.ts';
import type { Box } from './types.ts';

/** The bars a word and a line must reach to count as text here (ocr.ts's redaction bars). */
export interface Bars {
  word: number;
  line: number;
}

/** A line this close to a crop's side (in its heights) may go on past it. */
const EDGE = 0.5;
/** How far a crop is widened past such a side (in the line's heights), and how often. */
const WIDEN = 3;
const WIDEN_ROUNDS = 6;
/** A line whose every word is this sure is not read again, unless the layout had cut it. */
const SURE = 85;
/** What one picture may spend on reading again: widenings, and lines read in fitted crops. A
 *  page of text is many lines, and reading each several times would cost more than reading
 *  the page whole; past these, crops are read as the layout gave them. */
export const AGAIN = { widenings: 24, fits: 8 };
/** Crops fitted to a line that reads like text: margins around its sure words, in its heights. */
const FITS = [
  { x: 1, y: 0.5 },
  { x: 1.5, y: 0.8 },
];

const alnum = (s: string) => (s.match(/[\p{L}\p{N}]/gu) ?? []).length;

/** The words of a line that count as text: sure enough, with a letter or a digit. */
function sureWords(l: Tesseract.Line, bars: Bars): Tesseract.Word[] {
  return l.words.filter((w) => w.confidence >= bars.word && alnum(w.text) > 0);
}

/** How much of a line is sure text: each sure word's letters and digits times its confidence. */
function score(l: Tesseract.Line, bars: Bars): number {
  return sureWords(l, bars).reduce((n, w) => n + w.confidence * alnum(w.text), 0);
}

/** The lines read in a crop and in the crops widened or fitted from it (boxes in the plane's pixels). */
export async function readLine(worker: Tesseract.Worker, grey: GreyPlane, crop: Box, bars: Bars, budget: { widenings: number; fits: number }): Promise<Tesseract.Line[]> {
  let lines = await readCrop(worker, grey, crop);
  const all = [...lines];
  let widened = false;
  for (let round = 0; round < WIDEN_ROUNDS; round++) {
    let left = 0;
    let right = 0;
    for (const l of lines) {
      const sure = sureWords(l, bars);
      if (sure.reduce((n, w) => n + alnum(w.text), 0) < 2) continue;
      // a letter cut by the side is read unsurely or not at all: the line's words, sure or not, say how far it goes
      const lh = l.bbox.y1 - l.bbox.y0;
      if (Math.min(...l.words.map((w) => w.bbox.x0)) - crop.x < EDGE * lh) left = Math.max(left, WIDEN * lh);
      if (crop.x + crop.width - Math.max(...l.words.map((w) => w.bbox.x1)) < EDGE * lh) right = Math.max(right, WIDEN * lh);
    }
    const x0 = Math.max(0, Math.floor(crop.x - left));
    const x1 = Math.min(grey.width, Math.ceil(crop.x + crop.width + right));
    if ((x0 === crop.x && x1 === crop.x + crop.width) || budget.widenings <= 0) break;
    budget.widenings -= 1;
    crop = { ...crop, x: x0, width: x1 - x0 };
    widened = true;
    lines = await readCrop(worker, grey, crop);
    all.push(...lines);
  }
  for (const l of lines) {
    const sure = sureWords(l, bars);
    const letters = sure.reduce((n, w) => n + alnum(w.text), 0);
    if (letters < 3 || score(l, bars) < bars.line * letters) continue;
    if (!widened && l.words.every((w) => w.confidence >= SURE || alnum(w.text) === 0)) continue;
    if (budget.fits <= 0) break;
    budget.fits -= 1;
    const x0 = Math.min(...sure.map((w) => w.bbox.x0));
    const x1 = Math.max(...sure.map((w) => w.bbox.x1));
    const lh = l.bbox.y1 - l.bbox.y0;
    for (const f of FITS) {
      const fx0 = Math.max(0, Math.floor(x0 - f.x * lh));
      const fy0 = Math.max(0, Math.floor(l.bbox.y0 - f.y * lh));
      const fx1 = Math.min(grey.width, Math.ceil(x1 + f.x * lh));
      const fy1 = Math.min(grey.height, Math.ceil(l.bbox.y1 + f.y * lh));
      all.push(...(await readCrop(worker, grey, { x: fx0, y: fy0, width: fx1 - fx0, height: fy1 - fy0 })));
    }
  }
  return all;
}

/** Of lines that overlap (one place read in several crops), the surest of those that ran into
 *  no side of their crop (a cut line misses letters however sure the rest is). */
export function distinct(lines: Tesseract.Line[]): Tesseract.Line[] {
  const area = (b: Tesseract.Bbox) => Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
  const kept: Tesseract.Line[] = [];
  for (const l of [...lines].sort((a, b) => Number(cut.has(a)) - Number(cut.has(b)) || b.confidence - a.confidence)) {
    const clash = kept.some((k) => {
      const inter = area({ x0: Math.max(k.bbox.x0, l.bbox.x0), y0: Math.max(k.bbox.y0, l.bbox.y0), x1: Math.min(k.bbox.x1, l.bbox.x1), y1: Math.min(k.bbox.y1, l.bbox.y1) });
      return inter > 0.5 * Math.min(area(k.bbox), area(l.bbox));
    });
    if (!clash) kept.push(l);
  }
  return kept;
}

/** Lines whose words reach a side of their crop that is not the picture's own. */
const cut = new WeakSet<Tesseract.Line>();

/** The lines tesseract reads in one crop of the grey plane, their boxes in the plane's pixels. */
export async function readCrop(worker: Tesseract.Worker, grey: GreyPlane, crop: Box): Promise<Tesseract.Line[]> {
  const png = await sharp(grey.data, { raw: { width: grey.width, height: grey.height, channels: 1 } })
    .extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height })
    .png({ compressionLevel: 0 })
    .toBuffer();
  countRead(crop.width * crop.height);
  const page = await worker.recognize(png, {}, { text: false, blocks: true });
  const lines = (page.data.blocks ?? []).flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
  const shift = (b: Tesseract.Bbox): Tesseract.Bbox => ({ x0: b.x0 + crop.x, y0: b.y0 + crop.y, x1: b.x1 + crop.x, y1: b.y1 + crop.y });
  return lines.map((l) => {
    const moved = { ...l, bbox: shift(l.bbox), words: l.words.map((w) => ({ ...w, bbox: shift(w.bbox) })) };
    const lh = l.bbox.y1 - l.bbox.y0;
    if (l.words.length && ((crop.x > 0 && Math.min(...l.words.map((w) => w.bbox.x0)) < EDGE * lh) || (crop.x + crop.width < grey.width && crop.width - Math.max(...l.words.map((w) => w.bbox.x1)) < EDGE * lh))) cut.add(moved);
    return moved;
  });
}
