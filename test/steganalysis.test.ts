// LSB steganalysis (src/media/analyse/steganalysis): natural covers from the repository's real
// photos, decoded once and treated as lossless pixels; naive LSB replacement as the weak tool we
// must catch. Rates in the verdict are bits per pixel (payload bits / (width x height)); the
// per-method `rate` is per colour sample (x 3 for RGB).
import path from 'node:path';
import sharp from 'sharp';
import { analyseLsb, chiSquare, histogramPairs, rs, samplePairs, type PixelImage } from '../src/media/analyse/steganalysis/index.ts';
import { chiSquareSurvival } from '../src/media/analyse/steganalysis/chi-square.ts';
import { embedLsbReplacement } from '../src/media/analyse/steganalysis/naive-lsb.ts';
import { rsCounts } from '../src/media/analyse/steganalysis/rs.ts';
import { busyPixels } from '../src/media/analyse/steganalysis/selection.ts';
import { jpegCompat } from '../src/media/analyse/steganalysis/jpeg-compat.ts';
import { test } from './helpers/test.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DEMO = path.join(ROOT, 'node_modules/@vladmandic/face-api/demo');

async function decode(file: string, left: number, top: number, width: number, height: number, opts: { alpha?: boolean; grey?: boolean } = {}): Promise<PixelImage> {
  let p = sharp(file).extract({ left, top, width, height });
  if (opts.grey) p = p.greyscale();
  p = opts.alpha ? p.ensureAlpha() : p.removeAlpha();
  const { data, info } = await p.raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: info.channels as PixelImage['channels'] };
}

const COVERS: Array<[string, string, number, number, number, number]> = [
  ['mountain', path.join(ROOT, 'test/fixtures/photo-mountain.jpg'), 704, 464, 512, 512],
  ['sample1', path.join(DEMO, 'sample1.jpg'), 200, 150, 512, 512],
  ['sample3', path.join(DEMO, 'sample3.jpg'), 900, 500, 512, 384],
  ['sample5', path.join(DEMO, 'sample5.jpg'), 300, 700, 512, 512],
];
const covers = new Map<string, PixelImage>();

test.before(async () => {
  for (const [name, file, l, t, w, h] of COVERS) covers.set(name, await decode(file, l, t, w, h));
});

const perPixel = (sampleRate: number | null) => (sampleRate === null ? null : sampleRate * 3);

test('clean natural covers are not suspected, by the verdict or any method', (t) => {
  for (const [name, img] of covers) {
    const v = analyseLsb(img);
    t.is(v.suspected, false, name);
    t.true(v.rate !== null && v.rate < 0.06, `${name}: payload estimate ${v.rate}`);
    for (const e of v.estimates) t.is(e.detected, e.method === 'histogram_pairs' ? null : false, `${name} ${e.method}`);
  }
});

test("histogram pairs: a photo's smooth histogram says nothing; a palette picture with one-sided pairs says no payload, and reads the one LSB replacement leaves", (t) => {
  const photo = analyseLsb(covers.get('mountain')!).estimates.find((e) => e.method === 'histogram_pairs')!;
  t.is(photo.detected, null);
  t.is(photo.rate, null);
  // a drawing: 6 flat colours with a gradient band, every value even (one-sided pairs)
  const w = 400;
  const h = 300;
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) for (let c = 0; c < 3; c++) data[(y * w + x) * 3 + c] = (((x >> 6) * 40 + (y >> 5) * 12 + c * 30) % 256) & 0xfe;
  const drawing: PixelImage = { data, width: w, height: h, channels: 3 };
  const clean = analyseLsb(drawing);
  t.is(clean.suspected, false, clean.notes.join('; '));
  t.is(clean.estimates.find((e) => e.method === 'histogram_pairs')!.rate, 0);
  for (const bpp of [0.1, 0.2]) {
    const v = analyseLsb(embedLsbReplacement(drawing, bpp, 9));
    t.is(v.suspected, true, `${bpp}: ${v.notes.join('; ')}`);
    t.true(Math.abs((v.rate as number) - bpp) < 0.03, `${bpp}: read ${v.rate}`);
  }
});

