// A video's sampled frames go through the face and text readings too: a clip that shows a group
// photo after a title card, and one whose frames carry an e-mail address, each analysed through
// the real service. The answer is the frame with the most faces (or lines), and every frame's
// count is in the verdict.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { analyse } from './helpers/analyse.ts';
import { startService, tempDir } from './helpers/service.ts';
import { run } from './helpers/media.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
const DEMO = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo');

/** An H.264 MP4 of stills, each shown for `seconds`. */
async function slideshow(stills: Buffer[], seconds: number): Promise<Buffer> {
  const dir = tempDir('obscura-media-');
  const inputs: string[] = [];
  for (const [i, still] of stills.entries()) {
    const file = path.join(dir, `s${i}.png`);
    writeFileSync(file, await sharp(still).resize(960, 640, { fit: 'contain', background: '#000' }).png().toBuffer());
    inputs.push('-loop', '1', '-t', String(seconds), '-framerate', '10', '-i', file);
  }
  const out = path.join(dir, 'clip.mp4');
  const join = stills.map((_, i) => `[${i}:v]`).join('') + `concat=n=${stills.length}:v=1:a=0,format=yuv420p[v]`;
  run('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', join, '-map', '[v]', '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '18', out]);
  return readFileSync(out);
}

const card = (text: string) => sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="960" height="640"><rect width="960" height="640" fill="white"/><text x="60" y="340" font-family="DejaVu Sans" font-size="52" fill="black">${text}</text></svg>`)).png().toBuffer();

async function analyseOne(svc: Svc, key: string, name: string, bytes: Buffer) {
  const r = await analyse(svc, key, [[name, bytes]]);
  return { poll: r.poll, file: r.files[0] };
}

test('faces and text in a video are counted over its sampled frames, not only the first one', async (t) => {
  t.timeout(300_000);
  const svc = await startService({ OBSCURA_ANALYSE_VIDEO_FRAMES: '6' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();

  // a title card first (no face), then three people: the first frame alone would say 0
  const people = await analyseOne(svc, key, 'party.mp4', await slideshow([await card('Summer 2026'), readFileSync(path.join(DEMO, 'sample1.jpg'))], 2));
  t.is(people.poll.status, 'completed', people.poll.progress_message);
  const faces = people.file.verdicts.faces;
  t.true(Math.abs(people.file.face_count - 3) <= 1, `faces: ${people.file.face_count}`);
  t.true(faces.frames.length >= 2, 'every sampled frame was looked at');
  t.true(faces.frames.some((f: any) => f.count === 0) && faces.frames.some((f: any) => f.count > 0), JSON.stringify(faces.frames));
  t.true(faces.time_s >= 1.9, `the busiest frame is in the second half (${faces.time_s} s)`);

  // a landscape first, then a card with an e-mail address: the privacy finding still comes
  const mail = await analyseOne(svc, key, 'contact.mp4', await slideshow([await sharp({ create: { width: 960, height: 640, channels: 3, background: '#3a6' } }).png().toBuffer(), await card('write to jane.doe@example.org')], 2));
  t.is(mail.poll.status, 'completed', mail.poll.progress_message);
  t.true(mail.file.text_region_count >= 1, `lines: ${mail.file.text_region_count}`);
  t.true(mail.file.verdicts.findings.some((f: any) => f.detector === 'privacy' && /e-mail/i.test(f.label)), 'an e-mail address in a later frame is found');
  t.false(JSON.stringify(mail.file.verdicts.findings).includes('jane.doe'), 'the address itself is not in a finding');
});

test('every sampled frame of an MPEG-TS with one keyframe is the frame at its time: a caption shown for 0.2 s is read', async (t) => {
  t.timeout(300_000);
  const svc = await startService({ OBSCURA_ANALYSE_VIDEO_FRAMES: '12' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  // 4 s at 25 fps, a keyframe only at the start, B-frames: a seek lands where no frame can be
  // decoded on its own, so a frame is right only when the video is decoded from its start
  const dir = tempDir('obscura-media-');
  const white = path.join(dir, 'white.png');
  const caption = path.join(dir, 'caption.png');
  writeFileSync(white, await sharp({ create: { width: 960, height: 640, channels: 3, background: '#fff' } }).png().toBuffer());
  writeFileSync(caption, await card('Shown only briefly'));
  const out = path.join(dir, 'brief.ts');
  const still = (file: string, s: number) => ['-loop', '1', '-t', String(s), '-framerate', '25', '-i', file];
  run('ffmpeg', ['-v', 'error', '-y', ...still(white, 1.7), ...still(caption, 0.2), ...still(white, 2.1), '-filter_complex', '[0:v][1:v][2:v]concat=n=3:v=1:a=0,format=yuv420p[v]', '-map', '[v]',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-bf', '3', '-g', '1000', '-x264-params', 'scenecut=0', '-f', 'mpegts', out]);

  const r = await analyseOne(svc, key, 'brief.ts', readFileSync(out));
  t.is(r.poll.status, 'completed', r.poll.progress_message);
  const text = r.file.verdicts.text;
  t.is(text.frames.length, 12, `every sampled frame was decoded: ${JSON.stringify(text.frames)}`);
  // the uniform sample nearest 1.8 s falls inside the 1.7-1.9 s the caption is shown
  t.true(text.frames.some((f: any) => f.count >= 1 && f.time_s >= 1.7 && f.time_s < 1.9), JSON.stringify(text.frames));
  t.regex(text.text, /briefly/i);
  t.is(r.file.verdicts.faces.frames.length, 12);
  t.is(r.file.verdicts.forensic.frames.length, 12);
});
