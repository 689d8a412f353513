// Recognition by content, limits from headers before any decode, and the failures a user can
// meet (empty, unknown, not allowed, too big, damaged), each with a clear message and no path.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { test } from './helpers/test.ts';
import { convert } from '../src/media/convert/index.ts';
import { parseConvertOptions, type ConvertOptions } from '../src/media/convert/options.ts';
import type { ExecutionContext } from 'ava';
import { MediaError, type MediaErrorCode } from '../src/media/errors.ts';
import { DEFAULT_LIMITS, type MediaLimits } from '../src/media/limits.ts';
import { probe, sniff } from '../src/media/probe.ts';
import { EXT, INPUT_FORMATS, encodeAs, photoCrop, pngBomb, run, testVideo, workDir } from './helpers/media-kit.ts';

let work: { dir: string; done: () => Promise<void> };
let crop: string;
let video: string;

test.before(async () => {
  work = await workDir('probe');
  crop = await photoCrop(path.join(work.dir, 'crop.png'));
  video = await testVideo(path.join(work.dir, 'clip.mp4'));
});
test.after.always(() => work?.done());

const toPng: ConvertOptions = { target: 'image', format: 'png', fit: 'inside', upscale: false, lossless: false };
const toMp4: ConvertOptions = { target: 'video', format: 'mp4h264', fit: 'inside', upscale: false, lossless: false };

