// Decompression bombs in uploaded pictures, through the running service: a few hundred bytes
// that inflate to gigabytes. Each decompressor the service runs on user input stops at a bound
// or never sees the compressed part: brotli metadata boxes of JPEG XL (dropped before djxl),
// PNG text and profile chunks (libvips' chunk limits), PNG pixel data (stops at the last row).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';
import { pngChunk } from './helpers/media-kit.ts';
import { deflatedZeros } from './helpers/reveal-container.ts';
import { convertSession } from './helpers/upload-files.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
const MiB = 1 << 20;

async function convert(svc: Svc, key: string, files: [string, Buffer][], format: string, field = 'image_format') {
  const uid = await convertSession(svc, key, files);
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, [field]: format });
  if (start.status !== 201) throw new Error(JSON.stringify(start.body));
  let done;
  for (;;) {
    done = (await svc.api('GET', `/api/convert/job/${uid}?wait=30`, key)).body;
    if (['completed', 'partial', 'failed'].includes(done.status)) break;
  }
  const body = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body;
  const ok: { name: string; bytes: Buffer }[] = [];
  for (const f of body.result_files) ok.push({ name: f.name, bytes: Buffer.from(await (await fetch(f.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer()) });
  return { done, ok, failed: body.failed_files as { name: string; error: string; message: string }[] };
}

const box = (type: string, body: Buffer) => {
  const h = Buffer.alloc(8);
  h.writeUInt32BE(8 + body.length);
  h.write(type, 4, 'latin1');
  return Buffer.concat([h, body]);
};

test('a JPEG XL with 2 × 256 MiB of zeros in brotli metadata boxes (about 400 bytes) converts as the plain picture: djxl never inflates them', async (t) => {
  // before: djxl inflated both whole (2.6 GB, 19 s of CPU here), past this budget
  const svc = await startService({ OBSCURA_CONVERT_CPU_BUDGET: '3s' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const dir = tempDir('obscura-jxl-bomb-');
  const png = await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 10, g: 200, b: 30 } } }).png().toBuffer();
  writeFileSync(path.join(dir, 'plain.png'), png);
  execFileSync('cjxl', [path.join(dir, 'plain.png'), path.join(dir, 'plain.jxl'), '-d', '0', '--container=0', '--quiet'], { stdio: 'ignore' });
  const codestream = readFileSync(path.join(dir, 'plain.jxl'));
  const zeros = brotliCompressSync(Buffer.alloc(256 * MiB), { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_LGWIN]: 24 } });
  const bomb = Buffer.concat([
    Buffer.from('0000000c4a584c200d0a870a', 'hex'),
    box('ftyp', Buffer.from('jxl \0\0\0\0jxl ', 'latin1')),
    box('brob', Buffer.concat([Buffer.from('xml '), zeros])),
    box('brob', Buffer.concat([Buffer.from('Exif'), zeros])),
    box('jxlc', codestream),
  ]);
  t.true(bomb.length < 2000, `${bomb.length} bytes`);
  const r = await convert(svc, key, [['bomb.jxl', bomb]], 'png');
  t.is(r.done.status, 'completed', JSON.stringify(r.failed));
  t.is(r.ok.length, 1);
  const [out, want] = await Promise.all([sharp(r.ok[0].bytes).raw().toBuffer(), sharp(png).raw().toBuffer()]);
  t.true(out.equals(want), 'the pixels, exactly');
});

test('PNG text and profile chunks of 1 GiB of zeros are refused by the PNG loader; pixel data past the last row is not inflated', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const zlib = Buffer.concat([Buffer.from([0x78, 0xda]), await deflatedZeros(1 << 30), Buffer.alloc(4)]);
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(64, 0);
  ihdr.writeUInt32BE(64, 4);
  ihdr[8] = 8; // 8-bit grey
  const idat = pngChunk('IDAT', deflateSync(Buffer.alloc(65 * 64)));
  const end = pngChunk('IEND', Buffer.alloc(0));
  const png = (...chunks: Buffer[]) => Buffer.concat([sig, pngChunk('IHDR', ihdr), ...chunks, end]);
  const r = await convert(
    svc,
    key,
    [
      ['ztxt.png', png(pngChunk('zTXt', Buffer.concat([Buffer.from('Comment\0\0'), zlib])), idat)],
      ['itxt.png', png(pngChunk('iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\x01\0\0\0'), zlib])), idat)],
      ['iccp.png', png(pngChunk('iCCP', Buffer.concat([Buffer.from('icc\0\0'), zlib])), idat)],
      ['idat.png', png(pngChunk('IDAT', zlib))],
    ],
    'webp',
  );
  t.is(r.done.status, 'partial');
  t.deepEqual(r.failed.map((f) => f.name).sort(), ['iccp.png', 'itxt.png', 'ztxt.png']);
  for (const f of r.failed) t.false(/pngload|chunk\/cache/.test(f.message), `no raw library text: ${f.message}`);
  t.deepEqual(r.ok.map((f) => f.name), ['idat.png']);
  const meta = await sharp(r.ok[0].bytes).metadata();
  t.is(meta.width, 64);
  t.is(meta.height, 64);
});

/** The highest resident memory of this process's ffmpeg children while `work` runs (polled from /proc). */
async function ffmpegPeak<T>(work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peak = 0;
  const look = () => {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const st = readFileSync(`/proc/${pid}/status`, 'utf8');
        if (!/^Name:\s+ffmpeg$/m.test(st) || !new RegExp(`^PPid:\\s+${process.pid}$`, 'm').test(st)) continue;
        peak = Math.max(peak, Number(/^VmHWM:\s+(\d+)/m.exec(st)?.[1] ?? 0));
      } catch {
        /* gone meanwhile */
      }
    }
  };
  const timer = setInterval(look, 25);
  try {
    return { result: await work(), peakMiB: Math.round(peak / 1024) };
  } finally {
    clearInterval(timer);
  }
}

test("a video whose PNG frames carry 1.75 GiB of zeros in a zTXt chunk converts, ffmpeg's inflating held to the job's memory share", async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const dir = tempDir('obscura-bomb-');
  const frame = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).png().toBuffer();
  const zlib = Buffer.concat([Buffer.from([0x78, 0xda]), await deflatedZeros(1.75 * (1 << 30)), Buffer.alloc(4)]);
  // the chunk goes right after IHDR (8 + 25 bytes)
  writeFileSync(path.join(dir, 'frame.png'), Buffer.concat([frame.subarray(0, 33), pngChunk('zTXt', Buffer.concat([Buffer.from('Comment\0\0'), zlib])), frame.subarray(33)]));
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-framerate', '1', '-loop', '1', '-i', path.join(dir, 'frame.png'), '-t', '2', '-c:v', 'copy', path.join(dir, 'bomb.mkv')]);
  const mkv = readFileSync(path.join(dir, 'bomb.mkv'));
  t.true(mkv.length < 8 * MiB, `${mkv.length} bytes`);
  const { result, peakMiB } = await ffmpegPeak(() => convert(svc, key, [['bomb.mkv', mkv]], 'mp4h264', 'video_format'));
  t.log(`ffmpeg's peak: ${peakMiB} MiB resident`);
  t.is(result.done.status, 'completed', JSON.stringify(result.done));
  t.true(peakMiB > 0, 'ffmpeg was seen');
  t.true(peakMiB < 1536, `ffmpeg held ${peakMiB} MiB`);
});
