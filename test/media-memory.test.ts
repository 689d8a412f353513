// Media work within a memory budget (issue 22, finding 4): each job's memory is estimated from
// its probe and admitted under OBSCURA_MEDIA_MEMORY_BUDGET, or refused with the figures; the
// tools it starts run under an address-space limit. The cases, small files that ask
// for gigabytes, through the running service with a small budget, beside ordinary files that
// still work under the same budget.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { ConfigError, loadConfig } from '../src/config.ts';
import { videoConvertNeed } from '../src/media/memory.ts';
import { runTool, setToolMemoryShare } from '../src/media/tools.ts';
import { MemoryBudget } from '../src/queue/memory-budget.ts';
import { analyse } from './helpers/analyse.ts';
import { makeVideo, run } from './helpers/media.ts';
import { startService, tempDir } from './helpers/service.ts';
import { convertSession, uploadFile } from './helpers/upload-files.ts';
import { test } from './helpers/test.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
const GiB = 1024 ** 3;

async function finished(svc: Svc, key: string, uid: string): Promise<any> {
  for (;;) {
    const r = await svc.api('GET', `/api/convert/job/${uid}?wait=30`, key);
    if (['completed', 'partial', 'failed'].includes(r.body.status)) return r.body;
  }
}

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#336699' } });

/** An 8K (7680×4320) H.264 video of one colour: about 100 KB for a second. */
function video8k(): Buffer {
  const out = path.join(tempDir('obscura-8k-'), '8k.mp4');
  run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=blue:s=7680x4320:r=10:d=1', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', out]);
  return readFileSync(out);
}

test('a 1.4 KB 7000×7000 AVIF asked as JPEG XL is refused at start with its memory estimate and the budget; a small AVIF to JPEG XL converts under the same budget', async (t) => {
  const svc = await startService({ OBSCURA_MEDIA_MEMORY_BUDGET: '2GiB' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const big = await solid(7000, 7000).avif({ quality: 30, effort: 0 }).toBuffer();
  t.true(big.length < 4000, `${big.length} bytes`);
  const uid = await convertSession(svc, key, [['huge.avif', big]]);
  const r = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'jxl' });
  t.is(r.status, 422, JSON.stringify(r.body));
  t.is(r.body.error, 'too_much_memory');
  t.regex(r.body.message, /^File 1 \(huge\.avif\): Converting this image to JPEG XL needs about \d+\.\d GiB of memory \(49 MP a picture\); OBSCURA_MEDIA_MEMORY_BUDGET allows 2\.0 GiB for one job\./);
  t.is((await svc.api('GET', `/api/convert/job/${uid}`, key)).status, 404, 'no job was made');

  const small = await solid(64, 48).avif().toBuffer();
  const ok = await convertSession(svc, key, [['small.avif', small]]);
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: ok, image_format: 'jxl' })).status, 201);
  const done = await finished(svc, key, ok);
  t.is(done.status, 'completed', JSON.stringify(done));
  t.deepEqual(svc.services.pool.memory, { held: 0, total: 2 * GiB }, 'the job gave its memory back');
});