// A grey picture stored as RGB holds each count three times: a clipping spike's one-sided pair is
// one reading, not the three pairs a floor needs (a telescope frame of round 2 was graded D so).
test('histogram pairs: a grey picture stored as RGB reads its one-sided pair once', (t) => {
  const w = 400;
  const h = 300;
  const grey = new Uint8Array(w * h);
  let seed = 5;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < grey.length; i++) grey[i] = i % 50 === 0 ? (rand() < 0.05 ? 200 : 201) : 20 + Math.floor(rand() * 160);
  const rgb = new Uint8Array(w * h * 3);
  for (let i = 0; i < grey.length; i++) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = grey[i];
  const one = histogramPairs({ data: grey, width: w, height: h, channels: 1 });
  const three = histogramPairs({ data: rgb, width: w, height: h, channels: 3 });
  t.is(one.floor, null);
  t.is(three.floor, null, `floor ${three.floor} on ${three.floorPairs} pairs`);
  t.is(three.floorPairs, one.floorPairs);
  // channels that differ are three readings: the same spike drawn for each channel reads a floor
  const colour = rgb.slice();
  for (let i = 0; i < grey.length; i++) for (let c = 1; c < 3; c++) colour[3 * i + c] = i % 50 === 0 ? (rand() < 0.05 + (c - 1.5) / 100 ? 200 : 201) : 20 + Math.floor(rand() * 160);
  const spread = histogramPairs({ data: colour, width: w, height: h, channels: 3 });
  t.true(spread.floor !== null && spread.floor > 0.05 && spread.floor < 0.15, `floor ${spread.floor} on ${spread.floorPairs} pairs`);
});