async function refused(t: ExecutionContext, p: Promise<unknown>, code: MediaErrorCode, message?: RegExp): Promise<MediaError> {
  const err = (await t.throwsAsync(p, { instanceOf: MediaError })) as MediaError;
  t.is(err.code, code, err.message);
  if (message) t.regex(err.message, message);
  t.false(err.message.includes(work.dir) || /(^|[\s("'])\/\w/.test(err.message), `no path in "${err.message}"`);
  return err;
}

async function fresh(name: string): Promise<string> {
  const dir = path.join(work.dir, name);
  await mkdir(dir);
  return dir;
}

test('every allowed image format is recognised by its content, whatever its name', async (t) => {
  const dir = await fresh('formats');
  for (const format of INPUT_FORMATS) {
    // Named .dat: the name must not matter.
    const file = await encodeAs(crop, format, path.join(dir, `${format}-${EXT[format]}.dat`));
    const p = await probe(file, DEFAULT_LIMITS);
    t.like(p, { kind: 'image', format, width: 320, height: 240 }, format);
    const head = (await readFile(file)).subarray(0, 4096);
    t.like(sniff(head), { kind: 'image', format });
  }
});

test('video containers: mp4, mov, 3gp, mkv, webm, avi, mpeg-ts, mpeg-ps, ogg, flv, asf and mxf probe and convert', async (t) => {
  const dir = await fresh('containers');
  const src = ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=128x96:rate=25:duration=1', '-f', 'lavfi', '-i', 'sine=sample_rate=48000:duration=1'];
  const cases: [string, string, string[]][] = [
    ['mov', 'a.mov', ['-c:v', 'libx264', '-c:a', 'aac']],
    ['3gp', 'a.3gp', ['-c:v', 'libx264', '-c:a', 'aac', '-f', '3gp']],
    ['mkv', 'a.mkv', ['-c:v', 'libx264', '-c:a', 'aac']],
    ['webm', 'a.webm', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-c:a', 'libopus']],
    ['avi', 'a.avi', ['-c:v', 'mpeg4', '-c:a', 'pcm_s16le']],
    ['mpegts', 'a.ts', ['-c:v', 'libx264', '-c:a', 'aac']],
    ['mpeg', 'a.mpg', ['-c:v', 'mpeg2video', '-c:a', 'mp2', '-f', 'mpeg']],
    ['ogg', 'a.ogv', ['-c:v', 'libtheora', '-c:a', 'libvorbis']],
    ['flv', 'a.flv', ['-c:v', 'flv', '-c:a', 'aac']],
    ['asf', 'a.wmv', ['-c:v', 'wmv2', '-c:a', 'wmav2']],
    ['mxf', 'a.mxf', ['-c:v', 'mpeg2video', '-c:a', 'pcm_s16le', '-f', 'mxf']],
  ];
  t.like(await probe(video, DEFAULT_LIMITS), { kind: 'video', format: 'mp4', mime: 'video/mp4', width: 320, height: 240, durationS: 2, hasAudio: true });
  await Promise.all(
    cases.map(async ([format, name, args]) => {
      const file = path.join(dir, name);
      const made = await run('ffmpeg', [...src, ...args, file]);
      t.is(made.code, 0, made.stderr);
      const p = await probe(file, DEFAULT_LIMITS);
      t.like(p, { kind: 'video', format, width: 128, height: 96, hasAudio: true }, format);
      t.true(Math.abs((p.durationS ?? 0) - 1) < 0.2, `${format} duration ${p.durationS}`);
      const out = await fresh(`containers-${format}`);
      const r = await convert(file, out, { ...toMp4, width: 64 }, { limits: DEFAULT_LIMITS });
      t.is(`${r.width}×${r.height}`, '64×48', `${format} converts`);
    }),
  );
});

test('a zero-byte file is "empty"', async (t) => {
  const file = path.join(work.dir, 'zero.jpg');
  await writeFile(file, '');
  await refused(t, probe(file, DEFAULT_LIMITS), 'empty', /empty/);
});

test('text named photo.jpg is not an image: unsupported_media', async (t) => {
  const file = path.join(work.dir, 'photo.jpg');
  await writeFile(file, 'These are my holiday notes, not a photo.\n');
  await refused(t, probe(file, DEFAULT_LIMITS), 'unsupported_media', /not an image or a video/);
  await refused(t, convert(file, await fresh('text'), toPng, { limits: DEFAULT_LIMITS }), 'unsupported_media');
});

test('known formats that are not allowed are refused by name', async (t) => {
  const cases: [string, Buffer | string, RegExp][] = [
    ['doc.pdf', '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', /PDF/],
    ['a.zip', Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(40)]), /ZIP/],
    ['logo.png', '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>', /SVG/],
    ['layers.psd', Buffer.concat([Buffer.from('8BPS', 'latin1'), Buffer.alloc(40)]), /Photoshop/],
    ['live.mp4', '#EXTM3U\n#EXT-X-VERSION:3\nhttp://example.invalid/seg.ts\n', /playlist/],
    ['sound.wav', Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEfmt ', 'latin1'), Buffer.alloc(32)]), /WAV/],
  ];
  for (const [name, bytes, known] of cases) {
    const file = path.join(work.dir, name);
    await writeFile(file, bytes);
    await refused(t, probe(file, DEFAULT_LIMITS), 'unsupported_media', known);
    const s = sniff(Buffer.from(bytes));
    t.is((s as { allowed?: boolean }).allowed, false, `${name} is known and not allowed`);
  }
});

test('an audio-only file is refused as not a video', async (t) => {
  const file = path.join(work.dir, 'voice.m4a');
  t.is((await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=duration=1', '-c:a', 'aac', file])).code, 0);
  await refused(t, probe(file, DEFAULT_LIMITS), 'unsupported_media', /only audio/);
});

test('decompression bombs are refused from their headers, without decoding', async (t) => {
  const dir = await fresh('bombs');
  const png = await pngBomb(path.join(dir, 'bomb.png'), 100000, 100000);
  t.true((await readFile(png)).length < 2000, 'the bomb is a tiny file');
  const e = await refused(t, probe(png, DEFAULT_LIMITS), 'limit_exceeded');
  t.is(e.message, 'The image is 100000×100000 pixels (10000 MP); the limit is 50 MP.');
  await refused(t, convert(png, dir, toPng, { limits: DEFAULT_LIMITS }), 'limit_exceeded');
  // without decoding: the same header over pixel data that is not even zlib (every chunk well
  // formed, CRCs right) is refused for its size; a decoder would have called it damaged
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(100000, 0);
  ihdr.writeUInt32BE(100000, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const garbage = path.join(dir, 'not-zlib.png');
  await writeFile(garbage, Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', Buffer.alloc(64, 0xa5)), chunk('IEND', Buffer.alloc(0))]));
  const h = await refused(t, probe(garbage, DEFAULT_LIMITS), 'limit_exceeded');
  t.is(h.message, e.message);
  await refused(t, convert(garbage, dir, toPng, { limits: DEFAULT_LIMITS }), 'limit_exceeded');

  // A JPEG whose frame header claims 60000×60000.
  const jpg = await encodeAs(crop, 'jpeg', path.join(dir, 'bomb.jpg'));
  const b = await readFile(jpg);
  for (let o = 2; o < b.length; ) {
    if (b[o] !== 0xff) {
      o++;
      continue;
    }
    if (b[o + 1] >= 0xc0 && b[o + 1] <= 0xc2) {
      b.writeUInt16BE(60000, o + 5);
      b.writeUInt16BE(60000, o + 7);
      break;
    }
    o += 2 + b.readUInt16BE(o + 2);
  }
  await writeFile(jpg, b);
  await refused(t, probe(jpg, DEFAULT_LIMITS), 'limit_exceeded', /60000×60000 pixels \(3600 MP\)/);

  // A BMP header claiming 100000×100000 over a few bytes.
  const bmp = Buffer.alloc(54);
  bmp.write('BM', 0, 'latin1');
  bmp.writeUInt32LE(54, 2);
  bmp.writeUInt32LE(54, 10);
  bmp.writeUInt32LE(40, 14);
  bmp.writeInt32LE(100000, 18);
  bmp.writeInt32LE(100000, 22);
  bmp.writeUInt16LE(1, 26);
  bmp.writeUInt16LE(24, 28);
  await writeFile(path.join(dir, 'bomb.bmp'), bmp);
  await refused(t, probe(path.join(dir, 'bomb.bmp'), DEFAULT_LIMITS), 'limit_exceeded', /100000×100000/);

  // HEIC whose image extent (ispe) claims 20000×20000, and one past libheif's own ceiling.
  const heic = await readFile(await encodeAs(crop, 'heic', path.join(dir, 'h.heic')));
  for (const [side, re] of [
    [20000, /20000×20000 pixels \(400 MP\); the limit is 50 MP/],
    [100000, /100000×100000 pixels \(10000 MP\); the limit is 50 MP/],
  ] as const) {
    const bomb = Buffer.from(heic);
    const at = bomb.indexOf(Buffer.from('ispe'));
    bomb.writeUInt32BE(side, at + 8);
    bomb.writeUInt32BE(side, at + 12);
    await writeFile(path.join(dir, `bomb-${side}.heic`), bomb);
    await refused(t, probe(path.join(dir, `bomb-${side}.heic`), DEFAULT_LIMITS), 'limit_exceeded', re);
  }
  t.deepEqual((await readdir(dir)).filter((f) => f.startsWith('converted')), [], 'nothing was written');
});

test('an animation with too many frames, and a video over the length or size limit, are refused', async (t) => {
  const dir = await fresh('limits');
  const gif = path.join(dir, 'many.gif');
  t.is((await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=32x24:rate=10:duration=1.2', gif])).code, 0);
  const tight: MediaLimits = { ...DEFAULT_LIMITS, maxFrames: 10 };
  await refused(t, probe(gif, tight), 'limit_exceeded', /^The animation has 12 frames; the limit is 10\.$/);
  await refused(t, convert(gif, dir, { ...toPng, format: 'webp' }, { limits: tight }), 'limit_exceeded');

  await refused(t, probe(video, { ...DEFAULT_LIMITS, maxDurationS: 1 }), 'limit_exceeded', /^The video is 2 s long; the limit is 1 s\.$/);
  await refused(t, probe(video, { ...DEFAULT_LIMITS, maxVideoWidth: 256, maxVideoHeight: 144 }), 'limit_exceeded', /^The video is 320×240; the limit is 256×144\.$/);
  await refused(t, convert(video, dir, toMp4, { limits: { ...DEFAULT_LIMITS, maxDurationS: 1 } }), 'limit_exceeded');
  // Portrait within a landscape limit is fine: the long side is compared with the long limit.
  t.like(await probe(video, { ...DEFAULT_LIMITS, maxVideoWidth: 240, maxVideoHeight: 320 }), { width: 320, height: 240 });
});

test('truncated JPEG, PNG and MP4 fail conversion with "corrupt", leaving nothing behind', async (t) => {
  const dir = await fresh('truncated');
  const cut = async (file: string, keep = 0.5) => {
    const b = await readFile(file);
    const out = file.replace(/(\.\w+)$/, '-cut$1');
    await writeFile(out, b.subarray(0, Math.floor(b.length * keep)));
    return out;
  };
  const jpg = await cut(await encodeAs(crop, 'jpeg', path.join(dir, 'a.jpg')));
  const png = await cut(await encodeAs(crop, 'png', path.join(dir, 'a.png')));
  const fast = await testVideo(path.join(dir, 'fast.mp4'), { extra: ['-movflags', '+faststart'] });
  const mp4Head = await cut(fast); // index first: the data simply ends early
  const mp4Tail = await cut(video); // index last: it is missing altogether
  for (const [file, options] of [
    [jpg, toPng],
    [png, { ...toPng, format: 'jpeg' }],
    [mp4Head, toMp4],
    [mp4Tail, { ...toMp4, format: 'webm' }],
  ] as const) {
    const out = await fresh(`truncated-${path.basename(file)}`);
    await refused(t, convert(file, out, options as ConvertOptions, { limits: DEFAULT_LIMITS }), 'corrupt', /damaged or incomplete/);
    t.deepEqual(await readdir(out), [], `${path.basename(file)}: no output or working file left`);
  }
});

test('an image cannot get a video format, nor a video an image format', async (t) => {
  const dir = await fresh('mismatch');
  await refused(t, convert(crop, dir, toMp4, { limits: DEFAULT_LIMITS }), 'invalid_option', /^video_format: the file is a PNG image, not a video\. Use image_format/);
  await refused(t, convert(video, dir, toPng, { limits: DEFAULT_LIMITS }), 'invalid_option', /^image_format: the file is an MP4 video, not an image\. Use video_format/);
});

test('convert options: exactly one format, typed and ranged values, nothing a format cannot honour', (t) => {
  t.deepEqual(parseConvertOptions({ image_format: 'webp', quality: 80, width: 100, fit: null }), {
    target: 'image',
    format: 'webp',
    quality: 80,
    width: 100,
    fit: 'inside',
    upscale: false,
    lossless: false,
  });
  t.like(parseConvertOptions({ video_format: 'mkv', lossless: true, upscale: true, height: 720, fit: 'cover' }), { target: 'video', format: 'mkv', lossless: true, upscale: true, height: 720, fit: 'cover' });
  const bad: [Record<string, unknown>, RegExp][] = [
    [{}, /^Give image_format .* or video_format/],
    [{ image_format: 'png', video_format: 'mkv' }, /not both/],
    [{ image_format: 'jpg' }, /^image_format must be one of jpeg, png, webp, avif, heic, jxl \(got "jpg"\)/],
    [{ video_format: 'avi' }, /^video_format must be one of mp4h264, mp4h265, webm, mkv, mov/],
    [{ image_format: 'png', quality: 0 }, /^quality must be a whole number from 1 to 100 \(got 0\)/],
    [{ image_format: 'png', quality: 101 }, /^quality/],
    [{ image_format: 'png', quality: '80' }, /^quality .*\(got "80"\)/],
    [{ image_format: 'png', quality: 80.5 }, /^quality/],
    [{ image_format: 'png', width: 0 }, /^width must be a whole number from 1 to 16384/],
    [{ image_format: 'png', height: 16385 }, /^height/],
    [{ image_format: 'png', fit: 'stretch' }, /^fit must be one of inside, cover, contain, fill, outside/],
    [{ image_format: 'png', upscale: 'yes' }, /^upscale must be true or false/],
    [{ image_format: 'png', lossless: 1 }, /^lossless must be true or false/],
    [{ image_format: 'jpeg', lossless: true }, /^lossless: JPEG has no lossless mode/],
    [{ video_format: 'mp4h264', lossless: true }, /^lossless: .*choose mkv/],
    [{ video_format: 'mov', lossless: true }, /^lossless:/],
  ];
  for (const [raw, message] of bad) {
    const e = t.throws(() => parseConvertOptions(raw), { instanceOf: MediaError }, JSON.stringify(raw));
    t.is(e!.code, 'invalid_option');
    t.regex(e!.message, message);
  }
});
