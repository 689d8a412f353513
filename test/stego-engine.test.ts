// The hide engine's parts on their own: the PNG writer, the strata walk, the partial decode
// that lets reveal start argon2id early, and the hand-off of keys to a worker.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { PHOTO } from './helpers/media.ts';
import { payload } from './helpers/payload.ts';
import { loadConfig } from '../src/config.ts';
import { decodePixels, decodeTopRows } from '../src/media/decode.ts';
import { probe } from '../src/media/probe.ts';
import { handOverKeys, keysFrom } from '../src/media/stego/key-handoff.ts';
import { passphraseKeys, type PassphraseKeys } from '../src/media/stego/keys.ts';
import { engines } from '../src/queue/engines.ts';
import { hideInImage, revealFromImage } from '../src/media/stego/image.ts';
import { IMAGE_DOMAIN } from '../src/media/stego/pixels.ts';
import { VIDEO_DOMAIN } from '../src/media/stego/video.ts';
import { PngEncoder } from '../src/media/stego/png.ts';
import { HEADER_REGION, Strata, headerPositions } from '../src/media/stego/positions.ts';
import { embed, extract, sealingKeys } from '../src/media/stego/stream.ts';
import { pack } from '../src/media/stego/container.ts';
import { revealBound, writeSecrets } from '../src/media/stego/reveal-files.ts';

const limits = loadConfig({}).media;
const PASS = 'correct horse battery staple';

