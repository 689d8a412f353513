// Every video output format from an ffmpeg test source with audio: the right codecs in the
// right container, a clean full decode, the asked size, progress, lossless where promised,
// and cancellation that leaves no ffmpeg behind.
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from './helpers/test.ts';
import { convert } from '../src/media/convert/index.ts';
import type { VideoTarget } from '../src/media/convert/options.ts';
import { MediaError } from '../src/media/errors.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { runTool } from '../src/media/tools.ts';
import { ffprobe, run, testVideo, workDir } from './helpers/media-kit.ts';

const ctx = { limits: DEFAULT_LIMITS };
let work: { dir: string; done: () => Promise<void> };
let source: string;

test.before(async () => {
  work = await workDir('video');
  source = await testVideo(path.join(work.dir, 'source.mp4'));
});
test.after.always(() => work?.done());

const EXPECT: Record<VideoTarget, { container: RegExp; video: string; tag?: string; audio: string; brand?: string }> = {
  mp4h264: { container: /mp4/, video: 'h264', tag: 'avc1', audio: 'aac', brand: 'isom' },
  mp4h265: { container: /mp4/, video: 'hevc', tag: 'hvc1', audio: 'aac', brand: 'isom' },
  webm: { container: /webm/, video: 'vp9', audio: 'opus' },
  mkv: { container: /matroska/, video: 'h264', audio: 'aac' },
  mov: { container: /mov/, video: 'h264', tag: 'avc1', audio: 'aac', brand: 'qt  ' },
};

for (const format of Object.keys(EXPECT) as VideoTarget[]) {
  test(`video → ${format}: right codecs and container, plays to the end, resized to 160 wide`, async (t) => {
    const dir = path.join(work.dir, format);
    await mkdir(dir);
    const progress: number[] = [];
    const started = Date.now();
    const r = await convert(source, dir, { target: 'video', format, quality: 70, width: 160, fit: 'inside', upscale: false, lossless: false }, { ...ctx, onProgress: (f) => progress.push(f) });
    t.log(`${format}: ${Date.now() - started} ms`);
    const e = EXPECT[format];
    const p = await ffprobe(r.path);
    t.regex(p.format.format_name, e.container);
    if (e.brand) t.is(p.format.tags?.major_brand, e.brand);
    const [v, a] = p.streams;
    t.is(v.codec_name, e.video);
    if (e.tag) t.is(v.codec_tag_string, e.tag);
    t.is(a.codec_name, e.audio);
    t.is(`${v.width}×${v.height}`, '160×120');
    t.is(`${r.width}×${r.height}`, '160×120');
    t.true(Math.abs(Number(p.format.duration) - 2) < 0.15, `duration ${p.format.duration}`);
    const played = await run('ffmpeg', ['-v', 'error', '-i', r.path, '-f', 'null', '-']);
    t.is(played.code, 0);
    t.is(played.stderr, '', 'decodes to the end without a single error');
    t.is(path.dirname(r.path), dir);
    t.true(progress.length >= 2, 'progress was reported');
    t.deepEqual([...progress].sort((x, y) => x - y), progress, 'progress only goes forward');
    t.is(progress.at(-1), 1);
  });
}

async function frameHashes(file: string): Promise<string[]> {
  const r = await run('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:v', '-f', 'framemd5', '-']);
  return r.stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(',').at(-1)!.trim());
}

test('lossless video: mkv (FFV1 + FLAC) and webm (VP9 lossless) keep every frame bit-exact', async (t) => {
  const dir = path.join(work.dir, 'lossless');
  await mkdir(dir);
  const want = await frameHashes(source);
  t.is(want.length, 50);
  const mkv = await convert(source, dir, { target: 'video', format: 'mkv', fit: 'inside', upscale: false, lossless: true }, ctx);
  const pm = await ffprobe(mkv.path);
  t.deepEqual(pm.streams.map((s) => s.codec_name), ['ffv1', 'flac']);
  t.deepEqual(await frameHashes(mkv.path), want);
  const webm = await convert(source, dir, { target: 'video', format: 'webm', quality: 50, fit: 'inside', upscale: false, lossless: true }, ctx);
  t.deepEqual(await frameHashes(webm.path), want);
  t.true(webm.notes.includes('quality does not apply to lossless output.'));
  t.true(webm.notes.some((n) => n.includes('Opus')));
});

