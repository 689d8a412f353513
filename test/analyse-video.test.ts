// Video analysis on the real service, with videos made by ffmpeg here: joins of two sources,
// audio splices, GPS in a MOV, and what an image shows for the video verdicts.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';
import { PHOTO } from './helpers/media.ts';

type Svc = Awaited<ReturnType<typeof startService>>;

const ff = (args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

async function analyse(svc: Svc, key: string, files: [string, Buffer][]): Promise<any[]> {
  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  for (const [name, bytes] of files) {
    const r = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': name }, body: bytes });
    if (r.status !== 201) throw new Error(`upload ${r.status}`);
  }
  const start = await svc.api('POST', '/api/analyse/job', key, { upload_uid: uid });
  if (start.status !== 201) throw new Error(`start ${start.status}`);
  let poll: any;
  do poll = (await svc.api('GET', `/api/analyse/job/${uid}?wait=30`, key)).body;
  while (!['completed', 'partial', 'failed'].includes(poll.status));
  if (poll.status !== 'completed') throw new Error(poll.progress_message);
  return (await svc.api('GET', `/api/analyse/result/${start.body.job_uid}`, key)).body.files;
}

/** Two 2 s clips of different sources (same codec and size) joined with the concat demuxer at 2.0 s,
 *  a clean 4 s test pattern with a 440 Hz tone, the same with 300 ms of pink noise spliced in at
 *  1.5 s, and a MOV with a QuickTime location and no audio. */
function makeVideos(): Record<string, Buffer> {
  const dir = tempDir('obscura-video-');
  const f = (n: string) => path.join(dir, n);
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=2', ...X264, f('a.mp4')]);
  ff(['-f', 'lavfi', '-i', 'mandelbrot=size=320x240:rate=25', '-t', '2', ...X264, f('b.mp4')]);
  writeFileSync(f('list.txt'), `file '${f('a.mp4')}'\nfile '${f('b.mp4')}'\n`);
  ff(['-f', 'concat', '-safe', '0', '-i', f('list.txt'), '-c', 'copy', f('joined.mp4')]);
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=4', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=4', ...X264, '-c:a', 'aac', '-shortest', f('clean.mp4')]);
  ff([
    '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=3',
    '-filter_complex', 'sine=f=440:d=1.5[a];anoisesrc=c=pink:d=0.3:a=0.3[b];sine=f=440:d=1.2[c];[a][b][c]concat=n=3:v=0:a=1[out]',
    '-map', '0:v', '-map', '[out]', ...X264, '-c:a', 'aac', '-shortest', f('spliced.mp4'),
  ]);
  // as an iPhone writes them: QuickTime keys (mdta) for the place, the maker and the time
  ff([
    '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=2', '-movflags', 'use_metadata_tags',
    '-metadata', 'com.apple.quicktime.location.ISO6709=+46.5197+006.6323+000.000/', '-metadata', 'com.apple.quicktime.make=Apple',
    '-metadata', 'creation_time=2026-05-01T10:00:00Z', ...X264, f('gps.mov'),
  ]);
  // two MPEG-TS recordings of different frame sizes, one after the other (the second at 2 s)
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=2', ...X264, '-f', 'mpegts', f('r1.ts')]);
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=352x288:rate=25:duration=2', ...X264, '-output_ts_offset', '2', '-f', 'mpegts', f('r2.ts')]);
  writeFileSync(f('sizes.ts'), Buffer.concat([readFileSync(f('r1.ts')), readFileSync(f('r2.ts'))]));
  // frames 50 to 62 (2.00 to 2.48 s) cut out, the others keeping their timestamps
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=4', '-vf', "select='not(between(n,50,62))'", '-fps_mode', 'passthrough', ...X264, f('cut.mp4')]);
  // a two-frame white flash at 2 s in one recording: the picture comes back, nothing was joined
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=4', '-vf', "drawbox=enable='between(n,50,51)':x=0:y=0:w=iw:h=ih:color=white:t=fill", ...X264, f('flash.mp4')]);
  return Object.fromEntries(['joined.mp4', 'clean.mp4', 'spliced.mp4', 'gps.mov', 'sizes.ts', 'cut.mp4', 'flash.mp4'].map((n) => [n, readFileSync(f(n))]));
}

