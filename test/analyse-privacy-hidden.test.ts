// The privacy-exposure and hidden-content detectors on real files made with real tools.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { PHOTO } from './helpers/media.ts';
import { analyseInput } from '../src/media/analyse/input.ts';
import { privacyDetector } from '../src/media/analyse/detectors/privacy.ts';
import { hiddenContentDetector } from '../src/media/analyse/detectors/hidden-content.ts';
import { embedLsbReplacement } from '../src/media/analyse/steganalysis/naive-lsb.ts';
import { probe } from '../src/media/probe.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import type { AnalyseOptions } from '../src/media/analyse/detector.ts';

function workDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-analyse-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function run<V>(detector: { run(i: never, o: AnalyseOptions): Promise<{ verdict: V | null; findings: { label: string; severity: string }[] }> }, file: string, dir: string, depth: 'standard' | 'deep' = 'standard') {
  const options: AnalyseOptions = { depth, outDir: dir };
  return detector.run(analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, options) as never, options);
}

const exiftool = (args: string[]) => execFileSync('exiftool', ['-q', '-overwrite_original', ...args]);

/** A 768x512 crop of the photo as PNG pixels: a natural cover. */
async function cover(dir: string, name = 'cover.png'): Promise<{ file: string; pixels: { data: Uint8Array; width: number; height: number; channels: 3 } }> {
  const { data, info } = await sharp(PHOTO).extract({ left: 600, top: 400, width: 768, height: 512 }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const file = path.join(dir, name);
  await sharp(data, { raw: info }).png().toFile(file);
  return { file, pixels: { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 } };
}

test('a JPEG given GPS, a camera, a serial number and an owner by exiftool: a high GPS finding and each exposure named', async (t) => {
  const dir = workDir(t);
  const file = path.join(dir, 'gps.jpg');
  await sharp(PHOTO).resize(640).jpeg().toFile(file);
  exiftool(['-GPSLatitude=46.5197', '-GPSLatitudeRef=N', '-GPSLongitude=6.6323', '-GPSLongitudeRef=E', '-Make=Canon', '-Model=Canon EOS 5D', '-SerialNumber=0123456789', '-Artist=Jane Reporter', '-Software=Adobe Photoshop 25.0', '-DateTimeOriginal=2026:01:02 03:04:05', file]);
  const r = await run(privacyDetector, file, dir);
  const gps = r.findings.find((f) => f.label.startsWith('GPS position'));
  t.truthy(gps, JSON.stringify(r.findings));
  t.is(gps!.severity, 'high');
  t.regex(gps!.label, /46\.5197, 6\.6323/);
  t.deepEqual(r.verdict!.gps, { latitude: 46.5197, longitude: 6.6323 });
  t.is(r.verdict!.highest, 'high');
  for (const [category, severity] of [['serial_numbers', 'high'], ['owner', 'high'], ['camera', 'medium'], ['software', 'low'], ['dates', 'low']]) {
    t.true(r.verdict!.categories.includes(category), category);
    t.truthy(r.findings.find((f) => f.severity === severity && (f as { label: string }).label.length > 0));
  }
  t.truthy(r.findings.find((f) => /Jane Reporter/.test(f.label)));
  t.truthy(r.findings.find((f) => /0123456789/.test(f.label)));
});

test('a clean PNG has no exposure; XMP history, IPTC and PNG text chunks are each named', async (t) => {
  const dir = workDir(t);
  const { file } = await cover(dir);
  const clean = await run(privacyDetector, file, dir);
  t.is(clean.verdict!.exposures, 0);
  t.is(clean.verdict!.highest, null);
  const jpg = path.join(dir, 'edited.jpg');
  await sharp(PHOTO).resize(320).jpeg().toFile(jpg);
  exiftool(['-XMP-xmpMM:DocumentID=xmp.did:1234', '-XMP-xmpMM:HistoryAction=saved', '-XMP-xmpMM:HistorySoftwareAgent=Adobe Photoshop', '-IPTC:City=Lausanne', '-IPTC:Caption-Abstract=Protest at the square', jpg]);
  const edited = await run(privacyDetector, jpg, dir);
  t.true(edited.verdict!.categories.includes('editing_history'), JSON.stringify(edited.verdict));
  t.true(edited.verdict!.categories.includes('iptc'));
  t.truthy(edited.findings.find((f) => /Lausanne/.test(f.label)));
  const png = path.join(dir, 'text.png');
  await sharp(PHOTO).resize(320).png().toFile(png);
  exiftool(['-PNG:Comment=shot from the roof', png]);
  const text = await run(privacyDetector, png, dir);
  t.true(text.verdict!.categories.includes('png_text') || text.verdict!.categories.includes('comments'), JSON.stringify(text.verdict));
});

test('an EXIF thumbnail of another picture is a high finding; one of the same picture is low', async (t) => {
  const dir = workDir(t);
  const file = path.join(dir, 'thumb.jpg');
  await sharp(PHOTO).resize(640).jpeg().toFile(file);
  const same = path.join(dir, 'same.jpg');
  await sharp(PHOTO).resize(160).jpeg().toFile(same);
  const other = path.join(dir, 'other.jpg');
  await sharp(PHOTO).resize(160).negate().flop().jpeg().toFile(other);
  const withThumb = async (thumb: string) => {
    const f = path.join(dir, `with-${path.basename(thumb)}`);
    writeFileSync(f, await sharp(file).toBuffer());
    exiftool(['-Make=Test', `-ThumbnailImage<=${thumb}`, f]);
    return run(privacyDetector, f, dir);
  };
  const a = await withThumb(same);
  t.truthy(a.findings.find((f) => f.severity === 'low' && /thumbnail/i.test(f.label)), JSON.stringify(a.findings));
  const b = await withThumb(other);
  t.truthy(b.findings.find((f) => f.severity === 'high' && /thumbnail shows a different picture/.test(f.label)), JSON.stringify(b.findings));
});

test('naive LSB replacement at 0.2 bpp is suspected with a payload estimate within 0.05 bpp; the clean cover is not', async (t) => {
  const dir = workDir(t);
  const { file, pixels } = await cover(dir);
  const stego = embedLsbReplacement(pixels, 0.2, 7);
  const stegoFile = path.join(dir, 'stego.png');
  await sharp(Buffer.from(stego.data), { raw: { width: stego.width, height: stego.height, channels: 3 } }).png().toFile(stegoFile);
  for (const depth of ['standard', 'deep'] as const) {
    const clean = await run(hiddenContentDetector, file, dir, depth);
    t.is(clean.verdict!.suspected, false, `${depth}: ${JSON.stringify(clean.verdict)}`);
    const r = await run(hiddenContentDetector, stegoFile, dir, depth);
    t.is(r.verdict!.suspected, true, depth);
    t.true(Math.abs(r.verdict!.lsb!.payload_bpp! - 0.2) <= 0.05, `${depth}: estimate ${r.verdict!.lsb!.payload_bpp}`);
    t.is(r.verdict!.lsb!.methods.some((m) => m.method === 'sample_pairs'), depth === 'deep', 'Sample Pairs only at deep analysis');
    t.truthy(r.findings.find((f) => f.severity === 'high' && /LSB steganography suspected/.test(f.label)));
  }
});

test('a zip appended to a JPEG is found and named; a PDF inside a private PNG chunk is an unusual chunk and a polyglot', async (t) => {
  const dir = workDir(t);
  const jpg = await sharp(PHOTO).resize(400).jpeg().toBuffer();
  const zipDir = path.join(dir, 'z');
  execFileSync('mkdir', [zipDir]);
  writeFileSync(path.join(zipDir, 'notes.txt'), 'meet at noon\n'.repeat(50));
  // a real zip, made by node's own zlib-free store: use python's zipfile, present on Debian
  execFileSync('python3', ['-c', `import zipfile; z = zipfile.ZipFile('${path.join(dir, 'a.zip')}', 'w'); z.write('${path.join(zipDir, 'notes.txt')}', 'notes.txt'); z.close()`]);
  const zip = (await import('node:fs')).readFileSync(path.join(dir, 'a.zip'));
  const file = path.join(dir, 'carrier.jpg');
  writeFileSync(file, Buffer.concat([jpg, zip]));
  const r = await run(hiddenContentDetector, file, dir);
  t.is(r.verdict!.appended_bytes, zip.length);
  t.deepEqual(r.verdict!.embedded.filter((e) => e.where === 'appended').map((e) => e.type), ['ZIP archive', 'ZIP archive (central directory)']);
  t.is(r.verdict!.suspected, true);
  t.truthy(r.findings.find((f) => f.severity === 'high' && /bytes follow the end of the image: they hold a ZIP archive/.test(f.label)), JSON.stringify(r.findings));
  // padding after the end (a newline an editor added, as in KPhotoAlbum's demo photos; zeros)
  // holds no data: noted, not suspected; five letters do
  for (const [tail, suspected] of [[Buffer.from('\n'), null], [Buffer.from('\r\n'), null], [Buffer.alloc(4096), null], [Buffer.from('hello'), true]] as const) {
    const padded = path.join(dir, 'padded.jpg');
    writeFileSync(padded, Buffer.concat([jpg, tail]));
    const q = await run(hiddenContentDetector, padded, dir);
    t.is(q.verdict!.appended_bytes, tail.length);
    t.is(q.verdict!.suspected, suspected, JSON.stringify(q.findings));
    if (suspected === null) t.truthy(q.findings.find((f) => f.severity === 'info' && /of padding follows? the end of the image/.test(f.label)), JSON.stringify(q.findings));
  }
  // Samsung phones append a SEF trailer (the capture time, as in a pychess background and a TeX
  // example photo of round 5 of the outside corpus): recognised when its directory accounts for
  // the whole tail; the same bytes with one more byte of data before the directory are not
  const sef = (extra: Buffer) => {
    const name = Buffer.from('Image_UTC_Data', 'latin1');
    const entry = Buffer.concat([Buffer.from([0, 0, 0x01, 0x0a]), Buffer.alloc(4), name, Buffer.from('1511782237696', 'latin1'), extra]);
    entry.writeUInt32LE(name.length, 4);
    const dir = Buffer.alloc(24);
    dir.write('SEFH', 0, 'latin1');
    dir.writeUInt32LE(101, 4); // version
    dir.writeUInt32LE(1, 8); // one entry
    dir.writeUInt16LE(0x0a01, 14);
    dir.writeUInt32LE(entry.length - extra.length + extra.length, 16); // offset back from the directory
    dir.writeUInt32LE(entry.length - extra.length, 20); // its length
    const end = Buffer.alloc(8);
    end.writeUInt32LE(dir.length, 0);
    end.write('SEFT', 4, 'latin1');
    return Buffer.concat([entry, dir, end]);
  };
  for (const [tail, suspected] of [[sef(Buffer.alloc(0)), false], [sef(Buffer.from('x')), true]] as const) {
    const trailed = path.join(dir, 'samsung.jpg');
    writeFileSync(trailed, Buffer.concat([jpg, tail]));
    const q = await run(hiddenContentDetector, trailed, dir);
    t.is(q.verdict!.appended_bytes, tail.length);
    t.is(q.verdict!.suspected === true, suspected, JSON.stringify(q.findings));
    if (!suspected) t.truthy(q.findings.find((f) => f.severity === 'info' && /Samsung's SEF trailer/.test(f.label)), JSON.stringify(q.findings));
  }
  // XMP in an APP1 named "XMP\0://ns.adobe.com/xap/1.0/" (as in scikit-learn's flower photo, round
  // 3 of the outside corpus) is XMP when it holds a packet; the same name on other bytes is not
  for (const [body, unusual] of [['<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' + ' '.repeat(8000) + '</x:xmpmeta><?xpacket end="w"?>', false], ['PK\x03\x04' + 'z'.repeat(8000), true]] as const) {
    const payload = Buffer.concat([Buffer.from('XMP\0://ns.adobe.com/xap/1.0/\0', 'latin1'), Buffer.from(body, 'latin1')]);
    const app1 = Buffer.alloc(4 + payload.length);
    app1.writeUInt16BE(0xffe1, 0);
    app1.writeUInt16BE(payload.length + 2, 2);
    payload.copy(app1, 4);
    const named = path.join(dir, 'xmp.jpg');
    writeFileSync(named, Buffer.concat([jpg.subarray(0, 2), app1, jpg.subarray(2)]));
    const x = await run(hiddenContentDetector, named, dir);
    t.deepEqual(x.verdict!.unusual_chunks.map((u) => u.type), unusual ? ['APP1:XMP'] : [], JSON.stringify(x.findings));
    t.is(x.verdict!.suspected, unusual ? true : null, JSON.stringify(x.findings));
  }
  // ImageMagick keeps EXIF in a PNG as a hex dump in a zTXt chunk, "Raw profile type exif"
  // (Tux Paint's frog starter, round 4 of the outside corpus, has 11.6 KB of it): metadata, not
  // an unusual chunk; the same keyword over bytes that are no such dump is unusual
  const frog = path.resolve(import.meta.dirname, 'fixtures/outside/tuxpaint-frog.png');
  const f = await run(hiddenContentDetector, frog, dir);
  t.deepEqual(f.verdict!.unusual_chunks, [], JSON.stringify(f.findings));
  t.not(f.verdict!.suspected, true, JSON.stringify(f.findings));
  const { deflateSync, crc32: crc } = await import('node:zlib');
  const fake = Buffer.concat([Buffer.from('Raw profile type exif\0\0', 'latin1'), deflateSync(Buffer.from('\nexif\n    6000\n' + (await import('node:crypto')).randomBytes(6000).toString('base64')))]);
  const fakeChunk = Buffer.alloc(12 + fake.length);
  fakeChunk.writeUInt32BE(fake.length, 0);
  fakeChunk.write('zTXt', 4, 'latin1');
  fake.copy(fakeChunk, 8);
  fakeChunk.writeUInt32BE(crc(fakeChunk.subarray(4, 8 + fake.length)), 8 + fake.length);
  const frogBytes = (await import('node:fs')).readFileSync(frog);
  const faked = path.join(dir, 'faked.png');
  writeFileSync(faked, Buffer.concat([frogBytes.subarray(0, frogBytes.length - 12), fakeChunk, frogBytes.subarray(frogBytes.length - 12)]));
  const g = await run(hiddenContentDetector, faked, dir);
  t.deepEqual(g.verdict!.unusual_chunks.map((u) => u.type), ['zTXt'], JSON.stringify(g.findings));
  t.is(g.verdict!.suspected, true);
  // the plain JPEG: structure clean, but its pixels cannot be checked: no answer, not "clean"
  const plain = path.join(dir, 'plain.jpg');
  writeFileSync(plain, jpg);
  const p = await run(hiddenContentDetector, plain, dir);
  t.is(p.verdict!.appended_bytes, 0);
  t.is(p.verdict!.suspected, null);
  t.is(p.verdict!.lsb, null);
  t.truthy(p.findings.find((f) => /LSB steganalysis applies to lossless pictures/.test(f.label)));

  // a PNG with a private chunk carrying a PDF
  const png = await sharp(PHOTO).resize(300).png().toBuffer();
  const pdf = Buffer.from('%PDF-1.4\n' + 'x'.repeat(6000));
  const chunk = Buffer.alloc(12 + pdf.length);
  chunk.writeUInt32BE(pdf.length, 0);
  chunk.write('prVt', 4, 'latin1');
  pdf.copy(chunk, 8);
  const { crc32 } = await import('node:zlib');
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + pdf.length)), 8 + pdf.length);
  const iend = png.length - 12;
  const withChunk = path.join(dir, 'chunk.png');
  writeFileSync(withChunk, Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]));
  const c = await run(hiddenContentDetector, withChunk, dir);
  t.deepEqual(c.verdict!.unusual_chunks, [{ type: 'prVt', size: pdf.length }]);
  t.deepEqual(c.verdict!.embedded.map((e) => [e.type, e.where]), [['PDF document', 'inside']]);
  t.is(c.verdict!.suspected, true);
});
