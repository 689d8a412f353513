// Visible watermarks, from what OCR read: text in the outer band of the picture (corners and
// edges, where marks are put so they do not hide the subject) that reads like a copyright
// line or a stock agency's name. The watermark detector combines this with the invisible and
// declared marks; this file only reads the text.
import type { Box, TextReading } from './types.ts';

export interface VisibleMark {
  text: string;
  where: 'corner' | 'edge';
  kind: 'copyright' | 'stock_agency';
  box: Box;
  confidence: number;
}

/** Fraction of the width or height counted as the outer band. */
const BAND = 0.2;
const MIN_CONFIDENCE = 0.6;

// OCR reads © as ©, (c), (C) or, in small type, a lone c/C/@/® before a year or a name
const COPYRIGHT = /©|\(c\)|\bcopyright\b|\ball rights reserved\b|\bphoto(?:graph)?\s*(?:by|credit)\b|\bcredit\s*:/i;
const COPYRIGHT_SIGN = /(?:^|\s)[cC@®]\s?(?:19|20)\d{2}\b|^[cC@®]\s+\p{Lu}\p{L}+/u;
const AGENCIES = /getty\s*images|gettyimages|\bgetty\b|istock(?:photo)?|shutterstock|adobe\s*stock|\balamy\b|depositphotos|dreamstime|\b123rf\b|bigstock|\bfotolia\b|\bpond5\b|age\s*fotostock|agefotostock|\bcanstock|\bstocksy\b|\bunsplash\b|\bpexels\b|\bpixabay\b|\bvectorstock\b|\bfreepik\b|\bimago\b|\bkeystone\b|\breuters\b|\bafp\b|\bap photo\b|\bepa\b|\bsuperstock\b|\bmasterfile\b|\bcorbis\b|\bwatermark\b|\bstock\s*photo\b/i;

export function visibleMarks(reading: TextReading): VisibleMark[] {
  const marks: VisibleMark[] = [];
  for (const r of reading.regions) {
    if (r.confidence < MIN_CONFIDENCE) continue;
    const where = placeOf(r.box, reading.width, reading.height);
    if (!where) continue;
    const kind = AGENCIES.test(r.text) ? 'stock_agency' : COPYRIGHT.test(r.text) || COPYRIGHT_SIGN.test(r.text) ? 'copyright' : undefined;
    if (kind) marks.push({ text: r.text, where, kind, box: r.box, confidence: r.confidence });
  }
  return marks;
}

/** 'corner' when the box's centre is in the band on both axes, 'edge' on one, else undefined. */
function placeOf(b: Box, width: number, height: number): VisibleMark['where'] | undefined {
  const cx = (b.x + b.width / 2) / width;
  const cy = (b.y + b.height / 2) / height;
  const nearX = cx < BAND || cx > 1 - BAND;
  const nearY = cy < BAND || cy > 1 - BAND;
  return nearX && nearY ? 'corner' : nearX || nearY ? 'edge' : undefined;
}
