// Clean (message-free) images of every class people send, for the steganalysis false-positive
// rate: AI-generated pictures and their resizes and crops, SVG renders and gradients,
// screenshots, denoised and beautified phone photos, JPEG-decompressed PNGs and camera-like
// photos. Everything is made here from the repository's files (no network), deterministically
// (fixed sizes, offsets, qualities and seeded noise), as 8-bit RGB pixels. Shared by
// test/steganalysis-clean.test.ts (size 'small') and the stego and analyse benchmarks ('large').
import path from 'node:path';
import sharp from 'sharp';
import { seededRandom } from '../../src/media/analyse/steganalysis/naive-lsb.ts';
import type { PixelImage } from '../../src/media/analyse/steganalysis/types.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const AI_PNG = path.join(ROOT, 'test/fixtures/c2pa-ai-generated.png');
const PHOTO = path.join(ROOT, 'test/fixtures/photo-mountain.jpg');
const DEMO = path.join(ROOT, 'node_modules/@vladmandic/face-api/demo');
const MORE_PHOTOS = [1, 2, 3, 4, 5, 6].map((i) => path.join(DEMO, `sample${i}.jpg`));
const SCREENSHOTS = ['screenshot-images.png', 'screenshot-webcam.png'].map((f) => path.join(DEMO, f));

export const CLASSES = ['ai', 'render', 'screenshot', 'denoised', 'jpeg_png', 'camera'] as const;
export type CleanClass = (typeof CLASSES)[number];
export interface CleanImage {
  cls: CleanClass;
  name: string;
  img: PixelImage;
}
export type CorpusSize = 'small' | 'large';

async function rgb(p: sharp.Sharp): Promise<PixelImage> {
  const { data, info } = await p.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 };
}
const fromRaw = (img: PixelImage) => sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: img.channels } });

/** Crop of w x h at relative position (fx, fy) of the free space. */
async function cropAt(file: string | Buffer, w: number, h: number, fx: number, fy: number, scale = 1): Promise<PixelImage> {
  let p = sharp(file);
  const meta = await p.metadata();
  const W = Math.round((meta.width as number) * scale), H = Math.round((meta.height as number) * scale);
  if (scale !== 1) p = sharp(await p.resize(W, H, { kernel: 'lanczos3' }).png({ compressionLevel: 0 }).toBuffer());
  const cw = Math.min(w, W), ch = Math.min(h, H);
  return rgb(p.extract({ left: Math.round((W - cw) * fx), top: Math.round((H - ch) * fy), width: cw, height: ch }));
}

/** Mild Gaussian-like sensor noise (sum of uniforms), seeded. */
function addNoise(img: PixelImage, sigma: number, seed: number): PixelImage {
  const rnd = seededRandom(seed);
  const out = new Uint8Array(img.data.length);
  for (let i = 0; i < out.length; i++) {
    const g = (rnd() + rnd() + rnd() + rnd() - 2) * Math.sqrt(3); // unit variance
    out[i] = Math.max(0, Math.min(255, Math.round(img.data[i] + g * sigma)));
  }
  return { ...img, data: out };
}

// ---- classes

async function ai(size: CorpusSize): Promise<CleanImage[]> {
  const out: CleanImage[] = [{ cls: 'ai', name: 'ai/full', img: await rgb(sharp(AI_PNG)) }];
  const widths = size === 'small' ? [512, 768, 1000] : [384, 448, 512, 600, 640, 700, 768, 800, 900, 1000, 1100, 1200, 1280];
  for (const w of widths) out.push({ cls: 'ai', name: `ai/lanczos-${w}`, img: await rgb(sharp(AI_PNG).resize({ width: w, kernel: 'lanczos3' })) });
  if (size === 'large') {
    for (const [fx, fy] of [[0, 0], [0.5, 0.5], [1, 1], [0.25, 0.75], [0.75, 0.25], [1, 0]]) out.push({ cls: 'ai', name: `ai/crop-512-${fx}-${fy}`, img: await cropAt(AI_PNG, 512, 512, fx, fy) });
    for (const s of [0.4, 0.6, 0.85]) for (const [fx, fy] of [[0.3, 0.3], [0.7, 0.6]]) out.push({ cls: 'ai', name: `ai/scale-${s}-crop-384-${fx}-${fy}`, img: await cropAt(AI_PNG, 384, 384, fx, fy, s) });
    // exact 2:1 and 4:1 reductions leave more LSB structure than other ratios
    for (const d of [2, 4]) out.push({ cls: 'ai', name: `ai/lanczos-1:${d}`, img: await rgb(sharp(AI_PNG).resize({ width: 1376 / d, kernel: 'lanczos3' })) });
    out.push({ cls: 'ai', name: 'ai/half-crop-512', img: await cropAt(AI_PNG, 512, 512, 0.5, 0.5, 0.5) });
    for (const k of ['cubic', 'mitchell'] as const) out.push({ cls: 'ai', name: `ai/${k}-700`, img: await rgb(sharp(AI_PNG).resize({ width: 700, kernel: k })) });
  }
  return out;
}

