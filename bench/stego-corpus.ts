// The steganalysis benchmark's covers: natural photos only (the repository's real camera photos,
// no synthetic images), decoded once from their JPEGs and from then on treated as lossless
// pixels, as Obscura's hide output is lossless. Each photo gives crops at several positions and
// three scales plus a whole-image resize, all 8-bit RGB.
//
// test/fixtures/c2pa-ai-generated.png is not a clean natural cover: it is the output of an image
// generator, and its C2PA manifest records "Applied imperceptible SynthID watermark", i.e. hidden
// content in its pixels. Its LSB plane is indeed decorrelated from the picture (neighbouring LSBs
// agree 51 % of the time, against 66 % in the mountain photo), and RS and SPA read 0.18 bpp
// over the whole image; WS does not confirm it, so the verdict is weak evidence, not a
// suspicion (steganalysis/index.ts). It is reported on its own here (AI_COVER_PHOTOS); the
// clean corpus of every class (test/helpers/clean-corpus.ts) has it and its resizes as class 'ai'.
import path from 'node:path';
import sharp from 'sharp';
import type { PixelImage } from '../src/media/analyse/steganalysis/types.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
export const PHOTOS = [
  'test/fixtures/photo-mountain.jpg',
  ...[1, 2, 3, 4, 5, 6].map((i) => `node_modules/@vladmandic/face-api/demo/sample${i}.jpg`),
].map((p) => path.join(ROOT, p));
export const AI_COVER_PHOTOS = [path.join(ROOT, 'test/fixtures/c2pa-ai-generated.png')];

export interface Cover {
  name: string;
  img: PixelImage;
}

async function rgb(pipeline: sharp.Sharp): Promise<PixelImage> {
  const { data, info } = await pipeline.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 };
}

function crop(img: PixelImage, left: number, top: number, width: number, height: number): PixelImage {
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((top + y) * img.width + left) * 3;
    out.set(img.data.subarray(from, from + width * 3), y * width * 3);
  }
  return { data: out, width, height, channels: 3 };
}

/** Crop rectangle at relative position (fx, fy) in 0..1 of the free space, clipped to the
 *  image (a crop larger than the picture used to read outside it and pad with zero rows). */
function at(img: PixelImage, w: number, h: number, fx: number, fy: number): [number, number, number, number] {
  w = Math.min(w, img.width);
  h = Math.min(h, img.height);
  return [Math.round((img.width - w) * fx), Math.round((img.height - h) * fy), w, h];
}

/**
 * 7 photos x 8 covers = 56 covers: at full resolution three 512x512 crops (upper left, centre,
 * lower right) and two 768x512 crops (upper right, lower left); the photo resized to 768 px
 * wide; a 768x512 centre crop of the photo resized to 3/4 and a 512x512 centre crop of it
 * resized to 1/2.
 */
export async function buildCorpus(photos: string[] = PHOTOS): Promise<Cover[]> {
  const covers: Cover[] = [];
  for (const file of photos) {
    const base = path.basename(file).replace(/\.\w+$/, '');
    const full = await rgb(sharp(file));
    const rects: Array<[string, [number, number, number, number]]> = [
      ['512-ul', at(full, 512, 512, 0.15, 0.15)],
      ['512-c', at(full, 512, 512, 0.5, 0.5)],
      ['512-lr', at(full, 512, 512, 0.85, 0.85)],
      ['768x512-ur', at(full, 768, 512, 0.9, 0.1)],
      ['768x512-ll', at(full, 768, 512, 0.1, 0.9)],
    ];
    for (const [tag, r] of rects) covers.push({ name: `${base}/${tag}`, img: crop(full, ...r) });
    covers.push({ name: `${base}/resize-768`, img: await rgb(sharp(file).resize({ width: 768 })) });
    const threeQ = await rgb(sharp(file).resize({ width: Math.round((full.width * 3) / 4) }));
    covers.push({ name: `${base}/3q-768x512-c`, img: crop(threeQ, ...at(threeQ, 768, 512, 0.5, 0.5)) });
    const half = await rgb(sharp(file).resize({ width: Math.round(full.width / 2) }));
    covers.push({ name: `${base}/half-512-c`, img: crop(half, ...at(half, 512, 512, 0.5, 0.5)) });
  }
  return covers;
}
