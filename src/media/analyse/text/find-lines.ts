// Where text may be in a large picture, found cheaply before anything is read: tesseract's own
// layout pass (no recognition) on a copy of about 1 MP. Its candidate lines, padded and merged,
// are the only parts OCR then reads at full OCR resolution (ocr.ts). A photo's texture still
// gives candidates, but reading a few small crops costs a fraction of reading the whole picture,
// where tesseract spends most of its time "reading" foliage and rocks.
import sharp from 'sharp';
import type Tesseract from 'tesseract.js';
import type { Box } from './types.ts';

/** Pixels the layout pass looks at; OCR pictures up to this size are read whole in one pass. */
export const FIND_MAX_PIXELS = 1_000_000;

/** Around a candidate line, in its own heights: room for the letters layout cut off at ~1 MP
 *  (ascenders, descenders, a first or last letter) and for tesseract's own margins. */
const PAD_X = 1;
const PAD_Y = 0.5;
const PAD_PX = 4;
/** Two boxes are of one row when they share this much of the lower one's height. */
const ROW_OVERLAP = 0.6;

/** A candidate narrower than this many of its heights holds two letters at most: in a photo
 *  it is nearly always a speck of texture (half the candidates, and half the reading time, on
 *  the bench photo), and a line of text has more of it that the layout does see. */
const MIN_ASPECT = 1.5;

/** An 8-bit grey plane (the picture at OCR scale). */
export interface GreyPlane {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * Boxes in the grey plane's pixels that may hold text (padded, overlaps merged), from the layout
 * of a copy scaled to FIND_MAX_PIXELS.
 */
export async function findLines(worker: Tesseract.Worker, grey: GreyPlane): Promise<Box[]> {
  const k = Math.max(1, Math.ceil(Math.sqrt((grey.width * grey.height) / FIND_MAX_PIXELS)));
  const small = minPool(grey, k);
  const png = await sharp(small.data, { raw: { width: small.width, height: small.height, channels: 1 } }).png({ compressionLevel: 0 }).toBuffer();
  // no recognition output asked for: tesseract.js then runs AnalyseLayout only
  const page = await worker.recognize(png, {}, { text: false, blocks: false, layoutBlocks: true });
  // the layout's blocks (lines with boxes, no text); tesseract.js's Page type omits them
  const blocks = (page.data as Tesseract.Page & { layoutBlocks?: Tesseract.Block[] | null }).layoutBlocks ?? [];
  const lines = blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
  const boxes = lines.filter((l) => l.bbox.x1 - l.bbox.x0 >= MIN_ASPECT * (l.bbox.y1 - l.bbox.y0)).map((l) => {
    const lh = (l.bbox.y1 - l.bbox.y0) * k;
    const x0 = Math.max(0, Math.floor(l.bbox.x0 * k - PAD_X * lh - PAD_PX));
    const y0 = Math.max(0, Math.floor(l.bbox.y0 * k - PAD_Y * lh - PAD_PX));
    const x1 = Math.min(grey.width, Math.ceil(l.bbox.x1 * k + PAD_X * lh + PAD_PX));
    const y1 = Math.min(grey.height, Math.ceil(l.bbox.y1 * k + PAD_Y * lh + PAD_PX));
    return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  });
  return merge(boxes.filter((b) => b.width > 0 && b.height > 0));
}

/**
 * The plane shrunk k times, each pixel the darkest of its k x k block: a thin dark stroke (the
 * outline of white letters on a bright sky, small print) survives, where averaging would fade
 * it into its background and the layout pass would not see the letters at all.
 */
export function minPool(grey: GreyPlane, k: number): GreyPlane {
  if (k === 1) return grey;
  const width = Math.ceil(grey.width / k);
  const height = Math.ceil(grey.height / k);
  const out = Buffer.alloc(width * height, 255);
  const src = grey.data;
  for (let y = 0; y < grey.height; y++) {
    const row = Math.floor(y / k) * width;
    for (let x = 0, i = y * grey.width; x < grey.width; x++, i++) {
      const o = row + Math.floor(x / k);
      if (src[i] < out[o]) out[o] = src[i];
    }
  }
  return { data: out, width, height };
}

/**
 * Boxes of one row that overlap, as one: the pieces the layout at ~1 MP cut a line into are read
 * together. Boxes of different rows stay apart (merged, a photo's texture would chain them into
 * one crop as large as the picture); a line two crops both hold is dropped once read (ocr.ts).
 */
export function merge(boxes: Box[]): Box[] {
  const out = boxes.map((b) => ({ ...b }));
  const sameRow = (a: Box, b: Box) => {
    const overlapX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
    const overlapY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
    return overlapX > 0 && overlapY > ROW_OVERLAP * Math.min(a.height, b.height);
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < out.length; i++) {
      for (let j = i + 1; j < out.length; j++) {
        const a = out[i];
        const b = out[j];
        if (sameRow(a, b)) {
          const x = Math.min(a.x, b.x);
          const y = Math.min(a.y, b.y);
          out[i] = { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
          out.splice(j, 1);
          changed = true;
          j = i;
        }
      }
    }
  }
  return out;
}
