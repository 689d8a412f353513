// Every image input format to every image output format, with real encoders and decoders:
// the output decodes, has the asked size, and matches the input resized the same way.
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { convert, imageBackends } from '../src/media/convert/index.ts';
import { Conversion } from '../src/media/convert/backend.ts';
import type { ImageTarget } from '../src/media/convert/options.ts';
import { MediaError } from '../src/media/errors.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { probe } from '../src/media/probe.ts';
import { EXT, INPUT_FORMATS, encodeAs, photoCrop, psnr, maxDiff, rgb, run, workDir, type InputFormat, type Raw } from './helpers/media-kit.ts';

const OUTPUTS: ImageTarget[] = ['jpeg', 'png', 'webp', 'avif', 'heic', 'jxl'];
const ctx = { limits: DEFAULT_LIMITS };
const resize = { width: 160, height: 100, fit: 'cover' as const, upscale: false };

let work: { dir: string; done: () => Promise<void> };
let crop: string;

test.before(async () => {
  work = await workDir('img');
  crop = await photoCrop(path.join(work.dir, 'crop.png'));
});
test.after.always(() => work?.done());

/** What the input holds, decoded by its format's reference decoder, resized as convert resizes. */
function reference(input: string, dir: string): Promise<Raw> {
  return rgb(input, dir, (s) => s.rotate().resize({ width: resize.width, height: resize.height, fit: resize.fit, withoutEnlargement: true }));
}

for (const from of INPUT_FORMATS) {
  test(`${from} → every output format, lossy at quality 85 and resized to 160×100 (cover)`, async (t) => {
    const dir = path.join(work.dir, `lossy-${from}`);
    await mkdir(dir);
    const input = await encodeAs(crop, from, path.join(dir, `input.${EXT[from]}`));
    t.like(await probe(input, DEFAULT_LIMITS), { kind: 'image', format: from, width: 320, height: 240 });
    const ref = await reference(input, dir);
    for (const to of OUTPUTS) {
      const started = Date.now();
      const r = await convert(input, dir, { target: 'image', format: to, quality: 85, ...resize, lossless: false }, ctx);
      t.is(path.dirname(r.path), dir, 'the output is written inside outDir');
      t.is([r.width, r.height].join('×'), '160×100', `${from}→${to} size`);
      const out = await rgb(r.path, dir);
      t.is([out.width, out.height].join('×'), '160×100', `${from}→${to} decoded size`);
      const db = psnr(out, ref);
      t.log(`${from} → ${to}: ${Number.isFinite(db) ? db.toFixed(1) + ' dB' : 'identical'}, ${Date.now() - started} ms`);
      if (to === 'png') t.is(maxDiff(out, ref), 0, `${from}→png is lossless`);
      else t.true(db > 30, `${from}→${to}: PSNR ${db.toFixed(1)} dB`);
      if (to === 'png') t.deepEqual(r.notes, ['quality does not apply to PNG; it is lossless.']);
    }
  });

  test(`${from} → lossless outputs: png, webp, avif and jxl are bit-exact, heic within 1 level`, async (t) => {
    const dir = path.join(work.dir, `lossless-${from}`);
    await mkdir(dir);
    const input = await encodeAs(crop, from, path.join(dir, `input.${EXT[from]}`));
    const ref = await reference(input, dir);
    for (const to of ['png', 'webp', 'avif', 'jxl', 'heic'] as const) {
      const r = await convert(input, dir, { target: 'image', format: to, ...resize, lossless: true }, ctx);
      const out = await rgb(r.path, dir);
      const diff = maxDiff(out, ref);
      t.log(`${from} → ${to} lossless: max difference ${diff}`);
      if (to === 'heic') {
        t.true(diff <= 1, `heic lossless max difference ${diff}`);
        t.true(r.notes.some((n) => n.includes('near-lossless')));
      } else t.is(diff, 0, `${from}→${to} lossless is bit-exact`);
    }
  });
}

test('every output format has the right signature, mime and extension, and no working files are left', async (t) => {
  const dir = path.join(work.dir, 'mime');
  await mkdir(dir);
  const input = await encodeAs(crop, 'jpeg', path.join(dir, 'in.jpg'));
  const seen: string[] = [];
  for (const to of OUTPUTS) {
    const r = await convert(input, dir, { target: 'image', format: to, fit: 'inside', upscale: false, lossless: false }, ctx);
    const p = await probe(r.path, DEFAULT_LIMITS);
    t.is(p.format, to, `${to} output is recognised as ${to} by content`);
    t.is(p.mime, r.mime);
    t.is(path.extname(r.path), `.${r.extension}`);
    seen.push(path.basename(r.path));
  }
  t.deepEqual((await readdir(dir)).sort(), ['in.jpg', ...seen].sort(), 'only the input and the outputs remain');
});

