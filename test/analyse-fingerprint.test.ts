// Camera/encoder fingerprint (src/media/analyse/detectors/fingerprint.ts) and the JPEG marker
// parser under it (src/media/analyse/jpeg-structure.ts). Real files only: sharp (libjpeg-turbo
// API, IJG tables with mozjpeg: false) makes the JPEGs, exiftool writes camera tags.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { AnalyseOptions } from '../src/media/analyse/detector.ts';
import { fingerprintDetector, type CameraFingerprint } from '../src/media/analyse/detectors/fingerprint.ts';
import { analyseInput } from '../src/media/analyse/input.ts';
import { jpegEnd, parseJpeg } from '../src/media/analyse/jpeg-structure.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { probe } from '../src/media/probe.ts';
import { test } from './helpers/test.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const PHOTO = path.join(ROOT, 'test/fixtures/photo-mountain.jpg');
const PNG = path.join(ROOT, 'test/fixtures/secret-small.png');
const SAMPLE = path.join(ROOT, 'node_modules/@vladmandic/face-api/demo/sample3.jpg');

let dir = '';
let seq = 0;

test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'obscura-fingerprint-'));
});

test.after.always(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function save(bytes: Buffer, ext = 'jpg'): Promise<string> {
  const file = path.join(dir, `f${seq++}.${ext}`);
  await writeFile(file, bytes);
  return file;
}

async function fingerprint(file: string) {
  const options: AnalyseOptions = { depth: 'standard', outDir: dir };
  const input = analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, options);
  return { input, options, result: await fingerprintDetector.run(input, options) };
}

async function verdictOf(file: string): Promise<CameraFingerprint> {
  const { result } = await fingerprint(file);
  if (!result.verdict) throw new Error(`no verdict: ${result.findings.map((f) => f.label).join('; ')}`);
  return result.verdict;
}

/** Pixels of the photo resized to `width` (a resize leaves no trace of the photo's own JPEG grid). */
async function pixels(file: string, width: number) {
  return sharp(file).resize(width).raw().toBuffer({ resolveWithObject: true });
}

type Raw = Awaited<ReturnType<typeof pixels>>;

async function jpegOf(raw: Raw, quality: number): Promise<Buffer> {
  return sharp(raw.data, { raw: raw.info }).jpeg({ quality, mozjpeg: false }).toBuffer();
}

/** Saved at q1, decoded, saved again at q2: what an edit does. */
async function twice(raw: Raw, q1: number, q2: number): Promise<Buffer> {
  const decoded = await sharp(await jpegOf(raw, q1)).raw().toBuffer({ resolveWithObject: true });
  return jpegOf(decoded, q2);
}

test('sharp JPEGs match the libjpeg tables at exactly their quality, with the right sampling and scan mode', async (t) => {
  const cases: Array<{ quality: number; opts: Record<string, unknown>; subsampling: string; progressive: boolean }> = [
    { quality: 50, opts: {}, subsampling: '4:2:0', progressive: false },
    { quality: 75, opts: { chromaSubsampling: '4:4:4' }, subsampling: '4:4:4', progressive: false },
    { quality: 90, opts: { progressive: true }, subsampling: '4:2:0', progressive: true },
  ];
  for (const c of cases) {
    const file = await save(await sharp(PHOTO).resize(800).jpeg({ quality: c.quality, mozjpeg: false, ...c.opts }).toBuffer());
    const v = await verdictOf(file);
    t.true(v.applicable);
    t.true(v.matched, `q${c.quality}`);
    t.is(v.encoder_family, 'libjpeg (IJG) standard tables');
    t.is(v.quality_level, c.quality);
    t.is(v.quality_fit_rms, 0);
    t.is(v.subsampling, c.subsampling, `q${c.quality}`);
    t.is(v.progressive, c.progressive, `q${c.quality}`);
    t.is(v.process, c.progressive ? 'progressive' : 'baseline');
    t.true(v.optimised_huffman, 'sharp optimises its Huffman tables by default');
    t.is(v.encoder_name, 'generic', 'no APPn segment names an encoder');
    t.is(v.double_compressed, false, `q${c.quality} single save`);
    t.is(v.quantisation_tables.length, 2);
  }
  // the standard's example Huffman tables when the encoder does not optimise
  const plain = await verdictOf(await save(await sharp(PHOTO).resize(400).jpeg({ quality: 80, mozjpeg: false, optimiseCoding: false }).toBuffer()));
  t.is(plain.optimised_huffman, false);
  t.is(plain.quality_level, 80);
});