test('a 49 MP JPEG is not analysed under a 2 GiB budget: the file fails with the estimate and the setting; a small JPEG is analysed', async (t) => {
  const svc = await startService({ OBSCURA_MEDIA_MEMORY_BUDGET: '2GiB' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const big = await solid(7000, 7000).jpeg().toBuffer();
  const small = await solid(320, 240).jpeg().toBuffer();
  const r = await analyse(svc, key, [['big.jpg', big], ['small.jpg', small]], { face_detection: false, text_detection: false });
  t.is(r.poll.status, 'partial', JSON.stringify(r.poll));
  const [bigItem, smallItem] = r.files;
  t.is(bigItem.error, 'too_much_memory');
  t.regex(bigItem.message, /^Analysing this image needs about \d+\.\d GiB of memory \(49 MP a picture\); OBSCURA_MEDIA_MEMORY_BUDGET allows 2\.0 GiB for one job\. A smaller picture needs less\.$/);
  t.is(smallItem.error, undefined, JSON.stringify(smallItem));
  t.is(smallItem.media.width, 320);
  t.is(svc.services.pool.memory.held, 0);
});

test('a 100 KB 8K video is refused at start over OBSCURA_MEDIA_MEMORY_PER_JOB, which the message names; a small video converts under it, its ffmpeg within the job\'s share', async (t) => {
  // a GiB over what a small video needs here (the estimate grows with the cores), far under 8K
  const perJob = Math.ceil(videoConvertNeed(320 * 240, false, '').bytes / GiB) + 1;
  const svc = await startService({ OBSCURA_MEDIA_MEMORY_BUDGET: `${perJob + 8}GiB`, OBSCURA_MEDIA_MEMORY_PER_JOB: `${perJob}GiB` });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const big = video8k();
  t.true(big.length < 300_000, `${big.length} bytes`);
  const uid = await convertSession(svc, key, [['8k.mp4', big]]);
  const r = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, video_format: 'mp4h264' });
  t.is(r.status, 422, JSON.stringify(r.body));
  t.is(r.body.error, 'too_much_memory');
  t.regex(r.body.message, new RegExp(String.raw`^File 1 \(8k\.mp4\): Converting this video to MP4 \(H\.264\) needs about \d+\.\d GiB of memory \(33\.2 MP a picture\); OBSCURA_MEDIA_MEMORY_PER_JOB allows ${perJob}\.0 GiB for one job\.`));

  const ok = await convertSession(svc, key, [['clip.mp4', makeVideo({ seconds: 1 })]]);
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: ok, video_format: 'mp4h264' })).status, 201);
  const done = await finished(svc, key, ok);
  t.is(done.status, 'completed', JSON.stringify(done));
});

