// Fuzzing the parsers that walk a whole file: the row-by-row PNG decoder the hide engine
// follows, and the container scrub that rewrites MP4/MOV and Matroska/WebM headers in place.
// 10,000 generated inputs each, most of them real files mutated (helpers/fuzz.ts); each gives
// a result that makes sense or a MediaError, never another exception or a hang.
import assert from 'node:assert/strict';
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { test } from './helpers/test.ts';
import { fileLike, mutant, noise, settings, within, type Seed } from './helpers/fuzz.ts';
import { assertDimension, resultOrRefusalAsync } from './helpers/fuzz-check.ts';
import { imageSeeds, videoSeeds } from './helpers/fuzz-seeds.ts';
import { pngChunk, workDir } from './helpers/media-kit.ts';
import { MediaError } from '../src/media/errors.ts';
import { scrubIsoBmff, scrubMatroska } from '../src/media/convert/container-scrub.ts';
import { decodePlainPng, plainPng } from '../src/media/png-rows.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Largest picture the PNG property decodes: the probe refuses big ones before this decoder runs. */
const DECODE_MAX = 1 << 22;

let work: { dir: string; done: () => Promise<void> };
let pngs: Seed[];
let plainPngs: Seed[];
let isos: Seed[];
let matroskas: Seed[];

test.before(async () => {
  work = await workDir('fuzz-walk');
  const im = await imageSeeds(work.dir);
  pngs = im.png;
  plainPngs = pngs.filter((s) => plainPng(s.bytes)); // the decoder's own case, to mutate most
  const video = await videoSeeds(work.dir);
  isos = video.iso;
  matroskas = video.matroska;
});
test.after.always(() => work?.done());

/**
 * A PNG built from generated rows: any geometry, any filter bytes (valid or not), a few bytes
 * too many or too few, IDATs of any size, extra chunks, and now and then a damaged zlib stream.
 */
const builtPng: fc.Arbitrary<Buffer> = fc
  .record({
    width: fc.integer({ min: 1, max: 40 }),
    height: fc.integer({ min: 1, max: 40 }),
    colour: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(0, 2) }, { weight: 1, arbitrary: fc.constantFrom(3, 4, 6) }),
    filters: fc.array(fc.oneof({ weight: 80, arbitrary: fc.nat({ max: 4 }) }, { weight: 1, arbitrary: fc.nat({ max: 255 }) }), { minLength: 1, maxLength: 8 }),
    fill: fc.nat(),
    extra: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -4, max: 4 }) }),
    idat: fc.integer({ min: 1, max: 2048 }),
    chunks: fc.array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom('tEXt', 'gAMA', 'pHYs') }, { weight: 1, arbitrary: fc.constantFrom('iCCP', 'eXIf', 'acTL', 'tRNS', 'zzZz') }), { maxLength: 2 }),
    damage: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.nat({ max: 255 })) }),
  })
  .map(({ width, height, colour, filters, fill, extra, idat, chunks, damage }) => {
    const channels = colour === 0 ? 1 : colour === 2 ? 3 : colour === 4 ? 2 : colour === 6 ? 4 : 1;
    const stride = width * channels + 1;
    const raw = Buffer.alloc(Math.max(0, stride * height + extra));
    let x = fill | 1;
    for (let i = 0; i < raw.length; i++) raw[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24; // cheap noise
    for (let y = 0; y * stride < raw.length; y++) raw[y * stride] = filters[y % filters.length];
    const z = deflateSync(raw);
    if (damage) z[damage[0] % z.length] = damage[1];
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width);
    ihdr.writeUInt32BE(height, 4);
    ihdr[8] = 8;
    ihdr[9] = colour;
    const idats = [];
    for (let at = 0; at < z.length; at += idat) idats.push(pngChunk('IDAT', z.subarray(at, at + idat)));
    const others = chunks.map((type) => pngChunk(type, Buffer.from('fuzz')));
    return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), ...others, ...idats, pngChunk('IEND', Buffer.alloc(0))]);
  });

test('PNG rows: plainPng never throws; a plain PNG hands over every row, in order, or is refused with a MediaError, never a hang', async (t) => {
  const input = fc.oneof(
    { weight: 3, arbitrary: mutant(plainPngs) },
    { weight: 3, arbitrary: builtPng },
    { weight: 1, arbitrary: mutant(pngs) },
    { weight: 1, arbitrary: noise([PNG_SIGNATURE]) },
  );
  await fc.assert(
    fc.asyncProperty(input, async (file) => {
      const png = plainPng(file);
      if (!png) return;
      assertDimension(png.width, 'width');
      assertDimension(png.height, 'height');
      assert.ok(png.channels === 1 || png.channels === 3);
      const size = png.width * png.height * png.channels;
      if (size > DECODE_MAX) return;
      const out = new Uint8Array(size);
      let rows = 0;
      const onRows = (n: number) => {
        assert.ok(Number.isInteger(n) && n > rows && n <= png.height, `rows ${rows} then ${n}`);
        rows = n;
      };
      await resultOrRefusalAsync(MediaError, within(10_000, decodePlainPng(file, out, onRows)), (r) => {
        assert.deepEqual(r, png);
        assert.equal(rows, png.height, 'every row was handed over');
      });
    }),
    settings<[Buffer]>({
      examples: [
        // found by this property: an IHDR declaring 4 GiB of data made plainPng throw a plain Error
        [Buffer.concat([PNG_SIGNATURE, Buffer.from('ffffffff49484452000000280000001c0802000000', 'hex'), Buffer.alloc(4)])],
      ],
    }),
  );
  t.pass();
});

/** The scrub edits in place: whatever the file, it ends the same size, and nothing throws. */
async function scrubs(scrub: (path: string) => Promise<void>, seeds: Seed[], signatures: Buffer[], examples: [Buffer][]): Promise<void> {
  const file = path.join(work.dir, `scrub-${Math.random().toString(36).slice(2)}`);
  await fc.assert(
    fc.asyncProperty(fileLike(seeds, signatures, 64), async (b) => {
      await writeFile(file, b);
      await resultOrRefusalAsync(MediaError, within(10_000, scrub(file)));
      assert.equal((await stat(file)).size, b.length, 'the file kept its size');
    }),
    settings<[Buffer]>({ examples }),
  );
}

test('container scrub, MP4/MOV: mutated files are edited in place (same size) or left alone, never a throw or a hang', async (t) => {
  const signatures = [Buffer.from('\0\0\0\x18ftypisom', 'latin1'), Buffer.from('\0\0\0\x01moov', 'latin1'), Buffer.from('\0\0\0\x08moov', 'latin1')];
  await scrubs(scrubIsoBmff, isos, signatures, [
    // found by this property: a 64-bit box size cut off by the end of the file (RangeError)
    [Buffer.from('\0\0\0\x01moov', 'latin1')],
  ]);
  t.pass();
});

test('container scrub, Matroska/WebM: mutated files are edited in place (same size) or left alone, never a throw or a hang', async (t) => {
  await scrubs(scrubMatroska, matroskas, [Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80, 0x18, 0x53, 0x80, 0x67])], [
    // found by this property: an Info element cut off by the end of the file, its MuxingApp
    // zeroed past the end of what was read (RangeError)
    [Buffer.from('1a45dfa380' + '1853806701ffffffffffffff' + '1549a966884d808541', 'hex')],
  ]);
  t.pass();
});
