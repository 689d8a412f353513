// Redaction in convert, on the real service: faces in real group photos (face-api's demo
// photos) are blurred or filled before encoding; the output analysed again has no face left,
// and the pixels outside the faces are the input's (exactly for PNG, within codec error for
// JPEG). Bad redact options are a 422 before any work.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';
import { run } from './helpers/media.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
type Box = { x: number; y: number; width: number; height: number };

const DEMO = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo');

async function upload(svc: Svc, key: string, kind: 'convert' | 'analyse', files: [string, Buffer][]): Promise<string> {
  const uid = (await svc.api('POST', `/api/${kind}/session`, key, {})).body.upload_uid;
  for (const [name, bytes] of files) {
    const r = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': encodeURIComponent(name) }, body: bytes });
    if (r.status !== 201) throw new Error(`upload ${r.status} ${await r.text()}`);
  }
  return uid;
}

async function poll(svc: Svc, key: string, kind: 'convert' | 'analyse', uid: string): Promise<any> {
  for (const until = Date.now() + 300_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    const p = (await svc.api('GET', `/api/${kind}/job/${uid}`, key)).body;
    if (['completed', 'partial', 'failed'].includes(p.status)) return p;
  }
  throw new Error('job did not finish');
}

async function convert(svc: Svc, key: string, name: string, bytes: Buffer, body: Record<string, unknown>): Promise<{ job: any; out: Buffer }> {
  const uid = await upload(svc, key, 'convert', [[name, bytes]]);
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, ...body });
  if (start.status !== 201) throw new Error(`start ${start.status} ${JSON.stringify(start.body)}`);
  const job = await poll(svc, key, 'convert', uid);
  const files = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files;
  const out = Buffer.from(await (await fetch(files[0].download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
  return { job: { ...job, notes: files[0].notes }, out };
}

async function analyse(svc: Svc, key: string, name: string, bytes: Buffer): Promise<any> {
  const uid = await upload(svc, key, 'analyse', [[name, bytes]]);
  const start = await svc.api('POST', '/api/analyse/job', key, { upload_uid: uid, text_detection: false });
  if (start.status !== 201) throw new Error(`start ${start.status} ${JSON.stringify(start.body)}`);
  await poll(svc, key, 'analyse', uid);
  return (await svc.api('GET', `/api/analyse/result/${start.body.job_uid}`, key)).body.files[0];
}

const rgb = async (bytes: Buffer) => sharp(bytes).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });

/** Compares two pictures outside the boxes (each grown by half its size, more than the redaction margin). */
function outside(a: Buffer, b: Buffer, width: number, height: number, boxes: Box[]): { pixels: number; meanAbs: number; maxAbs: number } {
  const grown = boxes.map((f) => ({ x0: f.x - f.width / 2, y0: f.y - f.height / 2, x1: f.x + f.width * 1.5, y1: f.y + f.height * 1.5 }));
  let pixels = 0;
  let sum = 0;
  let max = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (grown.some((g) => x >= g.x0 && x < g.x1 && y >= g.y0 && y < g.y1)) continue;
      pixels++;
      for (let c = 0; c < 3; c++) {
        const d = Math.abs(a[(y * width + x) * 3 + c] - b[(y * width + x) * 3 + c]);
        sum += d;
        if (d > max) max = d;
      }
    }
  }
  return { pixels, meanAbs: sum / (pixels * 3), maxAbs: max };
}

/** The mean of the colour samples inside a box (the box itself, no margin). */
function meanInside(px: Buffer, width: number, f: Box): number {
  let sum = 0;
  let n = 0;
  for (let y = f.y; y < f.y + f.height; y++) for (let x = f.x; x < f.x + f.width; x++) for (let c = 0; c < 3; c++, n++) sum += px[(y * width + x) * 3 + c];
  return sum / n;
}

test('redact ["faces"] to PNG: the job says how many faces were redacted, the output analysed again has 0 faces, and every pixel outside the faces is unchanged', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const original = readFileSync(path.join(DEMO, 'sample1.jpg'));
  const before = await analyse(svc, key, 'party.jpg', original);
  t.is(before.face_count, 3);

  const { job, out } = await convert(svc, key, 'party.jpg', original, { image_format: 'png', redact: ['faces'] });
  t.is(job.status, 'completed', job.progress_message);
  t.regex(job.progress_message, /^Converted 1 file\. 3 regions redacted \(3 faces\)\.$/);
  t.true(job.notes.includes('3 regions redacted (3 faces).'), JSON.stringify(job.notes));

  const after = await analyse(svc, key, 'party.png', out);
  t.is(after.face_count, 0, 'no face is left to find');

  const a = await rgb(original);
  const b = await rgb(out);
  t.deepEqual([b.info.width, b.info.height], [a.info.width, a.info.height]);
  const cmp = outside(a.data, b.data, a.info.width, a.info.height, before.verdicts.faces.boxes);
  t.true(cmp.pixels > a.info.width * a.info.height * 0.5, `${cmp.pixels} pixels compared`);
  t.is(cmp.maxAbs, 0, 'PNG is lossless: outside the faces, the very same pixels');
  // inside each face: the detail is gone (the blur is smooth), yet it is not a black box
  for (const f of before.verdicts.faces.boxes as Box[]) {
    let edges = 0;
    let n = 0;
    for (let y = f.y; y < f.y + f.height; y++) for (let x = f.x + 1; x < f.x + f.width; x++, n++) edges += Math.abs(b.data[(y * b.info.width + x) * 3] - b.data[(y * b.info.width + x - 1) * 3]);
    t.true(edges / n < 2, `a smooth blur (mean neighbour difference ${(edges / n).toFixed(2)})`);
    t.true(meanInside(b.data, b.info.width, f) > 20, 'blurred, not filled');
  }
});

