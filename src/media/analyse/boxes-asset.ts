// A picture asset with rectangles on it (faces found, lines of text found): the picture
// downscaled, the boxes drawn, and nothing else. Made from raw pixels by sharp, so it carries
// no metadata at all; what a box holds (a name, the text) is never drawn.
import path from 'node:path';
import sharp from 'sharp';
import type { AssetCategory, AssetFile } from './detector.ts';
import type { Box } from './forensics/common.ts';
import type { RawImage } from './text/types.ts';

const MAX_SIDE = 1280;

export async function drawBoxes(img: RawImage, boxes: Box[], outDir: string, asset: { category: AssetCategory; file: string; colour: string }): Promise<AssetFile> {
  const scale = Math.min(1, MAX_SIDE / Math.max(img.width, img.height));
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const stroke = Math.max(2, Math.round(Math.max(w, h) / 400));
  const rects = boxes
    .map((b) => `<rect x="${(b.x * scale).toFixed(1)}" y="${(b.y * scale).toFixed(1)}" width="${(b.width * scale).toFixed(1)}" height="${(b.height * scale).toFixed(1)}" fill="none" stroke="${asset.colour}" stroke-width="${stroke}"/>`)
    .join('');
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${rects}</svg>`);
  const base = sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: img.channels as 1 | 2 | 3 | 4 } });
  const flat = img.channels === 2 || img.channels === 4 ? base.flatten({ background: '#ffffff' }) : base;
  // resize into its own buffer first: within one pipeline sharp composites before resizing
  const small = await flat.resize(w, h, { fit: 'fill' }).toColourspace('srgb').png({ compressionLevel: 1 }).toBuffer();
  const out = path.join(outDir, asset.file);
  await sharp(small).composite([{ input: svg, top: 0, left: 0 }]).jpeg({ quality: 82 }).toFile(out);
  return { category: asset.category, path: out, mime: 'image/jpeg' };
}
