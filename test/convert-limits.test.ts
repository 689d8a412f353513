// Convert outputs are held to the same limits as inputs before any work, and each file to a CPU
// budget while it converts: the cases of the "Abuse resistance" issue, with small real inputs,
// through the running service.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { ConfigError, loadConfig } from '../src/config.ts';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';
import { makeVideo, run } from './helpers/media.ts';

type Svc = Awaited<ReturnType<typeof startService>>;

async function session(svc: Svc, key: string, files: [string, Buffer][]): Promise<string> {
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  for (const [name, bytes] of files) {
    const r = await fetch(`${svc.url.clearnet}/api/upload`, {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': encodeURIComponent(name) },
      body: bytes,
    });
    if (r.status !== 201) throw new Error(`upload ${name}: ${r.status} ${await r.text()}`);
  }
  return uid;
}

async function finished(svc: Svc, key: string, uid: string): Promise<any> {
  for (;;) {
    const r = await svc.api('GET', `/api/convert/job/${uid}?wait=30`, key);
    if (['completed', 'partial', 'failed'].includes(r.body.status)) return r.body;
  }
}

/** The results of a finished job, with each output's bytes. */
async function results(svc: Svc, key: string, uid: string): Promise<{ done: any; ok: { name: string; bytes: Buffer }[]; failed: any[] }> {
  const done = await finished(svc, key, uid);
  const body = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body;
  const ok = [];
  for (const f of body.result_files) {
    const res = await fetch(f.download_url, { headers: { 'X-Api-Key': key } });
    ok.push({ name: f.name, bytes: Buffer.from(await res.arrayBuffer()) });
  }
  return { done, ok, failed: body.failed_files };
}

/**
 * An animated GIF of `frames` frames of 16×16, at 50 frames a second: ffmpeg's test pattern, or
 * noise, whose frames all differ (WebP merges a frame that repeats the one before).
 */
function gif(frames: number, noise = false): Buffer {
  const out = path.join(tempDir('obscura-gif-'), 'anim.gif');
  const d = frames / 50;
  const source = noise ? ['-i', `color=c=gray:s=16x16:r=50:d=${d}`, '-vf', 'noise=alls=100:allf=t'] : ['-i', `testsrc2=size=16x16:rate=50:duration=${d}`];
  run('ffmpeg', ['-v', 'error', '-f', 'lavfi', ...source, out]);
  return readFileSync(out);
}

const tinyJpeg = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#3a7' } }).jpeg().toBuffer();

test('a 200-frame 16×16 GIF asked as a 4000×4000 animated WebP (fill, upscale) is refused at start, naming OBSCURA_MAX_PIXELS', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const bytes = gif(200);
  t.true(bytes.length < 20_000, `${bytes.length} bytes`);
  const uid = await session(svc, key, [['tiny.gif', bytes]]);
  const r = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'webp', width: 4000, height: 4000, fit: 'fill', upscale: true });
  t.is(r.status, 422, JSON.stringify(r.body));
  t.is(r.body.error, 'output_too_large');
  t.regex(r.body.message, /^File 1 \(tiny\.gif\): The result would be 200 frames of 4000×4000, 3,200,000,000 pixels \(3200 MP\) in all; OBSCURA_MAX_PIXELS allows 50,000,000 pixels \(50 MP\)/);
  t.is((await svc.api('GET', `/api/convert/job/${uid}`, key)).status, 404, 'no job was made');
});

test('a tiny JPEG upscaled to a 16384×16384 PNG is refused at start; so is a short video upscaled to 16384, naming OBSCURA_MAX_VIDEO_RESOLUTION', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const jpeg = await tinyJpeg();
  t.true(jpeg.length < 1000, `${jpeg.length} bytes`);
  const pictures = await session(svc, key, [['dot.jpg', jpeg]]);
  const still = await svc.api('POST', '/api/convert/job', key, { upload_uid: pictures, image_format: 'png', width: 16384, height: 16384, upscale: true });
  t.is(still.status, 422, JSON.stringify(still.body));
  t.is(still.body.error, 'output_too_large');
  t.regex(still.body.message, /^File 1 \(dot\.jpg\): The result would be 16384×16384, 268,435,456 pixels \(268 MP\); OBSCURA_MAX_PIXELS allows 50,000,000 pixels/);

  const clips = await session(svc, key, [['clip.mp4', makeVideo({ seconds: 1 })]]);
  const video = await svc.api('POST', '/api/convert/job', key, { upload_uid: clips, video_format: 'mp4h264', width: 16384, upscale: true });
  t.is(video.status, 422, JSON.stringify(video.body));
  t.is(video.body.error, 'output_too_large');
  t.regex(video.body.message, /^File 1 \(clip\.mp4\): The result would be a 16384×12288 video; OBSCURA_MAX_VIDEO_RESOLUTION allows 7680×4320/);
});

test('a job holding a video longer than OBSCURA_MAX_VIDEO_DURATION is refused at start, naming the file and the setting', async (t) => {
  const svc = await startService({ OBSCURA_MAX_VIDEO_DURATION: '2s' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await session(svc, key, [['short.mp4', makeVideo({ seconds: 1 })], ['long.mp4', makeVideo({ seconds: 3 })]]);
  const r = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, video_format: 'webm' });
  t.is(r.status, 422, JSON.stringify(r.body));
  t.is(r.body.error, 'limit_exceeded');
  t.regex(r.body.message, /^File 2 \(long\.mp4\): The video is 3 s long; OBSCURA_MAX_VIDEO_DURATION allows 2 s\./);
});

