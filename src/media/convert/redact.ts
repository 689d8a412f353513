// Redaction: faces and/or text found in decoded pixels are blurred or filled in place, before
// any encoder sees them. The same code serves an image and each frame of a video.
import sharp, { type Sharp } from 'sharp';
import type { FaceDetection } from '../analyse/faces/detect.ts';
import { detectFacesOnThread } from '../analyse/faces/thread.ts';
import type { Box } from '../analyse/forensics/common.ts';
import type { RawImage } from '../analyse/text/types.ts';
import type { Conversion } from './backend.ts';
import type { RedactStyle, RedactTarget } from './options.ts';

/** Decoded 8-bit pixels, as the analyse readings take them. */
export type Pixels = RawImage;

/** A rectangle to redact, in pixels. */
export type Region = Box;

/** Redaction errs towards covering: faces are looked for with SSD at "high" sensitivity. */
const FACE_SENSITIVITY = 0.7;
/** Face boxes are tight (brows to chin); the margin takes in hair, ears and the jaw line. */
const FACE_MARGIN = 0.25;
const TEXT_MARGIN = 0.1;

/** The regions to redact in one picture, margins included, clipped to it. */
export async function findRegions(img: Pixels, targets: readonly RedactTarget[]): Promise<{ faces: Region[]; text: Region[] }> {
  let faces: Region[] = [];
  let text: Region[] = [];
  if (targets.includes('faces')) {
    // the faces thread an analysis uses: one face model per media worker, not two
    const found: FaceDetection = await detectFacesOnThread(img, FACE_SENSITIVITY);
    faces = found.faces.map((b) => grow(b, FACE_MARGIN, img));
  }
  if (targets.includes('text')) {
    // the text engineer's OCR: boxes of the lines it reads (what they say is not kept)
    const { findTextRegions } = await import('../analyse/text/regions.ts');
    const buf = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length);
    text = (await findTextRegions({ data: buf, width: img.width, height: img.height, channels: img.channels })).map((b) => grow(b, TEXT_MARGIN, img));
  }
  return { faces, text };
}

/** Redacts the regions in place. Colour channels only: alpha keeps the picture's shape. */
export function redactPixels(img: Pixels, regions: readonly Region[], style: RedactStyle): void {
  for (const r of regions) {
    if (r.width <= 0 || r.height <= 0) continue;
    if (style === 'fill') fill(img, r);
    else blur(img, r);
  }
}

function grow(b: Region, margin: number, img: Pixels): Region {
  const dx = Math.round(b.width * margin);
  const dy = Math.round(b.height * margin);
  const x = Math.max(0, Math.floor(b.x) - dx);
  const y = Math.max(0, Math.floor(b.y) - dy);
  const x2 = Math.min(img.width, Math.ceil(b.x + b.width) + dx);
  const y2 = Math.min(img.height, Math.ceil(b.y + b.height) + dy);
  return { x, y, width: Math.max(0, x2 - x), height: Math.max(0, y2 - y) };
}

const colourChannels = (c: number) => (c === 2 || c === 4 ? c - 1 : c);

function fill(img: Pixels, r: Region): void {
  const { data, width, channels } = img;
  const cc = colourChannels(channels);
  for (let y = r.y; y < r.y + r.height; y++) {
    for (let x = r.x; x < r.x + r.width; x++) {
      const i = (y * width + x) * channels;
      for (let c = 0; c < cc; c++) data[i + c] = 0;
    }
  }
}

/**
 * A blur that leaves no detail to recover: the region is averaged over a coarse grid (about 6
 * cells across) and smoothed back by bilinear interpolation between the cell centres. A
 * Gaussian of the same look would keep faint structure that sharpening can bring back.
 */
function blur(img: Pixels, r: Region): void {
  const { data, width, channels } = img;
  const cc = colourChannels(channels);
  const cell = Math.max(4, Math.ceil(Math.min(r.width, r.height) / 6));
  const gx = Math.ceil(r.width / cell);
  const gy = Math.ceil(r.height / cell);
  const sums = new Float64Array(gx * gy * cc);
  const counts = new Float64Array(gx * gy);
  for (let y = 0; y < r.height; y++) {
    const cy = Math.floor(y / cell);
    for (let x = 0; x < r.width; x++) {
      const g = cy * gx + Math.floor(x / cell);
      const i = ((r.y + y) * width + r.x + x) * channels;
      for (let c = 0; c < cc; c++) sums[g * cc + c] += data[i + c];
      counts[g]++;
    }
  }
  for (let g = 0; g < gx * gy; g++) for (let c = 0; c < cc; c++) sums[g * cc + c] /= counts[g] || 1;
  for (let y = 0; y < r.height; y++) {
    const fy = Math.min(gy - 1, Math.max(0, (y + 0.5) / cell - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(gy - 1, y0 + 1);
    const ty = fy - y0;
    for (let x = 0; x < r.width; x++) {
      const fx = Math.min(gx - 1, Math.max(0, (x + 0.5) / cell - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(gx - 1, x0 + 1);
      const tx = fx - x0;
      const i = ((r.y + y) * width + r.x + x) * channels;
      for (let c = 0; c < cc; c++) {
        const a = sums[(y0 * gx + x0) * cc + c] * (1 - tx) + sums[(y0 * gx + x1) * cc + c] * tx;
        const b = sums[(y1 * gx + x0) * cc + c] * (1 - tx) + sums[(y1 * gx + x1) * cc + c] * tx;
        data[i + c] = Math.round(a * (1 - ty) + b * ty);
      }
    }
  }
}

/** "3 regions redacted (2 faces, 1 text region)", for the job message and the notes. */
export function describeRedaction(faces: number, text: number, targets: readonly RedactTarget[]): string {
  const parts: string[] = [];
  if (targets.includes('faces')) parts.push(`${faces} face${faces === 1 ? '' : 's'}`);
  if (targets.includes('text')) parts.push(`${text} text region${text === 1 ? '' : 's'}`);
  const n = faces + text;
  return `${n} region${n === 1 ? '' : 's'} redacted (${parts.join(', ')}).`;
}

export interface Redacted {
  faces: number;
  text: number;
}

/** Renders an image pipeline to pixels, redacts them, and gives the pipeline to encode instead. */
export async function redactPipeline(pipeline: Sharp, targets: readonly RedactTarget[], style: RedactStyle, conversion: Conversion): Promise<{ pipeline: Sharp; redacted: Redacted }> {
  const { data, info } = await conversion.budget.sharp(pipeline, (p) => p.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true }));
  const img: Pixels = { data, width: info.width, height: info.height, channels: info.channels };
  const found = await findRegions(img, targets);
  redactPixels(img, [...found.faces, ...found.text], style);
  return { pipeline: sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }), redacted: { faces: found.faces.length, text: found.text.length } };
}