function tempDir(t: { teardown(f: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-stego-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The chunks of a PNG file: type and body. */
function chunks(png: Buffer): { type: string; body: Buffer }[] {
  const out = [];
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    out.push({ type: png.toString('latin1', at + 4, at + 8), body: png.subarray(at + 8, at + 8 + len) });
    at += 12 + len;
  }
  return out;
}

test('the PNG writer: every channel count, word-aligned or not, one slice or many, fed whole or row by row, decodes to the same pixels', async (t) => {
  const dir = tempDir(t);
  const cases: [number, number, number][] = [
    [1200, 700, 3], // 2.5 MB filtered: two slices, rows word-aligned
    [1001, 600, 3], // rows not word-aligned: the byte-by-byte filter
    [640, 480, 4],
    [333, 250, 1],
    [300, 200, 2],
    [1, 1, 3],
  ];
  for (const [w, h, c] of cases) {
    const pixels = await sharp(PHOTO).resize(w, h, { fit: 'fill' }).ensureAlpha().raw().toBuffer();
    // the photo's own samples, cut down to c channels
    const data = Buffer.alloc(w * h * c);
    for (let i = 0; i < w * h; i++) for (let k = 0; k < c; k++) data[i * c + k] = pixels[i * 4 + (c === 2 && k === 1 ? 3 : k)];
    for (const incremental of [false, true]) {
      const enc = await PngEncoder.create(data, w, h, c);
      if (incremental) for (let y = 0; y <= h; y += 37) enc.rowsFinal(y);
      const png = Buffer.concat(await enc.finish());
      t.deepEqual(chunks(png).map((k) => k.type), ['IHDR', 'IDAT', 'IEND'], 'nothing but the picture');
      // zlib checks the Adler-32 that this writer sums itself
      const idat = chunks(png).find((k) => k.type === 'IDAT')!.body;
      t.is(inflateSync(idat).length, h * (w * c + 1));
      const file = path.join(dir, `${w}x${h}x${c}.png`);
      writeFileSync(file, png);
      // decoded as the service decodes covers: grey stays grey, alpha stays
      const back = await decodePixels(file, { format: 'png' }, dir, { limits });
      t.is(back.channels as number, c, `${w}x${h}x${c}`);
      t.true(back.data.equals(data), `${w}x${h}x${c} ${incremental ? 'row by row' : 'whole'}`);
    }
  }
  await t.throwsAsync(PngEncoder.create(Buffer.alloc(10), 2, 2, 3), { instanceOf: RangeError });
});

test('the strata walk: one position in each stratum, increasing, never a header position, the same for the same key', (t) => {
  for (const [n, nb, blocks] of [
    [100_000, 63, 1000], // about 1.6 samples per stratum, the usual case
    [100_000, 7, 3], // long strata
    [5000, 1, 4000],
    [2_000_000, 1023, 3],
  ]) {
    const key = randomBytes(32);
    const taken = headerPositions(key, n, 448);
    const count = nb * blocks;
    const samples = randomBytes(n);
    const seen: number[] = [];
    new Strata(key, 0, n, count, taken).blocks(samples, nb, (s, pos) => {
      let expect = 0;
      for (let j = 0; j < nb; j++) if (samples[pos[j]] & 1) expect ^= j + 1;
      t.is(s, expect);
      seen.push(...pos);
    });
    t.is(seen.length, count);
    const takenSet = new Set(taken);
    const sorted = [...taken].sort((a, b) => a - b);
    // index among the samples that are not taken, and the stratum it must fall in
    const room = n - taken.length;
    const q = Math.floor(room / count);
    const rem = room % count;
    let bad = 0;
    for (const [k, i] of seen.entries()) {
      if (takenSet.has(i) || i >= n || (k > 0 && i <= seen[k - 1])) bad++;
      let below = 0;
      while (below < sorted.length && sorted[below] < i) below++;
      const r = i - below;
      const start = k * q + Math.floor((k * rem) / count);
      const end = (k + 1) * q + Math.floor(((k + 1) * rem) / count);
      if (r < start || r >= end) bad++;
    }
    t.is(bad, 0, `n ${n}, ${blocks} blocks of ${nb}`);
    const again: number[] = [];
    new Strata(key, 0, n, count, taken).blocks(samples, nb, (_s, pos) => again.push(...pos));
    t.deepEqual(again, seen);
    const other: number[] = [];
    new Strata(key, 1, n, count, taken).blocks(samples, nb, (_s, pos) => other.push(...pos));
    if (q > 0 && count < room) t.notDeepEqual(other, seen, 'another frame picks other samples');
  }
  t.throws(() => new Strata(randomBytes(32), 0, 100, 63).blocks(Buffer.alloc(100), 10, () => {}), { instanceOf: RangeError });
});

test('a walk split into block ranges gives exactly the whole walk, so two threads can share it', (t) => {
  for (const [n, nb, blocks] of [
    [100_000, 63, 1000],
    [3_000_000, 15, 3],
    [200_000, 1, 150_000],
  ]) {
    const key = randomBytes(32);
    const taken = headerPositions(key, n, 448);
    const samples = randomBytes(n);
    const strata = () => new Strata(key, 3, n, nb * blocks, taken);
    const whole: number[] = [];
    strata().blocks(samples, nb, (s, pos) => whole.push(s, ...pos));
    for (const cut of [1, Math.floor(blocks / 3), blocks - 1]) {
      const parts: number[] = [];
      strata().blocks(samples, nb, (s, pos) => parts.push(s, ...pos), 0, cut);
      strata().blocks(samples, nb, (s, pos) => parts.push(s, ...pos), cut);
      t.deepEqual(parts, whole, `n ${n}, blocks of ${nb}, cut at ${cut}`);
    }
  }
  t.throws(() => new Strata(randomBytes(32), 0, 1000, 63).blocks(Buffer.alloc(1000), 63, () => {}, 0, 2), { instanceOf: RangeError });
});

test('header positions sit in the first HEADER_REGION samples, whatever the picture size', (t) => {
  const key = randomBytes(32);
  const big = headerPositions(key, 36_000_000, 448);
  t.true(big.every((i) => i < HEADER_REGION));
  t.deepEqual(headerPositions(key, HEADER_REGION, 448), big, 'a partial decode finds the same positions');
  t.true(headerPositions(key, 2000, 448).every((i) => i < 2000));
  t.throws(() => headerPositions(key, 400, 448), { instanceOf: RangeError });
});

test('the top rows of a PNG decode alone to the first rows of the whole picture; oriented or non-PNG pictures give none', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'p.png');
  writeFileSync(file, await sharp(PHOTO).resize(900, 600, { fit: 'fill' }).png().toBuffer());
  const p = await probe(file, limits);
  const whole = await decodePixels(file, p, dir, { limits });
  const top = await decodeTopRows(file, p, 40, { limits });
  t.truthy(top);
  t.is(top!.height, 40);
  t.true(top!.data.equals(whole.data.subarray(0, top!.data.length)));
  const rotated = path.join(dir, 'r.png');
  writeFileSync(rotated, await sharp(PHOTO).resize(900, 600, { fit: 'fill' }).withMetadata({ orientation: 6 }).png().toBuffer());
  t.is(await decodeTopRows(rotated, await probe(rotated, limits), 40, { limits }), undefined);
  const webp = path.join(dir, 'w.webp');
  writeFileSync(webp, await sharp(PHOTO).resize(300, 200).webp({ lossless: true }).toBuffer());
  t.is(await decodeTopRows(webp, await probe(webp, limits), 40, { limits }), undefined);
  t.is(await decodeTopRows(file, p, 600, { limits }), undefined, 'all the rows: just decode it all');
});

