// Full analysis (faces and text asked for, as the API's defaults) through the whole API, upload
// to result, in a service child process:
// (a) a 12 MP photo, against the part-1 analysis of the same file (face_detection and
//     text_detection false, standard depth) in the same service: goal <= 6 s;
// (b) a 30 s 1080p video made by ffmpeg: the time and its ratio to the video's duration.
// Whatever detectors the pipeline runs are timed; the per-detector times come from the result.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { SERVICE_NODE_FLAGS, exited, freePort, keyFor, startChild } from '../test/helpers/child.ts';

const PHOTO = path.resolve(import.meta.dirname, '../test/fixtures/photo-mountain.jpg');
const VIDEO_SECONDS = 30;

export async function fullAnalysis(dir: string): Promise<void> {
  const jpeg = await sharp(PHOTO).resize(4000, 3000, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
  const video = path.join(dir, 'clip-1080p.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=1920x1080:rate=30:duration=${VIDEO_SECONDS}`, '-f', 'lavfi', '-i', `sine=frequency=440:duration=${VIDEO_SECONDS}`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', video]);
  const dataDir = path.join(dir, 'data-full');
  const key = await keyFor(dataDir, 'bench-full@example.org');
  const port = await freePort();
  const child = await startChild(dataDir, port, { OBSCURA_LOG_LEVEL: 'warn' }, SERVICE_NODE_FLAGS);
  const origin = `http://127.0.0.1:${port}`;
  const h = { 'X-Api-Key': key, 'Content-Type': 'application/json' };
  const once = async (name: string, bytes: Buffer, options: Record<string, unknown>) => {
    const t = performance.now();
    const uid = ((await (await fetch(`${origin}/api/analyse/session`, { method: 'POST', headers: h, body: '{}' })).json()) as any).upload_uid;
    const up = await fetch(`${origin}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': name }, body: bytes });
    if (up.status !== 201) throw new Error(`upload ${up.status}`);
    const start = (await (await fetch(`${origin}/api/analyse/job`, { method: 'POST', headers: h, body: JSON.stringify({ upload_uid: uid, ...options }) })).json()) as any;
    for (;;) {
      const p = (await (await fetch(`${origin}/api/analyse/job/${uid}?wait=30`, { headers: h })).json()) as any;
      if (p.status === 'completed') break;
      if (p.status === 'failed' || p.status === 'partial') throw new Error(p.progress_message);
    }
    const item = ((await (await fetch(`${origin}/api/analyse/result/${start.job_uid}`, { headers: h })).json()) as any).files[0];
    return { ms: performance.now() - t, item };
  };
  const s = (ms: number) => (ms / 1000).toFixed(2);
  try {
    const part1 = { forensic_depth: 'standard', face_detection: false, text_detection: false };
    const full = { forensic_depth: 'standard', face_detection: true, text_detection: true };
    await once('warm.jpg', jpeg, full); // loads the face and OCR models once, as a running service has them
    const base: number[] = [], all: number[] = [];
    let last: any;
    for (let i = 0; i < 3; i++) {
      base.push((await once('photo.jpg', jpeg, part1)).ms);
      const r = await once('photo.jpg', jpeg, full);
      all.push(r.ms);
      last = r.item;
    }
    base.sort((a, b) => a - b);
    all.sort((a, b) => a - b);
    process.stdout.write(`\nfull analysis (faces and text) of the 12 MP JPEG through the whole API, upload to result, after a warm-up:\n`);
    process.stdout.write(`  full: median ${s(all[1])} s of 3 (${all.map(s).join(', ')}) (goal <= 6 s); part-1 analysis (no faces, no text) median ${s(base[1])} s; ratio ${(all[1] / base[1]).toFixed(2)}\n`);
    process.stdout.write(`  face_count ${last.face_count}, text_region_count ${last.text_region_count}, grade ${last.grade}; per detector (ms, in the job): ${Object.entries(last.timings_ms ?? {}).map(([k, v]) => `${k} ${v}`).join(', ') || 'not reported'}\n`);
    const v = await once('clip-1080p.mp4', readFileSync(video), full);
    process.stdout.write(`full analysis of a ${VIDEO_SECONDS} s 1080p H.264 video (${(readFileSync(video).length / 1e6).toFixed(1)} MB): ${s(v.ms)} s = ${(v.ms / 1000 / VIDEO_SECONDS).toFixed(2)} x its duration; face_count ${v.item.face_count}, text_region_count ${v.item.text_region_count}, grade ${v.item.grade}\n`);
    process.stdout.write(`  where the time goes (the same analysis in this process, as the job's timings_ms, which the API does not return):\n`);
    const where = await breakdown(video, path.join(dir, 'breakdown'));
    process.stdout.write(`    one decode of the video (timing, scene thumbnails and the sampled frames, alone): ${s(where.decodeMs)} s; analysis ${s(where.totalMs)} s\n`);
    process.stdout.write(`    per detector (ms; the first to need the decode waits for it, the frames' OCR runs beside the others from then on): ${where.perDetector}\n`);
  } finally {
    child.kill('SIGTERM');
    await exited(child);
  }
}

/** The analysis of the video in this process: the decode alone, then the whole analysis with
 *  its per-detector times. */
async function breakdown(video: string, outDir: string): Promise<{ decodeMs: number; totalMs: number; perDetector: string }> {
  const { mkdirSync } = await import('node:fs');
  const { DEFAULT_LIMITS } = await import('../src/media/limits.ts');
  const { probe } = await import('../src/media/probe.ts');
  const { analyseInput } = await import('../src/media/analyse/input.ts');
  const { decodePass } = await import('../src/media/analyse/video/decode.ts');
  const { analyseFile } = await import('../src/media/analyse/index.ts');
  mkdirSync(path.join(outDir, 'a'), { recursive: true });
  mkdirSync(path.join(outDir, 'b'), { recursive: true });
  const options = { depth: 'standard' as const, limits: DEFAULT_LIMITS, faces: { enabled: true, sensitivity: 0.5 }, text: { enabled: true } };
  const p = await probe(video, DEFAULT_LIMITS, {});
  let t = performance.now();
  await decodePass(analyseInput(video, p, DEFAULT_LIMITS, { ...options, outDir: path.join(outDir, 'a') }), { ...options, outDir: path.join(outDir, 'a') });
  const decodeMs = performance.now() - t;
  t = performance.now();
  const r = await analyseFile(video, DEFAULT_LIMITS, { ...options, outDir: path.join(outDir, 'b') });
  const totalMs = performance.now() - t;
  const perDetector = Object.entries(r.timings_ms).sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${ms}`).join(', ');
  return { decodeMs, totalMs, perDetector };
}