const GRADIENTS = [
  ['#1e3c72', '#2a5298'], ['#ff7e5f', '#feb47b'], ['#000000', '#ffffff'], ['#0f2027', '#2c5364'], ['#f7971e', '#ffd200'], ['#8e2de2', '#4a00e0'],
];
function sceneSvg(i: number, w: number, h: number): string {
  const [a, b] = GRADIENTS[i % GRADIENTS.length];
  const shapes = [0, 1, 2, 3].map((k) => {
    const cx = ((i * 97 + k * 211) % w), cy = ((i * 53 + k * 137) % h), r = 40 + ((i + k) * 29) % 120;
    return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="url(#r${k % 2})" opacity="0.8"/>`;
  }).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs>
<linearGradient id="g" x1="0" y1="0" x2="${i % 2}" y2="1"><stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="${b}"/></linearGradient>
<radialGradient id="r0"><stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="${b}"/></radialGradient>
<radialGradient id="r1"><stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="#202020" stop-opacity="0.3"/></radialGradient>
<filter id="s"><feGaussianBlur stdDeviation="${2 + (i % 4) * 3}"/></filter></defs>
<rect width="100%" height="100%" fill="url(#g)"/><g filter="${i % 3 === 0 ? 'url(#s)' : ''}">${shapes}</g>
<rect x="${w / 5}" y="${h / 1.6}" width="${w / 2}" height="${h / 5}" rx="18" fill="${b}" opacity="0.6"/></svg>`;
}

async function render(size: CorpusSize): Promise<CleanImage[]> {
  const n = size === 'small' ? 3 : 18;
  const out: CleanImage[] = [];
  for (let i = 0; i < n; i++) {
    const w = [512, 640, 800][i % 3], h = [512, 480, 600][(i >> 1) % 3];
    out.push({ cls: 'render', name: `render/scene-${i}`, img: await rgb(sharp(Buffer.from(sceneSvg(i, w, h)))) });
  }
  return out;
}

function uiSvg(i: number, w: number, h: number): string {
  const dark = i % 2 === 1;
  const bg = dark ? '#1e1f22' : '#f5f6f8', fg = dark ? '#dcdcdc' : '#202124', accent = ['#1a73e8', '#d93025', '#188038', '#f29900'][i % 4];
  const rows = Array.from({ length: 14 }, (_, r) => `<text x="${230 + (r % 3) * 8}" y="${110 + r * 28}" font-family="DejaVu Sans" font-size="${13 + (i % 3)}" fill="${fg}">${['Inbox', 'Meeting notes for Tuesday 10:30', 'Re: quarterly report (draft 3)', 'Your order has shipped', 'Invoice #2026-0117', 'Photos from the weekend'][(r + i) % 6]} — ${(r * 7 + i) % 60} min ago</text>`).join('');
  const side = Array.from({ length: 8 }, (_, r) => `<text x="24" y="${110 + r * 32}" font-family="DejaVu Sans" font-size="14" fill="${fg}">${['Home', 'Search', 'Library', 'Settings', 'Profile', 'Help', 'Drafts', 'Archive'][r]}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="${bg}"/>
<rect width="100%" height="56" fill="${accent}"/><text x="20" y="36" font-family="DejaVu Sans" font-weight="bold" font-size="20" fill="#ffffff">Obscura Mail ${i}</text>
<rect x="0" y="56" width="200" height="${h}" fill="${dark ? '#2b2d31' : '#e8eaed'}"/>${side}${rows}
<rect x="${w - 180}" y="${h - 70}" width="150" height="44" rx="22" fill="${accent}"/><text x="${w - 150}" y="${h - 42}" font-family="DejaVu Sans" font-size="16" fill="#fff">Compose</text>
<circle cx="${w - 40}" cy="28" r="16" fill="#ffffff" opacity="0.85"/></svg>`;
}

async function screenshot(size: CorpusSize): Promise<CleanImage[]> {
  const n = size === 'small' ? 2 : 10;
  const out: CleanImage[] = [];
  for (let i = 0; i < n; i++) {
    const [w, h] = [[800, 600], [1024, 640], [720, 540], [960, 720]][i % 4];
    out.push({ cls: 'screenshot', name: `screenshot/ui-${i}`, img: await rgb(sharp(Buffer.from(uiSvg(i, w, h)))) });
  }
  const real = size === 'small' ? SCREENSHOTS.slice(0, 1) : SCREENSHOTS;
  for (const f of real) {
    out.push({ cls: 'screenshot', name: `screenshot/${path.basename(f, '.png')}`, img: await rgb(sharp(f)) });
    if (size === 'large') for (const [fx, fy] of [[0, 0], [1, 1], [0.5, 0.5]]) out.push({ cls: 'screenshot', name: `screenshot/${path.basename(f, '.png')}-crop-${fx}-${fy}`, img: await cropAt(f, 512, 400, fx, fy) });
  }
  return out;
}

/** Phone "beauty" and noise-reduction filters: median, blur, and an edge-keeping smoothing
 *  (blur blended back where the picture has edges, roughly what a bilateral filter does). */
async function denoised(size: CorpusSize): Promise<CleanImage[]> {
  const photos = size === 'small' ? [PHOTO] : [PHOTO, ...MORE_PHOTOS.slice(0, 4)];
  const out: CleanImage[] = [];
  for (const [pi, f] of photos.entries()) {
    const base = path.basename(f, '.jpg');
    const src = await sharp(f).resize({ width: 900 }).png({ compressionLevel: 0 }).toBuffer();
    const ops: Array<[string, (p: sharp.Sharp) => sharp.Sharp]> = [
      ['median3', (p) => p.median(3)], ['median5', (p) => p.median(5)], ['blur1', (p) => p.blur(1)], ['blur2', (p) => p.blur(2)],
      ['beauty', (p) => p.median(3).blur(0.8).modulate({ brightness: 1.05, saturation: 1.15 }).sharpen({ sigma: 0.6 })],
    ];
    for (const [tag, op] of size === 'small' ? ops.slice(0, 3) : ops) out.push({ cls: 'denoised', name: `denoised/${base}-${tag}`, img: await rgb(op(sharp(src))) });
    if (pi < (size === 'small' ? 1 : 3)) out.push({ cls: 'denoised', name: `denoised/${base}-bilateral`, img: await edgeKeeping(src) });
  }
  return out;
}

async function edgeKeeping(src: Buffer): Promise<PixelImage> {
  const orig = await rgb(sharp(src));
  const soft = await rgb(sharp(src).blur(2.5));
  const edges = await rgb(sharp(src).greyscale().convolve({ width: 3, height: 3, kernel: [-1, -1, -1, -1, 8, -1, -1, -1, -1] }).toColourspace('srgb'));
  const out = new Uint8Array(orig.data.length);
  for (let i = 0; i < out.length; i++) {
    const k = Math.min(1, edges.data[i] / 40); // 1 on edges: keep the original there
    out[i] = Math.round(k * orig.data[i] + (1 - k) * soft.data[i]);
  }
  return { ...orig, data: out };
}

async function jpegPng(size: CorpusSize): Promise<CleanImage[]> {
  const photos = size === 'small' ? [PHOTO] : [PHOTO, ...MORE_PHOTOS];
  const qualities = size === 'small' ? [60, 85, 95] : [60, 70, 80, 90, 95];
  const out: CleanImage[] = [];
  for (const f of photos) {
    const src = sharp(f).resize({ width: 800 });
    for (const q of qualities) {
      const jpg = await src.clone().jpeg({ quality: q }).toBuffer();
      out.push({ cls: 'jpeg_png', name: `jpeg_png/${path.basename(f, '.jpg')}-q${q}`, img: await rgb(sharp(await sharp(jpg).png().toBuffer())) });
    }
  }
  return out;
}

async function camera(size: CorpusSize): Promise<CleanImage[]> {
  const photos = size === 'small' ? [PHOTO] : [PHOTO, ...MORE_PHOTOS];
  const spots = size === 'small' ? [[0.2, 0.2], [0.8, 0.7]] : [[0.15, 0.15], [0.5, 0.5], [0.85, 0.85], [0.9, 0.1]];
  const out: CleanImage[] = [];
  let seed = 1;
  for (const f of photos) {
    const base = path.basename(f, '.jpg');
    for (const scale of size === 'small' ? [1] : [1, 0.75]) {
      for (const [fx, fy] of spots) {
        const img = await cropAt(f, 512, 512, fx, fy, scale);
        out.push({ cls: 'camera', name: `camera/${base}-${scale}-${fx}-${fy}`, img });
        if (size === 'large' || fx === spots[0][0]) out.push({ cls: 'camera', name: `camera/${base}-${scale}-${fx}-${fy}-noise`, img: addNoise(img, 1.5, seed++) });
      }
    }
  }
  return out;
}

/** The clean corpus, in class order. 'small' is for the test suite, 'large' for benchmarks. */
export async function buildCleanCorpus(size: CorpusSize = 'large', only?: readonly CleanClass[]): Promise<CleanImage[]> {
  const makers: Record<CleanClass, (s: CorpusSize) => Promise<CleanImage[]>> = { ai, render, screenshot, denoised, jpeg_png: jpegPng, camera };
  const out: CleanImage[] = [];
  for (const c of only ?? CLASSES) out.push(...(await makers[c](size)));
  return out;
}

/** Writes pixels as a PNG file (fast deflate), as a user's lossless upload. */
export async function writePng(img: PixelImage, file: string): Promise<void> {
  await fromRaw(img).png({ compressionLevel: 1 }).toFile(file);
}