test('reveal finds the header from the first rows or, when they fall short, from the whole picture', async (t) => {
  const dir = tempDir(t);
  const covers: [string, Buffer][] = [
    // large enough that reveal reads the header from a partial decode
    ['rgb', await sharp(PHOTO).resize(1200, 900, { fit: 'fill' }).png().toBuffer()],
    // transparent top rows: the partial decode holds too few samples
    [
      'rgba',
      await sharp(PHOTO)
        .resize(1000, 800, { fit: 'fill' })
        .ensureAlpha()
        .composite([{ input: { create: { width: 1000, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }, top: 0, left: 0, blend: 'dest-out' }])
        .png()
        .toBuffer(),
    ],
    ['grey', await sharp(PHOTO).resize(1000, 800, { fit: 'fill' }).greyscale().toColourspace('b-w').png().toBuffer()],
    // turned by its EXIF orientation: no partial decode
    ['oriented', await sharp(PHOTO).resize(900, 700, { fit: 'fill' }).withMetadata({ orientation: 6 }).png().toBuffer()],
  ];
  for (const [name, bytes] of covers) {
    const cover = path.join(dir, `${name}.png`);
    writeFileSync(cover, bytes);
    const out = path.join(dir, `${name}-out`);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(out);
    const secret = payload(30_000);
    const h = await hideInImage(cover, [{ name: 'a.bin', data: secret }], sealingKeys(PASS, IMAGE_DOMAIN), out, 'png', { limits });
    // plain grey and RGB covers are decoded row by row as the embedding follows; the rest by sharp
    t.is(h.decoder, name === 'rgb' || name === 'grey' ? 'rows' : 'sharp', name);
    const back = await revealFromImage(h.path, PASS, out, { limits });
    t.is(back.length, 1, name);
    t.is(back[0].name, 'a.bin');
    const { readFileSync } = await import('node:fs');
    t.true(readFileSync(back[0].path).equals(secret), name);
    await t.throwsAsync(revealFromImage(h.path, 'another passphrase', out, { limits }), { message: /No hidden content/ }, name);
  }
});

test('keys handed to a worker arrive whole, for a hide and for a reveal; keys that failed, or a port closed early, fail the task rather than hang it', async (t) => {
  // whole: a hide's fresh keys, and a reveal's locator and keys for a salt, as the runner made them
  const local = passphraseKeys(PASS, { hide: IMAGE_DOMAIN });
  const mine = await local.sealing();
  const seen: unknown[] = [];
  await handOverKeys(local, async (port) => {
    port.on('message', (m) => seen.push(m));
    const remote = keysFrom(port);
    const got = await remote.sealing();
    t.true(Buffer.isBuffer(got.salt) && Buffer.isBuffer(got.keys.payload));
    t.true(got.salt.equals(mine.salt) && got.keys.payload.equals(mine.keys.payload) && got.keys.header.equals(mine.keys.header) && got.keys.locator.equals(mine.keys.locator));
    const locator = await remote.locator(IMAGE_DOMAIN);
    t.true(Buffer.isBuffer(locator) && locator.equals(mine.keys.locator));
    const opened = await remote.open(mine.salt, IMAGE_DOMAIN);
    t.true(Buffer.isBuffer(opened.header) && opened.header.equals(mine.keys.header) && opened.payload.equals(mine.keys.payload));
    remote.close();
  });
  t.false(JSON.stringify(seen, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v)).includes(PASS), 'the passphrase never crosses');

  // failed: every ask rejects, for a hide and a reveal alike
  const failing: PassphraseKeys = { sealing: () => Promise.reject(new Error(PASS)), locator: () => Promise.reject(new Error(PASS)), open: () => Promise.reject(new Error(PASS)) };
  await handOverKeys(failing, async (port) => {
    const remote = keysFrom(port);
    await t.throwsAsync(remote.sealing(), { message: /could not be turned into keys/ });
    await t.throwsAsync(remote.locator(IMAGE_DOMAIN), { message: /could not be turned into keys/ });
    await t.throwsAsync(remote.open(mine.salt, IMAGE_DOMAIN), { message: /could not be turned into keys/ });
    remote.close();
  });

  // closed early: by the worker's end, or by the runner's (the task ended), asks pending or made after
  const never: PassphraseKeys = { sealing: () => new Promise(() => {}), locator: () => new Promise(() => {}), open: () => new Promise(() => {}) };
  await handOverKeys(never, async (port) => {
    const remote = keysFrom(port);
    const pending = [remote.sealing(), remote.locator(VIDEO_DOMAIN), remote.open(mine.salt, VIDEO_DOMAIN)];
    port.close();
    for (const p of pending) await t.throwsAsync(p, { message: /could not be turned into keys/ });
    await t.throwsAsync(remote.open(mine.salt, IMAGE_DOMAIN), { message: /could not be turned into keys/ });
  });
  let late: ReturnType<typeof keysFrom> | undefined;
  let asked: Promise<unknown>[] = [];
  await handOverKeys(never, async (port) => {
    late = keysFrom(port);
    asked = [late.sealing(), late.open(mine.salt, IMAGE_DOMAIN)];
    asked.forEach((p) => p.catch(() => {}));
  });
  for (const p of asked) await t.throwsAsync(p, { message: /could not be turned into keys/ });
  await t.throwsAsync(late!.locator(IMAGE_DOMAIN), { message: /could not be turned into keys/ });
});

