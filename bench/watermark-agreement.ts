// Measures the invisible-watermark agreement (dwtDct scheme) on clean and marked pictures:
// the figures behind the thresholds in src/media/analyse/watermark/invisible.ts.
// node bench/watermark-agreement.ts
import sharp from 'sharp';
import { embedDwtDct } from '../test/helpers/dwt-dct-encoder.ts';
import { blockScores, agreement } from '../src/media/analyse/watermark/dwt-dct.ts';
import { KNOWN_MARKS } from '../src/media/analyse/watermark/known-marks.ts';
type Px = { data: Uint8Array; width: number; height: number; channels: 3 };
const load = async (img: sharp.Sharp): Promise<Px> => { const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true }); return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 }; };
const best = (px: Px) => {
  let top = { name: '', bits: 0, corr: -1, order: '' };
  const all: string[] = [];
  for (const order of ['bgr', 'rgb'] as const) { const s = blockScores(px, order); for (const m of KNOWN_MARKS) { const a = agreement(s, m.bits); all.push(`${a.bits.toFixed(2)}/${a.correlation.toFixed(3)}`); if (a.correlation > top.corr) top = { name: m.name.slice(0, 20), bits: a.bits, corr: a.correlation, order }; } }
  return all.join(' ');
};
const raw = (px: Px) => sharp(Buffer.from(px.data), { raw: { width: px.width, height: px.height, channels: 3 } });
const mark = (px: Px, i: number): Px => ({ ...px, data: embedDwtDct(px.data, px.width, px.height, KNOWN_MARKS[i].bits) });
const cases: [string, Px][] = [];
for (const w of [512, 768, 1024, 1920]) cases.push([`photo ${w}`, await load(sharp('test/fixtures/photo-mountain.jpg').resize(w))]);
cases.push(['c2pa', await load(sharp('test/fixtures/c2pa-ai-generated.png'))]);
cases.push(['c2pa 512', await load(sharp('test/fixtures/c2pa-ai-generated.png').resize(512))]);
const synth = (w: number, h: number, f: (x: number, y: number, c: number) => number): Px => { const d = new Uint8Array(w * h * 3); for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) for (let c = 0; c < 3; c++) d[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(f(x, y, c)))); return { data: d, width: w, height: h, channels: 3 }; };
let seed = 1; const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
cases.push(['flat grey', synth(512, 512, () => 128)]);
cases.push(['flat blue', synth(512, 512, (x, y, c) => [30, 60, 200][c])]);
cases.push(['gradient h', synth(640, 480, (x, y, c) => (x * 255) / 640)]);
cases.push(['gradient rgb', synth(640, 480, (x, y, c) => [x / 640 * 255, y / 480 * 255, (x + y) / 1120 * 255][c])]);
cases.push(['noise', synth(512, 512, () => rnd() * 256)]);
cases.push(['noise small', synth(512, 512, (x, y, c) => 128 + (rnd() - 0.5) * 20)]);
for (const [n, px] of [...cases]) if (!n.startsWith('photo 19')) cases.push([`${n} +SD1`, mark(px, 0)], [`${n} +SDXL`, mark(px, 2)], [`${n} +SDV2`, mark(px, 1)]);
const q90 = async (px: Px, sub = '4:2:0') => load(sharp(await raw(px).jpeg({ quality: 90, chromaSubsampling: sub }).toBuffer()));
for (const [n, px] of cases.filter(([n]) => /photo 768 \+|c2pa \+|gradient rgb \+/.test(n))) { cases.push([`${n} q90`, await q90(px)], [`${n} q90 444`, await q90(px, '4:4:4')]); }
for (const [n, px] of cases.filter(([n]) => !/\+/.test(n))) { cases.push([`${n} q90`, await q90(px)]); }
console.log('columns: bgr SD1, SDV2, SDXL | rgb SD1, SDV2, SDXL (bits/correlation)');
for (const [n, px] of cases) console.log(n.padEnd(26), best(px));