test('video verdicts: a join is found near its time, a splice in the audio is found, a clean video is not suspected, GPS in a MOV is a privacy finding, and nothing a client reads is a bare null', async (t) => {
  const videos = makeVideos();
  const svc = await startService({ OBSCURA_ANALYSE_VIDEO_FRAMES: '4' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const items = await analyse(svc, key, [...Object.entries(videos), ['photo.jpg', readFileSync(PHOTO)]]);
  const [joined, clean, spliced, mov, sizes, cut, flash, photo] = items;

  // the join of testsrc2 and mandelbrot at 2.0 s
  t.is(joined.verdicts.video_tamper.applicable, true);
  t.is(joined.verdicts.video_tamper.suspected, true, JSON.stringify(joined.verdicts.video_tamper));
  t.true(joined.verdicts.video_tamper.breaks.some((b: any) => Math.abs(b.time_s - 2.0) <= 0.5), JSON.stringify(joined.verdicts.video_tamper.breaks));
  t.truthy(joined.verdicts.findings.find((f: any) => f.detector === 'video_tamper' && /2\.00 s/.test(f.label)));
  // both encodes' x264 version strings are in the stream: a second encode starts at the join
  t.deepEqual(joined.verdicts.video_tamper.breaks.map((b: any) => [b.kind, b.time_s]), [['encoder_restart', 2], ['scene_discontinuity', 2]]);
  t.true(joined.grade_reasons.some((r: any) => r.points === 2 && /recordings joined/.test(r.reason)));
  t.deepEqual(joined.verdicts.audio_splice, { applicable: false, reason: 'The video has no audio track, so there is no audio to check for splices.' });

  // frame size changing mid-stream, and frames cut out: the stream itself breaks (high, 2 points)
  t.deepEqual(sizes.verdicts.video_tamper.breaks.map((b: any) => [b.kind, b.time_s]), [['resolution_change', 2]]);
  t.deepEqual(cut.verdicts.video_tamper.breaks.map((b: any) => [b.kind, b.time_s]), [['timestamp_gap', 2]]);
  for (const v of [sizes, cut]) {
    t.truthy(v.verdicts.findings.find((f: any) => f.detector === 'video_tamper' && f.severity === 'high' && /The video stream breaks/.test(f.label)));
    t.true(v.grade_reasons.some((r: any) => r.points === 2 && /video stream breaks/.test(r.reason)));
  }

  // a clean test pattern with a clean tone: nothing suspected
  t.deepEqual([clean.verdicts.video_tamper.suspected, clean.verdicts.video_tamper.breaks], [false, []]);
  t.deepEqual([flash.verdicts.video_tamper.suspected, flash.verdicts.video_tamper.breaks], [false, []], 'a flash the picture comes back from is no join');
  t.deepEqual([clean.verdicts.audio_splice.applicable, clean.verdicts.audio_splice.suspected, clean.verdicts.audio_splice.breaks], [true, false, []]);

  // 300 ms of pink noise spliced into the tone at 1.5 s
  t.is(spliced.verdicts.audio_splice.suspected, true, JSON.stringify(spliced.verdicts.audio_splice));
  t.true(spliced.verdicts.audio_splice.breaks.some((b: any) => Math.abs(b.time_s - 1.5) <= 0.1));
  t.true(spliced.verdicts.audio_splice.breaks.some((b: any) => Math.abs(b.time_s - 1.8) <= 0.1));
  t.is(spliced.verdicts.video_tamper.suspected, false);

  // GPS in a QuickTime MOV
  t.truthy(mov.verdicts.findings.find((f: any) => f.detector === 'privacy' && f.severity === 'high' && /GPS position recorded: 46\.5197, 6\.6323/.test(f.label)), JSON.stringify(mov.verdicts.findings));
  t.deepEqual(mov.verdicts.privacy.gps, { latitude: 46.5197, longitude: 6.6323 });
  t.is(mov.verdicts.findings.filter((f: any) => /GPS position/.test(f.label)).length, 1, 'one position, one finding');
  const said = (re: RegExp) => mov.verdicts.findings.some((f: any) => f.detector === 'privacy' && re.test(f.label));
  t.true(said(/Recording device named .*Apple/), 'the maker');
  t.true(said(/Creation times recorded .*2026-05-01T10:00:00/), 'the time of recording');
  t.true(said(/Encoder or software strings recorded .*Lavf/), 'the encoder');
  t.true(said(/^Container mov,mp4.*; streams: video h264/), 'container and codecs');
  for (const c of ['gps', 'camera', 'dates', 'encoder']) t.true(mov.verdicts.privacy.categories.includes(c), c);
  t.not(mov.grade, 'A');

  // for videos, every verdict is an object; those that do not apply say so and why
  for (const v of [joined, clean, spliced, mov, sizes, cut, flash]) {
    for (const [name, verdict] of Object.entries(v.verdicts)) if (name !== 'findings' && name !== 'faces') t.true(verdict !== null && typeof verdict === 'object', `${v.name} ${name}`);
    t.is(v.verdicts.camera_fingerprint.applicable, false);
    t.regex(v.verdicts.camera_fingerprint.reason, /JPEG/);
    // the sampled frames got the still-image forensics
    t.true(v.verdicts.forensic.frames.length >= 1 && v.verdicts.forensic.frames.length <= 4, JSON.stringify(v.verdicts.forensic.frames));
    t.regex(v.verdicts.forensic.verdict, /^(no_indication|possibly_manipulated|likely_manipulated)$/);
  }
  // an image: the video verdicts do not apply, the rest is as before
  t.deepEqual(photo.verdicts.video_tamper, { applicable: false, reason: 'Only videos are checked for frame-timing and scene breaks.' });
  t.is(photo.verdicts.audio_splice.applicable, false);
  t.is(photo.verdicts.camera_fingerprint.applicable, true);
});

test('lossless videos: the sampled frames get LSB steganalysis; random LSB replacement in FFV1 frames is suspected, the clean FFV1 video is not', async (t) => {
  const dir = tempDir('obscura-video-');
  const clean = path.join(dir, 'clean.mkv');
  const stego = path.join(dir, 'stego.mkv');
  // natural picture content (a photo, slowly panned), so the frames carry real noise
  ff(['-loop', '1', '-i', PHOTO, '-vf', 'scale=480:-2,crop=320:240:x=t*20:y=0,format=rgb24', '-t', '2', '-r', '25', '-c:v', 'ffv1', clean]);
  // every low bit of every sample replaced by a random one (LSB replacement at 3 bits per pixel)
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', clean, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], { maxBuffer: 64 << 20 });
  const noise = randomBytes(raw.length);
  for (let i = 0; i < raw.length; i++) raw[i] = (raw[i] & 0xfe) | (noise[i] & 1);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '320x240', '-r', '25', '-i', 'pipe:0', '-c:v', 'ffv1', stego], { input: raw });
  const svc = await startService({ OBSCURA_ANALYSE_VIDEO_FRAMES: '3' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();

  const [s, c] = await analyse(svc, key, [['hidden.mkv', readFileSync(stego)], ['clean.mkv', readFileSync(clean)]]);
  t.is(s.verdicts.hidden_content.lsb.frames_checked, 3);
  t.is(s.steganography_suspected, true, JSON.stringify(s.verdicts.hidden_content));
  t.truthy(s.verdicts.findings.find((f: any) => f.severity === 'high' && /LSB steganography suspected in [1-3] of 3 sampled frames/.test(f.label)));
  t.is(c.verdicts.hidden_content.lsb.frames_checked, 3);
  t.is(c.steganography_suspected, false, JSON.stringify(c.verdicts.hidden_content));
});
