// Fuzzing the parsers that read uploaded bytes before anything is decoded: content sniffing,
// the probe's header readers and limit checks, and the JPEG marker walk. 10,000 generated
// inputs each, most of them real files mutated (helpers/fuzz.ts); each input gives a result
// that makes sense or the project's own refusal (MediaError), never another exception or a hang.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { test } from './helpers/test.ts';
import { fileLike, settings, within, type Seed } from './helpers/fuzz.ts';
import { assertDimension, resultOrRefusal, resultOrRefusalAsync } from './helpers/fuzz-check.ts';
import { imageSeeds, videoSeeds } from './helpers/fuzz-seeds.ts';
import { jsonMutant, textMutant } from './helpers/fuzz-text.ts';
import { run, workDir } from './helpers/media-kit.ts';
import { parseJpeg, jpegEnd } from '../src/media/analyse/jpeg-structure.ts';
import { MediaError } from '../src/media/errors.ts';
import { DEFAULT_LIMITS, type MediaLimits } from '../src/media/limits.ts';
import { bmpDetail, heifDetail, imageProbe, jxlDetail, parseFfprobe, probeDetailed, videoProbe, type DetailedProbe } from '../src/media/probe.ts';
import { IMAGE_MIME, SNIFF_BYTES, VIDEO_MIME, isRefused, sniff, type VideoFormat } from '../src/media/sniff.ts';

const latin1 = (s: string) => Buffer.from(s, 'latin1');
/** Magic numbers sniff() tells apart, put in front of random bytes to reach its later checks. */
const SIGNATURES = [
  [0xff, 0xd8, 0xff], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0x1a, 0x45, 0xdf, 0xa3], [0xff, 0x0a], [0x47],
  [0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a], [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11], [0xef, 0xbb, 0xbf],
].map((b) => Buffer.from(b)).concat(
  ['GIF89a', 'RIFF\0\0\0\0WEBP', 'RIFF\0\0\0\0AVI ', 'RIFF\0\0\0\0WAVE', 'II*\0', 'MM\0*', 'II*\0\x10\0\0\0CR', 'BM', 'OggS', 'FLV\x01', '%PDF-', 'PK\x03\x04', 'MZ',
    '\0\0\0\x18ftypheic', '\0\0\0\x18ftypavif', '\0\0\0\x14ftypqt  ', '\0\0\0\x18ftypcrx ', '\0\0\0\x18ftypmif1\0\0\0\0isom', '\0\0\0\x08moov',
    '<?xml version="1.0"?><svg>', '<!doctype html>', '#EXTM3U', 'P6 ', '\ufeff<svg>'].map(latin1),
);

let work: { dir: string; done: () => Promise<void> };
let images: Seed[];
let bmps: Seed[];
let jpegs: Seed[];
let heads: Seed[];
const heifReports: string[] = [];
const jxlReports: string[] = [];
const ffprobeReports: object[] = [];

test.before(async () => {
  work = await workDir('fuzz-media');
  const im = await imageSeeds(work.dir);
  const video = await videoSeeds(work.dir);
  jpegs = im.jpeg;
  bmps = im.other.filter((s) => s.name === 'bmp');
  images = [...im.jpeg, ...im.png, ...im.other];
  heads = [...images, ...im.tools, ...video.iso, ...video.matroska, ...video.other].map((s) => ({ ...s, bytes: s.bytes.subarray(0, SNIFF_BYTES) }));
  // the tools' real reports, to mutate: the probe reads these rather than the files
  for (const s of im.tools) {
    const file = path.join(work.dir, `${s.name}.bin`);
    await writeFile(file, s.bytes);
    const tool = s.bytes[0] === 0xff ? 'jxlinfo' : 'heif-info';
    (tool === 'jxlinfo' ? jxlReports : heifReports).push((await run(tool, [file])).stdout.toString('utf8'));
  }
  // an animation's report lists its frames
  const gif = im.other.find((s) => s.name === 'gif-animated')!;
  const animated = path.join(work.dir, 'anim.jxl');
  await writeFile(path.join(work.dir, 'anim.gif'), gif.bytes);
  await run('cjxl', [path.join(work.dir, 'anim.gif'), animated, '--quiet']);
  jxlReports.push((await run('jxlinfo', [animated])).stdout.toString('utf8'));
  for (const s of [...video.iso, ...video.matroska, ...video.other]) {
    const file = path.join(work.dir, `${s.name}.video`);
    await writeFile(file, s.bytes);
    ffprobeReports.push(JSON.parse((await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file])).stdout.toString('utf8')));
  }
});
test.after.always(() => work?.done());