test('outputs exactly at the limits are accepted and made; one pixel more is refused', async (t) => {
  const svc = await startService({ OBSCURA_MAX_PIXELS: '1000000', OBSCURA_MAX_VIDEO_RESOLUTION: '320x240' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const start = (uid: string, body: Record<string, unknown>) => svc.api('POST', '/api/convert/job', key, { upload_uid: uid, ...body });

  // a still: 1000×1000 is the whole 1 MP
  const still = await session(svc, key, [['dot.jpg', await tinyJpeg()]]);
  const over = await start(still, { image_format: 'png', width: 1000, height: 1001, fit: 'fill', upscale: true });
  t.is(over.status, 422);
  t.regex(over.body.message, /1000×1001, 1,001,000 pixels \(1 MP\); OBSCURA_MAX_PIXELS allows 1,000,000 pixels \(1 MP\)/);
  t.is((await start(still, { image_format: 'png', width: 1000, height: 1000, fit: 'fill', upscale: true })).status, 201);
  const made = await results(svc, key, still);
  t.is(made.done.status, 'completed', made.done.progress_message);
  t.like(await sharp(made.ok[0].bytes).metadata(), { format: 'png', width: 1000, height: 1000 });

  // an animation: every frame counts, 10 × 316 × 316 = 998,560 and 10 × 317 × 317 = 1,004,890
  const anim = await session(svc, key, [['ten.gif', gif(10, true)]]);
  const tooMany = await start(anim, { image_format: 'webp', width: 317, height: 317, fit: 'fill', upscale: true });
  t.is(tooMany.status, 422);
  t.regex(tooMany.body.message, /10 frames of 317×317, 1,004,890 pixels/);
  t.is((await start(anim, { image_format: 'webp', width: 316, height: 316, fit: 'fill', upscale: true })).status, 201);
  const animated = await results(svc, key, anim);
  t.is(animated.done.status, 'completed', animated.done.progress_message);
  t.like(await sharp(animated.ok[0].bytes).metadata(), { format: 'webp', width: 316, height: 316, pages: 10 });

  // a video: 320×240 is the limit, 322×242 (the next even size) is over it
  const clip = await session(svc, key, [['clip.mp4', makeVideo({ seconds: 1, width: 160, height: 120 })]]);
  const wide = await start(clip, { video_format: 'mp4h264', width: 322, upscale: true });
  t.is(wide.status, 422);
  t.regex(wide.body.message, /322×242 video; OBSCURA_MAX_VIDEO_RESOLUTION allows 320×240/);
  t.is((await start(clip, { video_format: 'mp4h264', width: 320, upscale: true })).status, 201);
  const video = await results(svc, key, clip);
  t.is(video.done.status, 'completed', video.done.progress_message);
  const p = path.join(tempDir(), 'out.mp4');
  writeFileSync(p, video.ok[0].bytes);
  const probe = JSON.parse(run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', p]).toString());
  t.like(probe.streams.find((s: any) => s.codec_type === 'video'), { width: 320, height: 240 });
});

test('a video that needs more CPU than OBSCURA_CONVERT_CPU_BUDGET fails with cpu_budget_exceeded; a cheap one in the same job converts', async (t) => {
  const svc = await startService({ OBSCURA_CONVERT_CPU_BUDGET: '2s' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  // x265 on 100 frames of 1080p takes tens of CPU seconds; on 12 frames of 64×48, a fraction of one
  const uid = await session(svc, key, [
    ['big.mp4', makeVideo({ seconds: 4, width: 1920, height: 1080 })],
    ['small.mp4', makeVideo({ seconds: 0.5, width: 64, height: 48 })],
  ]);
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, video_format: 'mp4h265', quality: 90 })).status, 201);
  const { done, ok, failed } = await results(svc, key, uid);
  t.is(done.status, 'partial', done.progress_message);
  t.deepEqual(ok.map((f) => f.name), ['small.mp4']);
  t.is(failed.length, 1);
  t.like(failed[0], { name: 'big.mp4', error: 'cpu_budget_exceeded' });
  t.regex(failed[0].message, /OBSCURA_CONVERT_CPU_BUDGET allows \(2 s of CPU per file\)/);
});

test('a picture whose encoding needs more CPU than OBSCURA_CONVERT_CPU_BUDGET fails with cpu_budget_exceeded; a cheap one in the same job converts', async (t) => {
  const svc = await startService({ OBSCURA_CONVERT_CPU_BUDGET: '2s' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  // both become 7000 wide: the first 7000×7000 (49 MP, within the pixel limit), the second 7000×10
  const noise = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
  const uid = await session(svc, key, [['big.png', await noise(700, 700)], ['strip.png', await noise(7000, 10)]]);
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'webp', lossless: true, width: 7000, upscale: true })).status, 201);
  const { done, ok, failed } = await results(svc, key, uid);
  t.is(done.status, 'partial', done.progress_message);
  t.deepEqual(ok.map((f) => f.name), ['strip.png']);
  t.like(await sharp(ok[0].bytes).metadata(), { format: 'webp', width: 7000, height: 10 });
  t.like(failed[0], { name: 'big.png', error: 'cpu_budget_exceeded' });
  t.regex(failed[0].message, /OBSCURA_CONVERT_CPU_BUDGET/);
});

test('OBSCURA_CONVERT_CPU_BUDGET defaults to 10 minutes and takes no less than a second', (t) => {
  t.is(loadConfig({}).convert.cpuBudgetMs, 600_000);
  t.is(loadConfig({ OBSCURA_CONVERT_CPU_BUDGET: '90s' }).convert.cpuBudgetMs, 90_000);
  t.throws(() => loadConfig({ OBSCURA_CONVERT_CPU_BUDGET: '500ms' }), { instanceOf: ConfigError, message: /OBSCURA_CONVERT_CPU_BUDGET.*at least 1s/ });
});