// RS or SPA reading above 1 (every sample carrying a bit, and more) is no payload: the picture
// breaks their cover model, and the other one is not trusted alone there (a crop of a telescope
// dark frame of round 2 read RS 1.9, and SPA and WS high enough for a D).
test('RS or SPA above 1 is no answer, and leaves no verdict from the other alone', async (t) => {
  const { data, info } = await sharp(path.join(ROOT, 'test/fixtures/outside/munipack-m51_dark-crop.png')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const img: PixelImage = { data: new Uint8Array(data), width: info.width, height: info.height, channels: info.channels as 3 };
  const r = rs.analyse(img);
  t.is(r.rate, null);
  t.is(r.broken, true);
  t.regex(r.notes?.join(' ') ?? '', /above 1, which no payload can read/);
  for (const spa of [false, true]) {
    const v = analyseLsb(img, { samplePairs: spa });
    t.not(v.evidence, 'strong', v.notes.join('; '));
    t.not(v.suspected, true);
    t.regex(v.notes.join(' '), /breaks their cover model/);
  }
});

test('naive LSB replacement at 0.2 and 0.4 bpp is detected; RS and SPA estimate 0.2 bpp within 0.05', (t) => {
  let seed = 1;
  for (const [name, img] of covers) {
    for (const bpp of [0.2, 0.4]) {
      const v = analyseLsb(embedLsbReplacement(img, bpp, seed++));
      t.true(v.suspected, `${name} at ${bpp} bpp`);
      t.true(Math.abs((v.rate as number) - bpp) <= 0.05, `${name} at ${bpp} bpp: verdict rate ${v.rate}`);
      if (bpp !== 0.2) continue;
      for (const method of ['rs', 'sample_pairs'] as const) {
        const e = v.estimates.find((x) => x.method === method)!;
        t.true(e.detected, `${name} ${method}`);
        const est = perPixel(e.rate) as number;
        t.true(Math.abs(est - 0.2) <= 0.05, `${name} ${method}: ${est.toFixed(3)} bpp for 0.2`);
      }
    }
  }
});

test('sequential naive LSB: the chi-square attack finds the run and its length', (t) => {
  const img = covers.get('mountain')!;
  const e = chiSquare.analyse(embedLsbReplacement(img, 0.2, 7, { order: 'sequential' }));
  t.true(e.detected);
  const est = perPixel(e.rate) as number;
  t.true(Math.abs(est - 0.2) <= 0.05, `run of ${est.toFixed(3)} bpp for 0.2`);
  t.true(e.notes!.some((n) => n.includes('sequential embedding')));
  // blind to the same payload scattered at random; the clean cover is not flagged either
  t.false(chiSquare.analyse(embedLsbReplacement(img, 0.2, 7)).detected);
  t.false(chiSquare.analyse(img).detected);
});

test('a tiny image gets no answer (null), never "clean"', async (t) => {
  const tiny = await decode(COVERS[0][1], 900, 700, 16, 16);
  const v = analyseLsb(tiny);
  t.is(v.suspected, null);
  t.is(v.rate, null);
  for (const e of v.estimates) {
    t.is(e.rate, null, e.method);
    t.is(e.detected, null, e.method);
    t.true((e.notes ?? []).length > 0, e.method);
  }
  t.true(v.notes.some((n) => n.includes('no verdict')));
});

test('a flat image, even with noise confined to its LSBs, gets no answer from RS and SPA', (t) => {
  // one flat colour (a flat grey is one channel's reading: see the grey test above)
  const data = new Uint8Array(256 * 256 * 3);
  for (let i = 0; i < data.length; i += 3) [data[i], data[i + 1], data[i + 2]] = [128, 64, 200];
  const flat: PixelImage = { data, width: 256, height: 256, channels: 3 };
  const noisy = embedLsbReplacement(flat, 3, 5); // every LSB random: only the LSB plane varies
  // the flat one's pairs of values are one-sided: no payload could have left them so (the
  // histogram pairs answer); with every LSB random nothing can tell
  t.is(analyseLsb(flat).suspected, false);
  t.is(analyseLsb(noisy).suspected, null);
  t.is(analyseLsb(noisy).rate, null);
  for (const img of [flat, noisy]) {
    for (const a of [rs, samplePairs]) {
      const e = a.analyse(img);
      t.is(e.rate, null);
      t.is(e.detected, null);
      t.regex(e.notes!.join(' '), /too flat/);
    }
  }
  t.is(chiSquare.analyse(flat).rate, null);
});

test('RGBA: alpha is ignored; grey: one colour channel, so bpp equals the per-sample rate', async (t) => {
  const rgba = await decode(COVERS[1][1], 200, 150, 512, 512, { alpha: true });
  t.is(rgba.channels, 4);
  t.is(analyseLsb(rgba).suspected, false);
  const st = embedLsbReplacement(rgba, 0.2, 11);
  for (let i = 3; i < st.data.length; i += 4) if (st.data[i] !== rgba.data[i]) return t.fail('alpha changed');
  const v = analyseLsb(st);
  t.true(v.suspected);
  t.true(Math.abs((v.rate as number) - 0.2) <= 0.05, `rate ${v.rate}`);

  const grey = await decode(COVERS[3][1], 300, 700, 512, 512, { grey: true });
  t.is(grey.channels, 1);
  t.is(analyseLsb(grey).suspected, false);
  const g = analyseLsb(embedLsbReplacement(grey, 0.2, 12));
  t.true(g.suspected);
  t.true(Math.abs((g.rate as number) - 0.2) <= 0.05, `grey rate ${g.rate}`);
  const spa = g.estimates.find((e) => e.method === 'sample_pairs')!;
  t.true(Math.abs((spa.rate as number) - (g.rate as number)) < 0.05);
});

test('RS: the table-driven counts equal the direct definition', (t) => {
  const img = covers.get('sample3')!;
  const k = rsCounts(img, true, true);
  // direct: f = sum |x_i+1 - x_i|, mask [0, 1, 1, 0], F1 = x ^ 1, F-1 = ((x + 1) ^ 1) - 1
  const F1 = (x: number) => x ^ 1;
  const Fn = (x: number) => ((x + 1) ^ 1) - 1;
  const f = (g: number[]) => Math.abs(g[0] - g[1]) + Math.abs(g[1] - g[2]) + Math.abs(g[2] - g[3]);
  const ref = new Float64Array(10);
  const { data, width: w, height: h } = img;
  const groups: number[][] = [];
  for (let c = 0; c < 3; c++) {
    for (let y = 0; y < h; y++) for (let x = 0; x + 3 < w; x += 4) groups.push([0, 1, 2, 3].map((d) => data[(y * w + x + d) * 3 + c]));
    for (let y = 0; y + 3 < h; y += 4) for (let x = 0; x < w; x++) groups.push([0, 1, 2, 3].map((d) => data[((y + d) * w + x) * 3 + c]));
  }
  for (const g0 of groups) {
    if (g0.some((v) => v <= 1 || v >= 254)) continue;
    ref[8]++;
    if (g0.some((v) => v >> 1 !== g0[0] >> 1)) ref[9]++;
    [g0, g0.map(F1)].forEach((g, flipped) => {
      const base = f(g);
      [F1, Fn].forEach((F, neg) => {
        const m = f([g[0], F(g[1]), F(g[2]), g[3]]);
        if (m > base) ref[4 * flipped + 2 * neg]++;
        else if (m < base) ref[4 * flipped + 2 * neg + 1]++;
      });
    });
  }
  t.deepEqual([...k], [...ref]);
});

test('embedLsbReplacement: LSBs only, about half of the carrying samples change, deterministic, sequential writes only the prefix', (t) => {
  const img = covers.get('sample1')!;
  const pixels = img.width * img.height;
  const a = embedLsbReplacement(img, 0.2, 42);
  t.deepEqual(a.data, embedLsbReplacement(img, 0.2, 42).data);
  t.notDeepEqual(a.data, embedLsbReplacement(img, 0.2, 43).data);
  let changed = 0;
  for (let i = 0; i < a.data.length; i++) {
    const d = a.data[i] ^ img.data[i];
    t.true(d === 0 || d === 1);
    changed += d;
  }
  // about half of the 0.2 x pixels carrying samples change
  const bits = Math.round(0.2 * pixels);
  t.true(Math.abs(changed - bits / 2) < 4 * Math.sqrt(bits), `${changed} changed for ${bits} bits`);
  const s = embedLsbReplacement(img, 0.2, 42, { order: 'sequential' });
  for (let i = bits; i < s.data.length; i++) if (s.data[i] !== img.data[i]) return t.fail(`sample ${i} changed`);
  t.throws(() => embedLsbReplacement(img, 3.5, 1), { instanceOf: RangeError });
});

// The busy pixels are stegosuite's own selection: on a cover and on what stegosuite 0.9 made of
// it (test/fixtures/outside/), the same pixels, and every pixel stegosuite changed is one of them.
test("busy pixels: the same on a cover and on stegosuite's output, and holding every pixel it changed", async (t) => {
  const read = async (name: string): Promise<PixelImage> => {
    const { data, info } = await sharp(path.join(ROOT, 'test/fixtures/outside', name)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 };
  };
  const cover = await read('hurricane5-512.png');
  const stego = await read('hurricane5-512-stegosuite.png');
  const a = busyPixels(cover), b = busyPixels(stego);
  t.deepEqual(Buffer.from(a.only), Buffer.from(b.only));
  t.true(a.share > 0.3 && a.share < 0.6, String(a.share));
  let changed = 0, outside = 0;
  for (let p = 0; p < a.only.length; p++) {
    if (cover.data[3 * p] === stego.data[3 * p] && cover.data[3 * p + 1] === stego.data[3 * p + 1] && cover.data[3 * p + 2] === stego.data[3 * p + 2]) continue;
    changed++;
    if (!a.only[p]) outside++;
  }
  t.true(changed > 5000, String(changed));
  t.is(outside, 0);
  // on the whole picture the payload is diluted and held down; on the busy pixels it is found
  t.is(analyseLsb(cover, { samplePairs: false }).suspected, false);
  const v = analyseLsb(stego, { samplePairs: false });
  t.is(v.suspected, true, v.notes.join('; '));
  t.is(v.busy?.share, a.share);
});

// JPEG compatibility: a JPEG decode rebuilds block for block through libjpeg's islow inverse DCT
// (what sharp decodes with), whatever the quality; LSB replacement at 0.02 bpp, or a picture that
// never was a JPEG, does not.
test('JPEG compatibility: decodes rebuild block for block; replaced LSBs and other pictures do not', async (t) => {
  const photo = path.join(ROOT, 'test/fixtures/outside/chelsea.png');
  const raw = async (input: Buffer | string): Promise<PixelImage> => {
    const { data, info } = await sharp(input).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 };
  };
  const share = (img: PixelImage) => {
    const r = jpegCompat(img);
    return r ? r.rebuilt / r.blocks : 0;
  };
  for (const quality of [50, 75, 90]) {
    for (const chromaSubsampling of ['4:2:0', '4:4:4']) {
      const decoded = await raw(await sharp(photo).jpeg({ quality, chromaSubsampling }).toBuffer());
      t.true(share(decoded) >= 0.99, `q${quality} ${chromaSubsampling}: ${share(decoded)}`);
      const stego = embedLsbReplacement(decoded, 0.02, 5);
      t.true(share(stego) < 0.9, `q${quality} ${chromaSubsampling} with 0.02 bpp: ${share(stego)}`);
    }
  }
  t.true(share(await raw(photo)) < 0.5, 'a PNG photo that never was a JPEG');
  // through the verdict: a payload's readings are kept, a decode's are set aside only when clean
  const decoded = await raw(await sharp(photo).jpeg({ quality: 75 }).toBuffer());
  t.is(analyseLsb(embedLsbReplacement(decoded, 0.2, 3), { samplePairs: false }).suspected, true);
});

test('chi-square tail probabilities', (t) => {
  t.true(Math.abs(chiSquareSurvival(3.841, 1) - 0.05) < 1e-3);
  t.true(Math.abs(chiSquareSurvival(18.307, 10) - 0.05) < 1e-3);
  t.true(Math.abs(chiSquareSurvival(124.342, 100) - 0.05) < 1e-3);
  t.true(Math.abs(chiSquareSurvival(100, 100) - 0.4811) < 1e-3);
});

test('a malformed buffer is refused', (t) => {
  t.throws(() => analyseLsb({ data: new Uint8Array(10), width: 4, height: 4, channels: 3 }), { instanceOf: RangeError });
});