test('a video without audio converts; cover and contain give the exact box; odd sizes become even', async (t) => {
  const dir = path.join(work.dir, 'geometry');
  await mkdir(dir);
  const silent = path.join(dir, 'silent.mkv');
  t.is((await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=321x241:rate=25:duration=1', '-c:v', 'libx264', '-preset', 'ultrafast', silent])).code, 0);
  const plain = await convert(silent, dir, { target: 'video', format: 'mp4h264', fit: 'inside', upscale: false, lossless: false }, ctx);
  const p = await ffprobe(plain.path);
  t.deepEqual(p.streams.map((s) => s.codec_type), ['video']);
  t.is(`${plain.width}×${plain.height}`, '320×240', 'even sizes for 4:2:0');
  const cover = await convert(silent, dir, { target: 'video', format: 'webm', width: 100, height: 100, fit: 'cover', upscale: false, lossless: false }, ctx);
  t.is(`${cover.width}×${cover.height}`, '100×100');
  const contain = await convert(silent, dir, { target: 'video', format: 'mov', width: 200, height: 100, fit: 'contain', upscale: false, lossless: false }, ctx);
  t.is(`${contain.width}×${contain.height}`, '200×100');
  const notBigger = await convert(silent, dir, { target: 'video', format: 'mkv', width: 1280, fit: 'inside', upscale: false, lossless: false }, ctx);
  t.is(`${notBigger.width}×${notBigger.height}`, '320×240');
  t.true(notBigger.notes.some((n) => n.includes('not enlarged')));
  const bigger = await convert(silent, dir, { target: 'video', format: 'mkv', width: 640, fit: 'inside', upscale: true, lossless: false }, ctx);
  t.is(`${bigger.width}×${bigger.height}`, '640×480');
});

test('an aborted conversion rejects with "aborted", kills ffmpeg and leaves no output', async (t) => {
  const dir = path.join(work.dir, 'abort');
  await mkdir(dir);
  const long = await testVideo(path.join(dir, 'long.mp4'), { seconds: 20, size: '640x360' });
  const ac = new AbortController();
  const pids: number[] = [];
  let aborted = false;
  let last = 0;
  const running = convert(long, dir, { target: 'video', format: 'webm', fit: 'inside', upscale: false, lossless: false }, {
    ...ctx,
    signal: ac.signal,
    onSpawn: (pid) => pids.push(pid),
    onProgress: (f) => {
      last = f;
      if (f > 0.06 && !aborted) {
        aborted = true;
        ac.abort();
      }
    },
  });
  const err = await t.throwsAsync(running, { instanceOf: MediaError });
  t.is(err!.code, 'aborted');
  t.true(aborted, 'the conversion was running when it was aborted');
  // at once: ffmpeg reported little more after the abort, far from the end of the 20 s video
  t.true(last < 0.5, `it stopped at once (progress ${last.toFixed(2)} when it ended)`);
  t.true(pids.length >= 2, 'probe and transcode were spawned');
  for (const pid of pids) t.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `process ${pid} is gone`);
  t.deepEqual((await readdir(dir)).sort(), ['long.mp4'], 'no partial output or working file is left');
  const again = await t.throwsAsync(convert(long, dir, { target: 'video', format: 'webm', fit: 'inside', upscale: false, lossless: false }, { ...ctx, signal: ac.signal }));
  t.is((again as MediaError).code, 'aborted', 'an already-aborted signal starts nothing');
});

test('runTool: no shell, a timeout kills the tool, stderr is captured but bounded', async (t) => {
  const echoed = await runTool('echo', ['$(id)', '; rm -rf /', '`x`']);
  t.is(echoed.stdout.toString(), '$(id) ; rm -rf / `x`\n', 'arguments reach the tool literally');
  let pid = 0;
  // an hour's sleep: the test can only end here if the timeout killed it
  const err = await t.throwsAsync(runTool('sleep', ['3600'], { timeoutMs: 200, onSpawn: (p) => (pid = p) }), { instanceOf: MediaError });
  t.is((err as MediaError).code, 'limit_exceeded');
  t.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  const noisy = await runTool('ffmpeg', ['-v', 'debug', '-f', 'lavfi', '-i', 'nullsrc=d=0.1', '-f', 'null', '-'], { maxStderr: 1000 });
  t.true(noisy.stderr.length <= 1000);
  const missing = await t.throwsAsync(runTool('no-such-media-tool', []), { instanceOf: MediaError });
  t.is((missing as MediaError).code, 'engine_failed');
  t.false(missing!.message.includes('/'), 'no path in the message');
});