/** A probe result within the limits it was checked against. */
function assertProbe(d: DetailedProbe, limits: MediaLimits): void {
  const { kind, width, height, frames, durationS } = d.probe;
  assertDimension(width, 'width');
  assertDimension(height, 'height');
  if (kind === 'image') {
    assert.ok(width * height <= limits.maxPixels, `${width}x${height} is over the pixel limit`);
    if (d.probe.animated) assert.ok(frames! <= limits.maxFrames, `${frames} frames`);
  } else {
    assert.ok(Math.max(width, height) <= Math.max(limits.maxVideoWidth, limits.maxVideoHeight), `${width}x${height} is over the video limit`);
    assert.ok(Math.min(width, height) <= Math.min(limits.maxVideoWidth, limits.maxVideoHeight), `${width}x${height} is over the video limit`);
    if (durationS !== undefined) assert.ok(Number.isFinite(durationS) && durationS >= 0 && durationS <= limits.maxDurationS, `duration ${durationS}`);
    if (frames !== undefined) assert.ok(Number.isFinite(frames) && frames >= 0, `frames ${frames}`);
  }
}

test('sniff: any first bytes give a known kind with its MIME type, a named refusal or nothing, and never throw', (t) => {
  fc.assert(
    fc.property(fileLike(heads, SIGNATURES), (b) => {
      const s = sniff(b.subarray(0, SNIFF_BYTES));
      if (s === undefined) return;
      if (isRefused(s)) assert.ok(typeof s.known === 'string' && s.known.length > 0);
      else if (s.kind === 'image') assert.equal(IMAGE_MIME[s.format as keyof typeof IMAGE_MIME], s.mime);
      else assert.equal(VIDEO_MIME[s.format as VideoFormat], s.mime);
    }),
    settings(),
  );
  t.pass();
});

test('probe: mutated images of every sharp-read format and BMP, from a file, give a probe within the limits or a MediaError, never a hang', async (t) => {
  const file = path.join(work.dir, 'probe-input');
  const limits: MediaLimits = { ...DEFAULT_LIMITS, maxPixels: 1_000_000, maxFrames: 20 };
  await fc.assert(
    fc.asyncProperty(fileLike(images, SIGNATURES), async (b) => {
      // HEIC, JPEG XL and video are read by spawned tools: their reports are fuzzed below instead
      const s = sniff(b.subarray(0, SNIFF_BYTES));
      fc.pre(!s || isRefused(s) || (s.kind === 'image' && s.format !== 'heic' && s.format !== 'jxl'));
      await writeFile(file, b);
      await resultOrRefusalAsync(MediaError, within(10_000, probeDetailed(file, limits)), (d) => assertProbe(d, limits));
    }),
    settings(),
  );
  t.pass();
});

test('probe: BMP headers give a size or a MediaError', (t) => {
  fc.assert(
    fc.property(fileLike(bmps, [latin1('BM')], 80), (b) => {
      resultOrRefusal(MediaError, () => imageProbe(bmpDetail(b.subarray(0, 64)), DEFAULT_LIMITS), (d) => assertProbe(d, DEFAULT_LIMITS));
    }),
    settings(),
  );
  t.pass();
});