test('mozjpeg default tables are recognised; tables of no known family are not matched but get a closest quality', async (t) => {
  const moz = await verdictOf(await save(await sharp(PHOTO).resize(600).jpeg({ quality: 70, mozjpeg: true }).toBuffer()));
  t.true(moz.matched);
  t.is(moz.encoder_family, 'mozjpeg default tables');
  t.is(moz.quality_level, 70);
  // mozjpeg's table set 2 (tuned for MSSIM on Kodak): neither libjpeg's nor mozjpeg's default
  const custom = await verdictOf(await save(await sharp(PHOTO).resize(600).jpeg({ quality: 85, mozjpeg: false, quantisationTable: 2 }).toBuffer()));
  t.false(custom.matched);
  t.is(custom.encoder_family, 'custom tables (camera firmware, Photoshop or another encoder)');
  t.true(typeof custom.quality_level === 'number' && Math.abs(custom.quality_level - 85) <= 10, `closest quality ${custom.quality_level}`);
  t.true((custom.quality_fit_rms ?? 0) > 0);
});

test('double compression: saved twice (lower then higher quality) is found, saved once is not', async (t) => {
  const sources: Array<[string, Raw]> = [
    ['photo 1600 px', await pixels(PHOTO, 1600)],
    ['photo 1000 px', await pixels(PHOTO, 1000)],
    ['photo 640 px', await pixels(PHOTO, 640)],
    ['sample3 1200 px', await pixels(SAMPLE, 1200)],
  ];
  const doubles: Array<[number, [number, number]]> = [
    [0, [60, 90]],
    [1, [50, 85]],
    [2, [70, 95]],
    [3, [60, 90]],
    [0, [75, 90]],
    [3, [80, 95]],
  ];
  for (const [i, [q1, q2]] of doubles) {
    const [name, raw] = sources[i];
    const v = await verdictOf(await save(await twice(raw, q1, q2)));
    const s = v.double_compression_stats;
    t.log(`${name} ${q1}->${q2}: double ${v.double_compressed}, ratio ${s?.ratio} (${s?.observed}/${s?.expected}), confidence ${v.double_compression_confidence}, first quality ${v.estimated_first_quality}`);
    t.is(v.quality_level, q2);
    t.is(v.double_compressed, true, `${name} ${q1}->${q2}`);
    t.true((v.double_compression_confidence ?? 0) >= 0.8, `${name} ${q1}->${q2} confidence`);
    t.true(v.estimated_first_quality !== null && Math.abs(v.estimated_first_quality - q1) <= 2, `${name} ${q1}->${q2}: first quality ${v.estimated_first_quality}`);
  }
  const singles: Array<[number, number]> = [
    [0, 90],
    [1, 85],
    [2, 95],
    [3, 75],
    [3, 90],
  ];
  for (const [i, q] of singles) {
    const [name, raw] = sources[i];
    const { result } = await fingerprint(await save(await jpegOf(raw, q)));
    const v = result.verdict!;
    const s = v.double_compression_stats;
    t.log(`${name} once at ${q}: double ${v.double_compressed}, ratio ${s?.ratio} (${s?.observed}/${s?.expected})`);
    t.is(v.double_compressed, false, `${name} once at ${q}`);
    t.is(v.double_compression_confidence, 0);
    t.is(v.estimated_first_quality, null);
    t.false(result.findings.some((f) => f.severity === 'medium'), `${name} once at ${q}: no double-compression finding`);
  }
});

test('the double-compression finding is medium, with the editing tip', async (t) => {
  const { result } = await fingerprint(await save(await twice(await pixels(PHOTO, 900), 60, 90)));
  const f = result.findings.find((x) => x.severity === 'medium');
  t.truthy(f);
  t.regex(f!.label, /saved as JPEG at least twice/i);
  t.regex(f!.tip ?? '', /saved as JPEG at least twice, as happens after editing/);
  t.is(f!.detector, 'camera_fingerprint');
  t.true(result.findings.some((x) => x.severity === 'info' && /quality 90/.test(x.label)));
});

test('the real photo: encoder, quality and tags', async (t) => {
  // the fixture carries no camera tags (JFIF only): make and model are null, not guessed
  const v = await verdictOf(PHOTO);
  t.is(v.make, null);
  t.is(v.model, null);
  t.true(v.matched);
  t.is(v.encoder_family, 'mozjpeg default tables');
  t.is(v.quality_level, 75);
  t.true(v.progressive);
  t.is(v.subsampling, '4:2:0');
  t.deepEqual(v.app_segments, ['APP0:JFIF']);
  t.is(v.encoder_name, 'generic');
  t.is(v.double_compressed, false);
  t.is(v.trailing_bytes, 0);
  t.false(v.truncated);

  // the same photo with camera and editor tags written by exiftool
  const tagged = await save(await readFile(PHOTO));
  await promisify(execFile)('exiftool', ['-q', '-overwrite_original', '-Make=Canon', '-Model=Canon EOS 5D Mark IV', '-Software=Adobe Photoshop 25.0 (Windows)', tagged]);
  const { result } = await fingerprint(tagged);
  const w = result.verdict!;
  t.is(w.make, 'Canon');
  t.is(w.model, 'Canon EOS 5D Mark IV');
  t.is(w.encoder_name, 'Adobe Photoshop 25.0 (Windows)');
  t.true(w.app_segments.includes('APP1:Exif'));
  t.is(w.quality_level, 75);
  const edited = result.findings.find((f) => f.severity === 'low');
  t.regex(edited?.label ?? '', /^Edited with Adobe Photoshop/);
  // make and model are another detector's findings
  t.false(result.findings.some((f) => /Canon/.test(f.label)));
});

