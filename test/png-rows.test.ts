// The row-by-row PNG decoder the hide engine follows: it must give exactly the pixels sharp
// gives, take only the files where that holds, and fail loudly (never hang) on broken data.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { PHOTO } from './helpers/media.ts';
import { payload } from './helpers/payload.ts';
import { loadConfig } from '../src/config.ts';
import { RowFilter, decodePlainPng, plainPng } from '../src/media/png-rows.ts';
import { hideInImage, revealFromImage } from '../src/media/stego/image.ts';
import { IMAGE_DOMAIN } from '../src/media/stego/pixels.ts';
import { sealingKeys } from '../src/media/stego/stream.ts';
import { helperDecode } from '../src/media/stego/walk-helper.ts';

const limits = loadConfig({}).media;
const PASS = 'correct horse battery staple';

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])));
  return Buffer.concat([head, body, crc]);
}

/** The textbook filters, for writing test files: row y uses filter `filterOf(y)`. */
function filtered(px: Uint8Array, width: number, height: number, bpp: number, filterOf: (y: number) => number): Buffer {
  const stride = width * bpp;
  const out = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const f = filterOf(y);
    out[y * (stride + 1)] = f;
    for (let x = 0; x < stride; x++) {
      const i = y * stride + x;
      const a = x >= bpp ? px[i - bpp] : 0;
      const b = y > 0 ? px[i - stride] : 0;
      const c = x >= bpp && y > 0 ? px[i - stride - bpp] : 0;
      const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      out[y * (stride + 1) + 1 + x] = px[i] - pred;
    }
  }
  return out;
}

/** A PNG with the given rows (already filtered), its data cut into IDAT chunks of `idat` bytes. */
function pngFile(width: number, height: number, colourType: number, rows: Buffer, idat: number, extra: Buffer[] = []): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colourType;
  const z = deflateSync(rows);
  const parts = [];
  for (let at = 0; at < z.length; at += idat) parts.push(chunk('IDAT', z.subarray(at, at + idat)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), ...extra, ...parts, chunk('IEND', Buffer.alloc(0))]);
}

async function sharpPixels(file: Buffer, channels: number): Promise<Buffer> {
  const img = sharp(file);
  return (channels === 1 ? img.toColourspace('b-w') : img).raw().toBuffer();
}

test('plain PNGs decode to exactly the pixels sharp gives: all five filters, grey and RGB, odd widths, tiny IDAT chunks, bytes pushed in ragged pieces', async (t) => {
  for (const [w, h, channels] of [[257, 131, 3], [101, 77, 1], [1, 9, 3], [640, 20, 3]] as const) {
    const px = await sharp(PHOTO).resize(w, h, { fit: 'fill' }).toColourspace(channels === 1 ? 'b-w' : 'srgb').raw().toBuffer();
    t.is(px.length, w * h * channels);
    const rows = filtered(px, w, h, channels, (y) => y % 5);
    const file = pngFile(w, h, channels === 1 ? 0 : 2, rows, 997);
    t.deepEqual(plainPng(file), { width: w, height: h, channels });
    t.true(px.equals(await sharpPixels(file, channels)), 'the file holds the photo');
    const out = new Uint8Array(w * h * channels);
    const seen: number[] = [];
    await decodePlainPng(file, out, (n) => seen.push(n));
    t.true(px.equals(out), `${w}x${h}x${channels}`);
    t.is(seen.at(-1), h);
    t.true(seen.every((n, i) => i === 0 || n > seen[i - 1]), 'rows are handed over in order');
    // the filter alone, fed pieces that cut rows anywhere
    const again = new Uint8Array(w * h * channels);
    const f = new RowFilter(again, { width: w, height: h, channels });
    for (let at = 0; at < rows.length; ) {
      const n = 1 + (randomBytes(2).readUInt16BE() % 700);
      f.push(rows.subarray(at, at + n));
      at += n;
    }
    t.is(f.done, h);
    t.true(px.equals(again));
  }
  // a small file sits in Node's shared buffer pool: handing it to the helper thread must copy it,
  // not take the pool (and every other small buffer in it) away
  const sentinel = Buffer.from('still here');
  const tinyPx = Buffer.from([1, 2, 3, 200, 100, 50, 7, 7, 7]);
  const tiny = pngFile(1, 3, 2, filtered(tinyPx, 1, 3, 3, (y) => y), 1000);
  t.true(tiny.buffer.byteLength > tiny.byteLength, 'the test file is a slice of a larger buffer');
  const tinyLength = tiny.length;
  const pixels = new SharedArrayBuffer(9);
  const decoding = helperDecode(tiny, pixels);
  decoding.rows(3);
  await decoding.done;
  t.true(Buffer.from(pixels).equals(tinyPx));
  t.is(sentinel.toString(), 'still here');
  t.is(tiny.length, tinyLength, 'the caller keeps its bytes');
  // what sharp itself writes, adaptive filters and all
  const adaptive = await sharp(PHOTO).resize(333, 222).png({ adaptiveFiltering: true }).toBuffer();
  const out = new Uint8Array(333 * 222 * 3);
  await decodePlainPng(adaptive, out, () => {});
  t.true(Buffer.from(out).equals(await sharp(adaptive).raw().toBuffer()));
});