test("probe: heif-info's and jxlinfo's reports, mutated, give a size within the limits or a MediaError", (t) => {
  const limitLine = 'Could not decode: Security limit exceeded: Image size 70000x70000 exceeds the maximum image size 32768x32768\n';
  fc.assert(
    fc.property(
      fc.boolean(),
      textMutant(heifReports),
      textMutant(['', limitLine]),
      textMutant(jxlReports),
      fc.constantFrom(0, 0, 1, -1),
      (heif, heifOut, heifErr, jxlOut, code) => {
        const detail = heif ? () => heifDetail(code, heifOut, heifErr, DEFAULT_LIMITS) : () => jxlDetail(code, jxlOut);
        resultOrRefusal(MediaError, () => imageProbe(detail(), DEFAULT_LIMITS), (d) => assertProbe(d, DEFAULT_LIMITS));
      },
    ),
    settings({
      examples: [
        // found by this property: a zero side passed as a 0-pixel image (now 'corrupt')
        [true, 'MIME type: image/heic\nmain brand: heic\n\nimage: 0x28 (id=2), primary\n  alpha channel: no \n', '', '', 0],
        [false, '', '', 'JPEG XL image, 40x0, lossy, 8-bit RGB\n', 0],
      ],
    }),
  );
  t.pass();
});

test("probe: ffprobe's JSON, mutated in values, types and shape, gives a probe within the limits or a MediaError", (t) => {
  const formats = Object.keys(VIDEO_MIME) as VideoFormat[];
  fc.assert(
    fc.property(jsonMutant(ffprobeReports), fc.constantFrom(...formats), (text, format) => {
      resultOrRefusal(MediaError, () => videoProbe(parseFfprobe(text), format, DEFAULT_LIMITS), (d) => assertProbe(d, DEFAULT_LIMITS));
    }),
    settings({
      examples: [
        // found by this property: a width that is not a number gave a NaN-wide probe (now read as absent)
        ['{"streams":[{"index":0,"codec_type":"video","codec_name":"h264","width":"-1:1","height":24}],"format":{"duration":"0.4"}}', 'mp4'],
      ],
    }),
  );
  t.pass();
});

test('JPEG structure: mutated JPEGs give a structure whose counts, offsets and lists stay within the file and their caps', (t) => {
  fc.assert(
    fc.property(fileLike(jpegs, [Buffer.from([0xff, 0xd8, 0xff]), Buffer.from([0xff, 0xd8])], 2048), (b) => {
      const s = parseJpeg(b);
      if (s === null) {
        assert.ok(b.length < 2 || b[0] !== 0xff || b[1] !== 0xd8, 'null only for what does not start with SOI');
        return;
      }
      assert.ok(s.errors.length <= 16 && s.comments.length <= 16 && s.appSegments.length <= 256 && s.huffmanTables.length <= 64);
      for (const c of s.comments) assert.ok(c.length <= 256);
      if (s.end !== null) {
        assert.ok(s.eoiOffset !== null && s.end === s.eoiOffset + 2 && s.end <= b.length);
        assert.equal(s.trailingBytes, b.length - s.end);
      } else assert.ok(s.truncated && s.eoiOffset === null && s.trailingBytes === 0);
      for (const q of s.quantTables) assert.ok(q.values.length === 64 && q.id <= 3 && q.values.every((v) => Number.isInteger(v) && v >= 0 && v <= 0xffff));
      for (const h of s.huffmanTables) assert.ok(h.counts.length === 16 && h.symbols.length <= 256);
      for (const a of s.appSegments) assert.ok(a.offset < b.length && a.n >= 0 && a.n <= 15);
      if (s.frame) assert.ok(s.frame.width <= 0xffff && s.frame.height <= 0xffff && s.frame.components.length <= 255);
      assert.equal(jpegEnd(b), s.end);
    }),
    settings(),
  );
  t.pass();
});
