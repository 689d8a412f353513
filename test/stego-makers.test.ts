// The accuracy benchmark's stego makers (bench/accuracy/stego-makers.ts) make what they say:
// LSB matching is +-1 embedding, not replacement in disguise, and the steghide maker's PNG still
// carries its payload for steghide itself. (stegosuite and outguess are installed for the
// benchmarks only, npm run bench; their makers are checked there.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { embedLsbMatching, embedLsbReplacement } from '../src/media/analyse/steganalysis/naive-lsb.ts';
import type { PixelImage } from '../src/media/analyse/steganalysis/types.ts';
import { bmp24, makeStego, payloadFor, STEGO_KEY, type Cover } from '../bench/accuracy/stego-makers.ts';

/** 256x256 RGB: a gradient with a seeded jitter, and a black and a white band (0 and 255). */
function picture(): PixelImage {
  const w = 256, h = 256, data = new Uint8Array(w * h * 3);
  let s = 12345;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const y = Math.floor(i / (w * 3));
    data[i] = y < 32 ? 0 : y >= 224 ? 255 : Math.min(255, ((i / 3) % w) + (s >>> 28));
  }
  return { data, width: w, height: h, channels: 3 };
}

function changes(a: PixelImage, b: PixelImage) {
  let changed = 0, notOne = 0, mid = 0, towardPair = 0;
  for (let i = 0; i < a.data.length; i++) {
    const d = b.data[i] - a.data[i];
    if (!d) continue;
    changed++;
    if (Math.abs(d) !== 1) notOne++;
    // at 0 and 255 matching has one way only; elsewhere LSB replacement can only move
    // 2k <-> 2k+1 (up from even, down from odd), matching goes either way
    if (a.data[i] === 0 || a.data[i] === 255) continue;
    mid++;
    if ((d === 1) === (a.data[i] % 2 === 0)) towardPair++;
  }
  return { changed, notOne, mid, towardPair };
}

test('LSB matching changes about bpp/2 of the samples by +-1, either way whatever their parity; replacement only within the pair', (t) => {
  const img = picture();
  const pixels = img.width * img.height;
  const m = embedLsbMatching(img, 0.2, 7);
  const c = changes(img, m);
  // 0.2 bpp = 0.2 x pixels message bits, half of them already equal to the LSB
  t.true(Math.abs(c.changed - 0.1 * pixels) < 0.01 * pixels, `${c.changed} changed of ${pixels} pixels`);
  t.is(c.notOne, 0, 'every change is +-1 (none wraps around at 0 or 255)');
  t.true(c.towardPair / c.mid > 0.45 && c.towardPair / c.mid < 0.55, `${c.towardPair} of ${c.mid} within the pair`);
  t.deepEqual(embedLsbMatching(img, 0.2, 7).data, m.data, 'the same seed gives the same picture');
  const r = changes(img, embedLsbReplacement(img, 0.2, 7));
  t.is(r.towardPair, r.mid, 'replacement stays within the pair');
});

test('the steghide maker\'s PNG still carries its payload: steghide extracts it after the PNG is turned back into a BMP', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-stego-makers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { data, info } = await sharp(path.resolve(import.meta.dirname, 'fixtures/photo-mountain.jpg')).resize(192, 128, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const cover: Cover = { id: 'test', index: 0, scaled: false, img: { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 } };
  const made = await makeStego(cover, 'steghide', 0.2, 1, dir);
  t.is(made.status, 'ok', made.note);
  const { payload } = payloadFor(cover, 'steghide', 0.2, 1);
  t.is(made.payloadBytes, payload.length);
  const stego = await sharp(made.file!).raw().toBuffer({ resolveWithObject: true });
  const img: PixelImage = { data: new Uint8Array(stego.data), width: stego.info.width, height: stego.info.height, channels: 3 };
  t.true(changes(cover.img, img).changed > 0, 'the pixels changed');
  writeFileSync(path.join(dir, 's.bmp'), bmp24(img));
  const r = spawnSync('steghide', ['extract', '-sf', path.join(dir, 's.bmp'), '-p', STEGO_KEY, '-xf', path.join(dir, 'out'), '-q', '-f'], { encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
  t.deepEqual(readFileSync(path.join(dir, 'out')), payload);
  t.deepEqual(await makeStego(cover, 'steghide', 0.2, 1, dir), made, 'the second call is answered from the cache');
});