async function stegoJob(svc: Svc, key: string, type: 'hide' | 'reveal', files: [number, string, Buffer][]): Promise<{ done: any; files: Buffer[] }> {
  const uid = (await svc.api('POST', '/api/session', key, { type })).body.upload_uid;
  for (const [step, name, bytes] of files) await uploadFile(svc, key, uid, step, name, bytes);
  const start = await svc.api('POST', '/api/job', key, { upload_uid: uid, password: 'correct horse battery staple' });
  if (start.status !== 201) throw new Error(JSON.stringify(start.body));
  let done: any;
  do done = (await svc.api('GET', `/api/job/${uid}?wait=30`, key)).body;
  while (!['completed', 'partial', 'failed'].includes(done.status));
  const out: Buffer[] = [];
  for (const f of (await svc.api('GET', `/api/job/${uid}/results`, key)).body.result_files ?? []) {
    out.push(Buffer.from(await (await fetch(f.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer()));
  }
  return { done, files: out };
}

test('hiding in a 49 MP cover fails with the estimate and the setting under a 2 GiB budget; a small cover hides and reveals under it', async (t) => {
  const svc = await startService({ OBSCURA_MEDIA_MEMORY_BUDGET: '2GiB' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const secret = Buffer.from('the meeting is at noon');
  const cover49 = await solid(7000, 7000).png().toBuffer();
  const big = await stegoJob(svc, key, 'hide', [[1, 'note.txt', secret], [2, 'cover.png', cover49]]);
  t.is(big.done.status, 'failed', JSON.stringify(big.done));
  t.is(big.done.error, 'too_much_memory');
  t.regex(big.done.progress_message, /^Hiding in this image needs about \d+\.\d GiB of memory \(49 MP a picture\); OBSCURA_MEDIA_MEMORY_BUDGET allows 2\.0 GiB for one job\./);
  // a reveal says so too (the estimate comes from the picture's size, before any passphrase)
  const bigReveal = await stegoJob(svc, key, 'reveal', [[1, 'big.png', cover49]]);
  t.is(bigReveal.done.error, 'too_much_memory', JSON.stringify(bigReveal.done));
  t.regex(bigReveal.done.progress_message, /needs about \d+\.\d GiB of memory \(49 MP a picture\)/);

  const small = await stegoJob(svc, key, 'hide', [[1, 'note.txt', secret], [2, 'cover.png', await solid(320, 240).png().toBuffer()]]);
  t.is(small.done.status, 'completed', JSON.stringify(small.done));
  const back = await stegoJob(svc, key, 'reveal', [[1, 'hidden.png', small.files[0]]]);
  t.is(back.done.status, 'completed', JSON.stringify(back.done));
  t.deepEqual(back.files, [secret]);
  t.is(svc.services.pool.memory.held, 0);
});

test('a tool that needs more memory than its share is stopped by its address-space limit, with a clear error', async (t) => {
  const dir = tempDir('obscura-mem-');
  const png = path.join(dir, 'in.png');
  await solid(4000, 3000).png().toFile(png); // cjxl needs about 2 GiB of address space for it
  setToolMemoryShare(300 * 1024 * 1024); // as the worker sets it once the job is admitted
  const err = await t.throwsAsync(runTool('cjxl', [png, path.join(dir, 'out.jxl'), '--quiet'], { cwd: dir })).finally(() => setToolMemoryShare(undefined));
  t.is((err as any).code, 'too_much_memory');
  t.is(err!.message, "The media tool cjxl needed more memory than this job's share (300 MiB, from its estimate under OBSCURA_MEDIA_MEMORY_BUDGET) and was stopped.");
  // a step with a limit of its own (a probe, the C2PA reader) says so
  const own = await t.throwsAsync(runTool('cjxl', [png, path.join(dir, 'out.jxl'), '--quiet'], { memoryLimit: 300 * 1024 * 1024, cwd: dir }));
  t.is(own!.message, 'The media tool cjxl needed more memory than it may use for this step (300 MiB) and was stopped.');
  // the same tool on a small picture, under the same limit, works
  const smallPng = path.join(dir, 'small.png');
  await solid(64, 48).png().toFile(smallPng);
  const r = await runTool('cjxl', [smallPng, path.join(dir, 'out.jxl'), '--quiet'], { memoryLimit: 300 * 1024 * 1024, cwd: dir });
  t.is(r.code, 0);
});

test('the budget admits first come first served: work that does not fit beside what runs waits until it is given back; more than the budget is refused', async (t) => {
  const budget = new MemoryBudget(10);
  const a = await budget.reserve(6);
  let bGranted = false;
  const b = budget.reserve(5).then((r) => ((bGranted = true), r));
  const c = budget.reserve(1); // fits beside a, but comes after b
  let cGranted = false;
  void c.then(() => (cGranted = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.false(bGranted, 'b waits while a holds 6 of 10');
  t.false(cGranted, 'c waits behind b');
  t.is(budget.held, 6);
  a.release();
  const [rb, rc] = await Promise.all([b, c]);
  t.is(budget.held, 6);
  rb.release();
  rc.release();
  rc.release(); // twice is once
  t.is(budget.held, 0);
  const over = await t.throwsAsync(budget.reserve(11));
  t.is((over as any).code, 'too_much_memory');
  const ac = new AbortController();
  const hold = await budget.reserve(10);
  const waiting = budget.reserve(1, ac.signal);
  ac.abort();
  t.is(((await t.throwsAsync(waiting)) as any).code, 'aborted');
  hold.release();
  t.is(budget.held, 0);
});

test('the memory settings: auto is half the machine, a per-job limit above the budget is the budget, too small is refused', (t) => {
  const auto = loadConfig({});
  t.is(auto.memory.budget, Math.floor(os.totalmem() / 2));
  t.deepEqual(auto.memory.perJob, { bytes: auto.memory.budget, setting: 'OBSCURA_MEDIA_MEMORY_BUDGET' });
  const set = loadConfig({ OBSCURA_MEDIA_MEMORY_BUDGET: '8GiB', OBSCURA_MEDIA_MEMORY_PER_JOB: '2GiB' });
  t.deepEqual(set.memory, { budget: 8 * GiB, perJob: { bytes: 2 * GiB, setting: 'OBSCURA_MEDIA_MEMORY_PER_JOB' } });
  t.deepEqual(loadConfig({ OBSCURA_MEDIA_MEMORY_BUDGET: '4GiB', OBSCURA_MEDIA_MEMORY_PER_JOB: '6GiB' }).memory.perJob, { bytes: 4 * GiB, setting: 'OBSCURA_MEDIA_MEMORY_BUDGET' });
  const e = t.throws(() => loadConfig({ OBSCURA_MEDIA_MEMORY_BUDGET: '100MiB' }), { instanceOf: ConfigError });
  t.regex(e!.message, /OBSCURA_MEDIA_MEMORY_BUDGET="100MiB": must be at least 256MiB/);
});