test('not a JPEG: no verdict, a finding that says why', async (t) => {
  const { result } = await fingerprint(PNG);
  t.is(result.verdict, null);
  t.is(result.findings.length, 1);
  t.is(result.findings[0].label, 'Encoder fingerprinting reads JPEG quantisation tables; this file is a PNG.');
  t.is(result.findings[0].detector, 'camera_fingerprint');
});

test('a truncated or damaged JPEG never throws: tables still read, double compression unknown', async (t) => {
  const full = await readFile(PHOTO);
  const { result } = await fingerprint(await save(full.subarray(0, full.length >> 1)));
  t.truthy(result.verdict);
  t.true(result.verdict!.truncated);
  t.is(result.verdict!.quality_level, 75);
  t.is(result.verdict!.double_compressed, null);
  t.truthy(result.verdict!.double_compression_note);
  t.true(result.findings.some((f) => /truncated/.test(f.label)));

  // entropy-coded data overwritten in the middle: decodes with errors or not at all
  const damaged = Buffer.from(await sharp(PHOTO).resize(800).jpeg({ quality: 85, mozjpeg: false }).toBuffer());
  for (let i = damaged.length >> 2; i < (damaged.length >> 2) + 4000; i += 7) damaged[i] = (i * 131) & 0xff;
  const d = await fingerprint(await save(damaged));
  t.true(d.result.verdict !== null || d.result.findings.length > 0);

  // only the headers survive: cut just after the start of the first scan
  const cut = await save(full.subarray(0, full.indexOf(Buffer.from([0xff, 0xda])) + 40));
  const options: AnalyseOptions = { depth: 'standard', outDir: dir };
  const probed = await probe(cut, DEFAULT_LIMITS).catch(() => null); // the upload may refuse it already
  if (probed) {
    const r = await fingerprintDetector.run(analyseInput(cut, probed, DEFAULT_LIMITS, options), options);
    t.true(r.verdict !== null || r.findings.length > 0);
    if (r.verdict) t.is(r.verdict.double_compressed, null);
  }
});

test('the marker parser: bounded, defensive, and finds the end of the image', async (t) => {
  const jpeg = await sharp(PHOTO).resize(300).jpeg({ quality: 80, mozjpeg: false }).toBuffer();
  t.is(jpegEnd(jpeg), jpeg.length);
  const appended = Buffer.concat([jpeg, Buffer.from('appended after the image, not part of it')]);
  t.is(jpegEnd(appended), jpeg.length);
  const s = parseJpeg(appended)!;
  t.is(s.eoiOffset, jpeg.length - 2);
  t.is(s.trailingBytes, appended.length - jpeg.length);
  t.is(jpegEnd(Buffer.from('not a jpeg')), null);
  t.is(jpegEnd(jpeg.subarray(0, jpeg.length - 100)), null);
  // the trailing bytes reach the verdict
  const v = await verdictOf(await save(appended));
  t.is(v.trailing_bytes, appended.length - jpeg.length);

  // every prefix and many corruptions parse without throwing (the test's own timeout bounds the time)
  for (let cut = 0; cut <= jpeg.length; cut += 13) t.notThrows(() => parseJpeg(jpeg.subarray(0, cut)));
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let n = 0; n < 300; n++) {
    const bad = Buffer.from(jpeg.subarray(0, 2000 + Math.floor(rand() * (jpeg.length - 2000))));
    for (let k = 0; k < 8; k++) bad[2 + Math.floor(rand() * (bad.length - 2))] = Math.floor(rand() * 256);
    t.notThrows(() => parseJpeg(bad));
  }
});

test('a 12 MP JPEG is fingerprinted in well under half a second (tags read beforehand)', async (t) => {
  const file = await save(await twice(await pixels(PHOTO, 4000), 60, 90));
  const { input, options } = await fingerprint(file); // warm-up run; tags and bytes are shared
  await input.tags();
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const r = await fingerprintDetector.run(input, options);
    times.push(performance.now() - started);
    t.true(r.verdict?.double_compressed);
  }
  const best = Math.min(...times);
  t.log(`12 MP: ${times.map((x) => x.toFixed(0)).join(', ')} ms`);
  // the budget is 0.5 s; the margin is for a loaded test machine
  t.true(best < 1000, `${best.toFixed(0)} ms`);
});