test('redact ["faces"] with redact_style "fill" to JPEG: black boxes over each face, 0 faces when analysed again, the rest within JPEG error', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const original = readFileSync(path.join(DEMO, 'sample5.jpg'));
  const before = await analyse(svc, key, 'stairs.jpg', original);
  t.is(before.face_count, 5);

  const { job, out } = await convert(svc, key, 'stairs.jpg', original, { image_format: 'jpeg', quality: 95, redact: ['faces'], redact_style: 'fill' });
  t.is(job.status, 'completed', job.progress_message);
  t.regex(job.progress_message, /5 regions redacted \(5 faces\)\./);
  t.is((await analyse(svc, key, 'stairs-out.jpg', out)).face_count, 0);

  const a = await rgb(original);
  const b = await rgb(out);
  const cmp = outside(a.data, b.data, a.info.width, a.info.height, before.verdicts.faces.boxes);
  t.true(cmp.meanAbs < 2, `outside the faces: mean difference ${cmp.meanAbs.toFixed(2)} (JPEG q95 re-encoding)`);
  for (const f of before.verdicts.faces.boxes as Box[]) t.true(meanInside(b.data, b.info.width, f) < 8, 'filled black');
});

test('bad redact options are a 422 naming the field, before any work', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await upload(svc, key, 'convert', [['party.jpg', readFileSync(path.join(DEMO, 'sample1.jpg'))]]);
  for (const [body, message] of [
    [{ redact: ['feet'] }, /redact must be one of faces, text/],
    [{ redact: 'faces' }, /redact must be a list of faces, text/],
    [{ redact: ['faces', 'faces'] }, /redact lists each of faces, text at most once/],
    [{ redact: ['faces'], redact_style: 'pixelate' }, /redact_style must be one of blur, fill/],
    [{ redact_style: 'fill' }, /redact_style needs redact/],
  ] as [Record<string, unknown>, RegExp][]) {
    const r = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png', ...body });
    t.is(r.status, 422, JSON.stringify(body));
    t.regex(JSON.stringify(r.body), message, JSON.stringify(r.body));
  }
});

test('redact ["faces"] on a video whose picture pans across three faces: every frame checked has no face left, and the job says how many regions', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const dir = tempDir('obscura-redact-video-');
  const clip = path.join(dir, 'clip.mp4');
  // 3 s at 12 fps: a 1760×1173 window pans 150 px across the photo, so the faces move
  run('ffmpeg', ['-v', 'error', '-y', '-loop', '1', '-i', path.join(DEMO, 'sample1.jpg'), '-t', '3', '-r', '12', '-vf', "crop=1760:1173:'min(t*50,160)':50,scale=1200:800", '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', clip]);
  const frameAt = (file: string, s: number) => run('ffmpeg', ['-v', 'error', '-ss', String(s), '-i', file, '-frames:v', '1', '-f', 'image2', '-c:v', 'png', 'pipe:1']);
  const input = readFileSync(clip);
  t.is((await analyse(svc, key, 'first.png', frameAt(clip, 1.5))).face_count, 3, 'the input shows three faces mid-clip');

  const { job, out } = await convert(svc, key, 'clip.mp4', input, { video_format: 'mkv', lossless: true, redact: ['faces'] });
  t.is(job.status, 'completed', job.progress_message);
  t.regex(job.progress_message, /^Converted 1 file\. 3 regions redacted \(3 faces\)\.$/);
  const redacted = path.join(dir, 'redacted.mkv');
  writeFileSync(redacted, out);
  for (const s of [0, 0.45, 1.1, 1.5, 2.2, 2.9]) {
    const r = await analyse(svc, key, `frame-${s}.png`, frameAt(redacted, s));
    t.is(r.face_count, 0, `no face left at ${s} s`);
  }
});

test('redact ["text"] with fill: the words of a rendered sign are covered, and the job counts the text regions', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="400"><rect width="1000" height="400" fill="#ffffff"/><text x="80" y="230" font-family="DejaVu Sans, sans-serif" font-size="96" font-weight="bold" fill="#000000">OBSCURA 2026</text></svg>`;
  const sign = await sharp(Buffer.from(svg)).png().toBuffer();
  const { job, out } = await convert(svc, key, 'sign.png', sign, { image_format: 'png', redact: ['text'], redact_style: 'fill' });
  t.is(job.status, 'completed', job.progress_message);
  const m = /(\d+) regions? redacted \(\d+ text regions?\)\./.exec(job.progress_message);
  t.truthy(m, job.progress_message);
  t.true(Number(m![1]) >= 1);
  // the letters' band (y 150..240, x 80..780) is now one black fill; the white margins stay white
  const { data, info } = await rgb(out);
  let dark = 0;
  let n = 0;
  for (let y = 160; y < 230; y++) for (let x = 100; x < 760; x++, n++) if (data[(y * info.width + x) * 3] < 30) dark++;
  t.true(dark / n > 0.95, `${((100 * dark) / n).toFixed(1)} % of the text band is filled`);
  t.is(data[(10 * info.width + 10) * 3], 255, 'the corner is untouched');
});