test('anything whose pixels sharp would change, or that this decoder does not read, is left to sharp', async (t) => {
  const base = sharp(PHOTO).resize(64, 48);
  const refused: [string, Buffer][] = [
    ['palette', await base.clone().png({ palette: true }).toBuffer()],
    ['alpha', await base.clone().ensureAlpha().png().toBuffer()],
    ['16-bit', await base.clone().toColourspace('rgb16').png().toBuffer()],
    ['interlaced', await base.clone().png({ progressive: true }).toBuffer()],
    ['ICC profile', await base.clone().withIccProfile('p3').png().toBuffer()],
    ['EXIF orientation', await base.clone().withMetadata({ orientation: 6 }).png().toBuffer()],
    ['not a PNG', await base.clone().jpeg().toBuffer()],
  ];
  const px = await base.clone().raw().toBuffer();
  const rows = filtered(px, 64, 48, 3, () => 0);
  refused.push(['transparent colour (tRNS)', pngFile(64, 48, 2, rows, 1 << 16, [chunk('tRNS', Buffer.alloc(6))])]);
  refused.push(['animated (acTL)', pngFile(64, 48, 2, rows, 1 << 16, [chunk('acTL', Buffer.alloc(8))])]);
  for (const [name, file] of refused) t.is(plainPng(file), undefined, name);
  t.truthy(plainPng(pngFile(64, 48, 2, rows, 1 << 16, [chunk('tEXt', Buffer.from('Comment\0hello'))])), 'a text chunk changes no pixel');
});

test('broken data fails the decode, and a waiting reader hears of it at once; a hide then fails as sharp fails, and the next one works', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-png-rows-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [w, h] = [400, 300];
  const px = await sharp(PHOTO).resize(w, h, { fit: 'fill' }).raw().toBuffer();
  const badFilter = filtered(px, w, h, 3, () => 2);
  badFilter[200 * (w * 3 + 1)] = 7; // row 200: no such filter
  const good = pngFile(w, h, 2, filtered(px, w, h, 3, () => 2), 8192);
  const badAdler = Buffer.from(good);
  const lastIdat = badAdler.lastIndexOf('IDAT');
  const len = badAdler.readUInt32BE(lastIdat - 4);
  badAdler[lastIdat + 4 + len - 1] ^= 0xff;
  badAdler.writeUInt32BE(crc32(badAdler.subarray(lastIdat, lastIdat + 4 + len)), lastIdat + 4 + len);
  const cases: [string, Buffer][] = [
    ['unknown filter', pngFile(w, h, 2, badFilter, 8192)],
    ['checksum', badAdler],
    ['short', pngFile(w, h - 1, 2, filtered(px, w, h, 3, () => 2).subarray(0, (w * 3 + 1) * (h - 2)), 8192)],
  ];
  for (const [name, file] of cases) {
    t.truthy(plainPng(file), name);
    await t.throwsAsync(decodePlainPng(file, new Uint8Array(file.readUInt32BE(16) * file.readUInt32BE(20) * 3), () => {}), undefined, name);
    const decoding = helperDecode(Buffer.from(file), new SharedArrayBuffer(file.readUInt32BE(16) * file.readUInt32BE(20) * 3));
    // "failed", not "stalled": the waiter hears of the failure, not of a timeout
    t.throws(() => decoding.rows(h), { message: /failed/ }, name);
    await t.throwsAsync(decoding.done, undefined, name);
    const cover = path.join(dir, `${name}.png`);
    writeFileSync(cover, file);
    const out = path.join(dir, `${name}-out`);
    mkdirSync(out);
    await t.throwsAsync(hideInImage(cover, [{ name: 'a', data: payload(1000) }], sealingKeys(PASS, IMAGE_DOMAIN), out, 'png', { limits }), undefined, name);
    t.deepEqual(readdirSync(out), [], `${name}: nothing written`);
  }
  const cover = path.join(dir, 'good.png');
  writeFileSync(cover, good);
  const out = path.join(dir, 'good-out');
  mkdirSync(out);
  const secret = payload(20_000);
  const r = await hideInImage(cover, [{ name: 'a', data: secret }], sealingKeys(PASS, IMAGE_DOMAIN), out, 'png', { limits });
  t.is(r.decoder, 'rows');
  const back = await revealFromImage(r.path, PASS, out, { limits });
  t.true((await import('node:fs')).readFileSync(back[0].path).equals(secret));
  // the result differs from the cover only where the payload went, by one
  const hidden = await sharp(r.path).raw().toBuffer();
  let changed = 0;
  let far = 0;
  for (let i = 0; i < px.length; i++) {
    if (hidden[i] !== px[i]) changed++;
    if (Math.abs(hidden[i] - px[i]) > 1) far++;
  }
  t.is(changed, r.changed);
  t.is(far, 0);
});