test('never enlarges unless asked; fit modes follow the box; one side keeps the aspect ratio', async (t) => {
  const dir = path.join(work.dir, 'fit');
  await mkdir(dir);
  const base = { target: 'image' as const, format: 'png' as const, lossless: false };
  const big = await convert(crop, dir, { ...base, width: 640, fit: 'inside', upscale: false }, ctx);
  t.is(`${big.width}×${big.height}`, '320×240');
  t.true(big.notes.some((n) => n.includes('not enlarged')));
  const up = await convert(crop, dir, { ...base, width: 640, fit: 'inside', upscale: true }, ctx);
  t.is(`${up.width}×${up.height}`, '640×480');
  const inside = await convert(crop, dir, { ...base, width: 100, height: 100, fit: 'inside', upscale: false }, ctx);
  t.is(`${inside.width}×${inside.height}`, '100×75');
  const outside = await convert(crop, dir, { ...base, width: 100, height: 100, fit: 'outside', upscale: false }, ctx);
  t.is(`${outside.width}×${outside.height}`, '133×100');
  const fill = await convert(crop, dir, { ...base, width: 100, height: 100, fit: 'fill', upscale: false }, ctx);
  t.is(`${fill.width}×${fill.height}`, '100×100');
  const contain = await convert(crop, dir, { ...base, width: 100, height: 100, fit: 'contain', upscale: false }, ctx);
  t.is(`${contain.width}×${contain.height}`, '100×100');
  const cornerAlpha = (await sharp(contain.path).ensureAlpha().raw().toBuffer())[3];
  t.is(cornerAlpha, 0, 'contain pads with transparency where the format has it');
  const onlyHeight = await convert(crop, dir, { ...base, height: 60, fit: 'cover', upscale: false }, ctx);
  t.is(`${onlyHeight.width}×${onlyHeight.height}`, '80×60');
});

test('transparent input to JPEG is flattened on white; odd sizes work in every encoder', async (t) => {
  const dir = path.join(work.dir, 'alpha');
  await mkdir(dir);
  const src = path.join(dir, 'alpha.png');
  // Left half opaque red, right half fully transparent; 33×17 so the sizes are odd.
  const px = Buffer.alloc(33 * 17 * 4);
  for (let y = 0; y < 17; y++) for (let x = 0; x < 33; x++) px.set(x < 16 ? [255, 0, 0, 255] : [0, 0, 0, 0], (y * 33 + x) * 4);
  await sharp(px, { raw: { width: 33, height: 17, channels: 4 } }).png().toFile(src);
  const jpg = await convert(src, dir, { target: 'image', format: 'jpeg', quality: 95, fit: 'inside', upscale: false, lossless: false }, ctx);
  t.true(jpg.notes.some((n) => n.includes('filled with white')));
  const { data } = await sharp(jpg.path).raw().toBuffer({ resolveWithObject: true });
  const right = (16 * 33 + 30) * 3;
  t.true(data[right] > 245 && data[right + 1] > 245 && data[right + 2] > 245, 'transparent area is white');
  for (const to of OUTPUTS) {
    const r = await convert(src, dir, { target: 'image', format: to, quality: 90, fit: 'inside', upscale: false, lossless: false }, ctx);
    t.is(`${r.width}×${r.height}`, '33×17', `${to} keeps odd sizes`);
    const back = await rgb(r.path, dir);
    t.is(`${back.width}×${back.height}`, '33×17', `${to} decodes at 33×17`);
  }
  const opaque = await convert(crop, dir, { target: 'image', format: 'jpeg', fit: 'inside', upscale: false, lossless: false }, ctx);
  t.deepEqual(opaque.notes, [], 'no flattening note for an opaque image');
});