test('the hide and reveal engines get their keys the one way, and a failed handover fails them rather than hang them', async (t) => {
  const dir = tempDir(t);
  const cover = path.join(dir, 'cover.png');
  writeFileSync(cover, await sharp(PHOTO).resize(800, 600, { fit: 'fill' }).png().toBuffer());
  const { mkdirSync, readFileSync } = await import('node:fs');
  const out = (name: string) => {
    const d = path.join(dir, name);
    mkdirSync(d);
    return d;
  };
  const ctx = { signal: new AbortController().signal, onProgress: () => {}, onSpawn: () => {}, onReap: () => {} };
  const secret = payload(5000);
  writeFileSync(path.join(dir, 'secret'), secret);
  const secrets = [{ path: path.join(dir, 'secret'), name: 's.bin' }];
  const h = await handOverKeys(passphraseKeys(PASS, { hide: IMAGE_DOMAIN }), (keys) => engines.hide({ cover, secrets, keys, outDir: out('hide'), format: 'png', limits }, ctx));
  const back = await handOverKeys(passphraseKeys(PASS), (keys) => engines.reveal({ file: h.path, keys, outDir: out('reveal'), limits }, ctx));
  t.is(back.length, 1);
  t.is(back[0].name, 's.bin');
  t.true(readFileSync(back[0].path).equals(secret));
  await t.throwsAsync(
    handOverKeys(passphraseKeys('another passphrase'), (keys) => engines.reveal({ file: h.path, keys, outDir: out('wrong'), limits }, ctx)),
    { message: /No hidden content/ },
  );

  // keys that failed, or a port closed before they came: the task fails, on both sides
  const failing: PassphraseKeys = { sealing: () => Promise.reject(new Error('no')), locator: () => Promise.reject(new Error('no')), open: () => Promise.reject(new Error('no')) };
  await t.throwsAsync(handOverKeys(failing, (keys) => engines.hide({ cover, secrets, keys, outDir: out('hide-failed'), format: 'png', limits }, ctx)), { message: /could not be turned into keys/ });
  await t.throwsAsync(handOverKeys(failing, (keys) => engines.reveal({ file: h.path, keys, outDir: out('reveal-failed'), limits }, ctx)), { message: /No hidden content/ });
  const never: PassphraseKeys = { sealing: () => new Promise(() => {}), locator: () => new Promise(() => {}), open: () => new Promise(() => {}) };
  const closing = (keys: import('node:worker_threads').MessagePort) => setTimeout(() => keys.close(), 50);
  await t.throwsAsync(handOverKeys(never, (keys) => (closing(keys), engines.hide({ cover, secrets, keys, outDir: out('hide-closed'), format: 'png', limits }, ctx))), { message: /could not be turned into keys/ });
  await t.throwsAsync(handOverKeys(never, (keys) => (closing(keys), engines.reveal({ file: h.path, keys, outDir: out('reveal-closed'), limits }, ctx))), { message: /No hidden content/ });
});

