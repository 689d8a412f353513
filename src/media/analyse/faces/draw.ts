// The faces asset: the picture downscaled, with a rectangle around each face found. Made
// from raw pixels by sharp, so it carries no metadata at all.
import path from 'node:path';
import sharp from 'sharp';
import type { AssetFile } from '../detector.ts';
import type { FaceBox, RawImage } from './detect.ts';

const MAX_SIDE = 1280;

export async function drawFaces(img: RawImage, faces: FaceBox[], outDir: string): Promise<AssetFile> {
  const scale = Math.min(1, MAX_SIDE / Math.max(img.width, img.height));
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const stroke = Math.max(2, Math.round(Math.max(w, h) / 400));
  const rects = faces
    .map((f) => `<rect x="${(f.x * scale).toFixed(1)}" y="${(f.y * scale).toFixed(1)}" width="${(f.width * scale).toFixed(1)}" height="${(f.height * scale).toFixed(1)}" fill="none" stroke="#ff2d55" stroke-width="${stroke}"/>`)
    .join('');
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${rects}</svg>`);
  const base = sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: img.channels as 1 | 2 | 3 | 4 } });
  const flat = img.channels === 2 || img.channels === 4 ? base.flatten({ background: '#ffffff' }) : base;
  // resize first into its own buffer: composite applies before resize within one pipeline
  const small = await flat.resize(w, h, { fit: 'fill' }).toColourspace('srgb').png({ compressionLevel: 1 }).toBuffer();
  const out = path.join(outDir, 'faces.jpg');
  await sharp(small).composite([{ input: svg, top: 0, left: 0 }]).jpeg({ quality: 82 }).toFile(out);
  return { category: 'faces', path: out, mime: 'image/jpeg' };
}