test('animated GIF keeps its animation as WebP and becomes its first frame elsewhere, with a note', async (t) => {
  const dir = path.join(work.dir, 'anim');
  await mkdir(dir);
  const gif = path.join(dir, 'anim.gif');
  const made = await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10:duration=1.2', gif]);
  t.is(made.code, 0);
  t.like(await probe(gif, DEFAULT_LIMITS), { animated: true, frames: 12 });
  const webp = await convert(gif, dir, { target: 'image', format: 'webp', quality: 80, width: 80, fit: 'inside', upscale: false, lossless: false }, ctx);
  const m = await sharp(webp.path, { animated: true }).metadata();
  t.is(m.pages, 12);
  t.is(`${m.width}×${m.pageHeight}`, '80×60');
  t.deepEqual(webp.notes, []);
  const png = await convert(gif, dir, { target: 'image', format: 'png', fit: 'inside', upscale: false, lossless: false }, ctx);
  t.is((await sharp(png.path).metadata()).pages ?? 1, 1);
  t.true(png.notes.some((n) => n.includes('only the first of the 12 frames')));
  // Over the pixel budget for all frames together: first frame only, said so.
  const tight = await convert(gif, dir, { target: 'image', format: 'webp', fit: 'inside', upscale: false, lossless: false }, { limits: { ...DEFAULT_LIMITS, maxPixels: 160 * 120 * 5 } });
  t.is((await sharp(tight.path).metadata()).pages ?? 1, 1);
  t.true(tight.notes.some((n) => n.includes('only its first frame')));
});

test('a HEIC holding several images (a burst) converts its first and leaves no extra files', async (t) => {
  const dir = path.join(work.dir, 'burst');
  await mkdir(dir);
  const second = path.join(dir, 'second.png');
  await photoCrop(second, 320, 240, 0, 0);
  const heic = path.join(dir, 'burst.heic');
  t.is((await run('heif-enc', ['-q', '90', '-o', heic, crop, second])).code, 0);
  const r = await convert(heic, dir, { target: 'image', format: 'png', fit: 'inside', upscale: false, lossless: false }, ctx);
  t.true(psnr(await rgb(r.path, dir), await rgb(crop, dir)) > 30, 'the first image, not the second');
  t.deepEqual((await readdir(dir)).sort(), ['burst.heic', 'converted.png', 'second.png']);
});

// One contract for every image backend: what it claims to encode, it writes, and a backend that
// claims to decode that format reads it back at the same size.
for (const backend of imageBackends) {
  test(`backend contract: ${backend.name}`, async (t) => {
    const dir = path.join(work.dir, `contract-${backend.name}`);
    await mkdir(dir);
    const conversion = new Conversion({ dir, limits: DEFAULT_LIMITS });
    try {
      let claims = 0;
      for (const to of OUTPUTS.filter((f) => backend.canEncode(f))) {
        claims++;
        const out = path.join(dir, `c.${to}`);
        const size = await backend.encode(sharp(crop).resize(64), to, { quality: 80, lossless: false, animated: false }, out, conversion);
        t.is(`${size.width}×${size.height}`, '64×48');
        const p = await probe(out, DEFAULT_LIMITS);
        t.is(p.format, to);
        const reader = imageBackends.find((b) => b.canDecode(to))!;
        const decoded = await reader.decode(out, { format: to as InputFormat, storedWidth: 64, storedHeight: 48, orientation: 1, pages: 1, hasAlpha: false }, conversion);
        const meta = await sharp(decoded.path).metadata();
        t.is(`${meta.width}×${meta.height}`, '64×48');
      }
      for (const from of INPUT_FORMATS.filter((f) => backend.canDecode(f))) {
        claims++;
        const input = await encodeAs(crop, from, path.join(dir, `in.${EXT[from]}`));
        const decoded = await backend.decode(input, { format: from, storedWidth: 320, storedHeight: 240, orientation: 1, pages: 1, hasAlpha: false }, conversion);
        const meta = await sharp(decoded.path).metadata();
        t.is(`${meta.width}×${meta.height}`, '320×240', `${backend.name} decodes ${from}`);
      }
      t.true(claims > 0);
    } finally {
      await conversion.cleanup();
    }
  });
}

// Serial: alone in this process, so the libvips threads are not busy with other tests.
test.serial('an aborted image conversion rejects at once with "aborted" and leaves nothing behind', async (t) => {
  const dir = path.join(work.dir, 'abort');
  await mkdir(dir);
  const big = await photoCrop(path.join(dir, 'big.png'), 960, 720, 0, 0); // lossless AVIF of it takes seconds
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const err = await t.throwsAsync(
    convert(big, dir, { target: 'image', format: 'avif', lossless: true, fit: 'inside', upscale: false }, { ...ctx, signal: ac.signal }),
    { instanceOf: MediaError },
  );
  t.is(err!.code, 'aborted');
  // at once: the promise rejected while the encoder was still at work, not when it ended
  t.true(sharp.counters().process + sharp.counters().queue > 0, 'rejected before the encoder finished');
  // The encoder thread cannot be interrupted; what it writes after the abort is removed when it ends.
  for (let i = 0; i < 300 && sharp.counters().process + sharp.counters().queue > 0; i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 100));
  t.deepEqual(await readdir(dir), ['big.png']);
});