test('an embedding that follows a decode reads and writes only samples already decoded', async (t) => {
  const cover = await sharp(PHOTO).resize(1600, 1200, { fit: 'fill' }).raw().toBuffer();
  const dir = tempDir(t);
  for (const size of [1, 40_000, 200_000]) {
    // the samples "arrive" only when ready() grants them; until then they hold junk that would
    // spoil the syndromes, and so the result, if the walk read them early
    const samples = Buffer.alloc(cover.length, 0xa5);
    let granted = 0;
    const grants: number[] = [];
    const ready = (upTo: number) => {
      grants.push(upTo);
      if (upTo > granted) {
        samples.set(cover.subarray(granted, upTo), granted);
        granted = upTo;
      }
    };
    const finals: number[] = [];
    const secret = payload(size);
    await embed(samples, pack([{ name: 's', data: secret }]), sealingKeys(PASS, IMAGE_DOMAIN), { ready, onFinal: (below) => finals.push(below) });
    t.is(granted, cover.length, 'the last step waits for every sample');
    t.true(grants.length > 2 || size === 1, `${size}: granted in steps`);
    t.is(grants[0], 2 * HEADER_REGION, "the header region first (both lanes' headers lie in it)");
    t.true(finals.every((f) => f <= granted), 'nothing is final before it is decoded');
    let far = 0;
    for (let i = 0; i < cover.length; i++) if (Math.abs(samples[i] - cover[i]) > 1) far++;
    t.is(far, 0, `${size}: every sample is the cover's, give or take one`);
    const out = path.join(dir, String(size));
    mkdirSync(out);
    const [back] = await writeSecrets(await extract(samples, PASS, IMAGE_DOMAIN), out, revealBound(limits, size));
    t.true(readFileSync(back.path).equals(secret), `${size}: reveals`);
  }
});
