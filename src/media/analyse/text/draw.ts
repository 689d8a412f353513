// The text_regions asset: the picture downscaled, with a rectangle around each line of text
// found (what it says is not drawn). Made from raw pixels by sharp, so it carries no metadata.
import path from 'node:path';
import sharp from 'sharp';
import type { AssetFile } from '../detector.ts';
import type { RawImage, TextRegion } from './types.ts';

const MAX_SIDE = 1280;

export async function drawTextRegions(img: RawImage, regions: TextRegion[], outDir: string): Promise<AssetFile> {
  const scale = Math.min(1, MAX_SIDE / Math.max(img.width, img.height));
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const stroke = Math.max(2, Math.round(Math.max(w, h) / 400));
  const rects = regions
    .map(({ box: b }) => `<rect x="${(b.x * scale).toFixed(1)}" y="${(b.y * scale).toFixed(1)}" width="${(b.width * scale).toFixed(1)}" height="${(b.height * scale).toFixed(1)}" fill="none" stroke="#00c2ff" stroke-width="${stroke}"/>`)
    .join('');
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${rects}</svg>`);
  const base = sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: img.channels as 1 | 2 | 3 | 4 } });
  const flat = img.channels === 2 || img.channels === 4 ? base.flatten({ background: '#ffffff' }) : base;
  // resize into its own buffer first: within one pipeline sharp composites before resizing
  const small = await flat.resize(w, h, { fit: 'fill' }).toColourspace('srgb').png({ compressionLevel: 1 }).toBuffer();
  const out = path.join(outDir, 'text-regions.jpg');
  await sharp(small).composite([{ input: svg, top: 0, left: 0 }]).jpeg({ quality: 82 }).toFile(out);
  return { category: 'text_regions', path: out, mime: 'image/jpeg' };
}
