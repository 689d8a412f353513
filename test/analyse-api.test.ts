// The analyse product through both interfaces, on the real service: sessions or media-urls,
// the job, polling, the per-file result, and the assets.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { C2PA_PNG, PHOTO, exif } from './helpers/media.ts';
import { v1 } from './helpers/v1.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
type Network = 'clearnet' | 'onion' | 'i2p';

async function analyse(svc: Svc, key: string, files: [string, Buffer][], options: Record<string, unknown> = {}, network: Network = 'clearnet') {
  const uid = (await svc.api('POST', '/api/analyse/session', key, {}, network)).body.upload_uid;
  for (const [name, bytes] of files) {
    const r = await fetch(`${svc.url[network]}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': encodeURIComponent(name) }, body: bytes });
    if (r.status !== 201) throw new Error(`upload ${r.status} ${await r.text()}`);
  }
  const start = await svc.api('POST', '/api/analyse/job', key, { upload_uid: uid, ...options }, network);
  if (start.status !== 201) return { start, uid, poll: undefined as any, result: undefined as any };
  let poll: any;
  for (const until = Date.now() + 120_000; Date.now() < until; await new Promise((r) => setTimeout(r, 150))) {
    poll = (await svc.api('GET', `/api/analyse/job/${uid}`, key, undefined, network)).body;
    if (['completed', 'partial', 'failed'].includes(poll.status)) break;
  }
  const result = await svc.api('GET', `/api/analyse/result/${start.body.job_uid}`, key, undefined, network);
  return { start, poll, result, uid };
}

function tmp(t: { teardown(fn: () => void): void }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-analyse-api-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('newer interface: a photo with GPS, the C2PA AI image and a zip-carrying JPEG in one job; items graded, assets stripped and on the right network', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const dir = tmp(t);
  const gps = path.join(dir, 'gps.jpg');
  await sharp(PHOTO).resize(800).jpeg({ quality: 90 }).toFile(gps);
  execFileSync('exiftool', ['-q', '-overwrite_original', '-GPSLatitude=46.5197', '-GPSLatitudeRef=N', '-GPSLongitude=6.6323', '-GPSLongitudeRef=E', '-Make=Canon', gps]);
  const plain = await sharp(PHOTO).resize(600).jpeg().toBuffer();
  const zip = Buffer.concat([plain, Buffer.from('PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00a.txtPK\x05\x06' + '\0'.repeat(18), 'latin1')]);

  const r = await analyse(svc, key, [['holiday.jpg', readFileSync(gps)], ['made-by-ai.png', readFileSync(C2PA_PNG)], ['carrier.jpg', zip]], {}, 'onion');
  t.is(r.start.status, 201);
  t.is(r.poll.status, 'completed', r.poll.progress_message);
  t.is(r.result.status, 200);
  const files = r.result.body.files as any[];
  t.deepEqual(files.map((f) => f.name), ['holiday.jpg', 'made-by-ai.png', 'carrier.jpg']);
  for (const f of files) {
    t.regex(f.grade, /^[ABCDF]$/);
    for (const k of ['face_count', 'text_region_count', 'watermark_flagged', 'steganography_suspected', 'verdicts', 'assets']) t.true(k in f, k);
    t.true(Array.isArray(f.verdicts.findings));
    for (const finding of f.verdicts.findings) t.true(['info', 'low', 'medium', 'high'].includes(finding.severity));
    // the messages the pages translate stay inside: the API says its findings in English alone
    for (const finding of f.verdicts.findings) t.deepEqual(Object.keys(finding).sort(), ['detector', 'label', 'severity', ...('tip' in finding ? ['tip'] : [])], JSON.stringify(finding));
    for (const reason of f.grade_reasons) t.deepEqual(Object.keys(reason).sort(), ['points', 'reason']);
    t.true(Number.isInteger(f.face_count) && f.face_count >= 0, 'faces are looked for by default: a count, not null');
  }
  const [holiday, ai, carrier] = files;
  t.truthy(holiday.verdicts.findings.find((x: any) => x.severity === 'high' && /^GPS position recorded/.test(x.label)));
  t.not(holiday.grade, 'A');
  t.is(holiday.verdicts.camera_fingerprint.quality_level, 90);
  t.is(ai.verdicts.c2pa.verdict, 'valid');
  t.is(ai.verdicts.c2pa.has_manifest, true);
  t.is(ai.verdicts.ai_generation.verdict, 'declared_aigc');
  t.is(ai.verdicts.camera_fingerprint, null, 'not a JPEG: no answer');
  t.truthy(ai.verdicts.findings.find((x: any) => /quantisation|JPEG/i.test(x.label)), 'the null fingerprint says why');
  t.is(carrier.steganography_suspected, true);
  t.truthy(carrier.verdicts.findings.find((x: any) => /follow the end of the image: they hold a ZIP archive/.test(x.label)));

  // assets: each category downloadable, on the network asked, and free of metadata
  const categories = new Set(holiday.assets.map((a: any) => a.category));
  for (const c of ['display_image', 'ela_map', 'forensic_noise_map']) t.true(categories.has(c), c);
  for (const a of holiday.assets) {
    t.true(a.download_url.startsWith(svc.url.onion), a.download_url);
    const res = await fetch(a.download_url, { headers: { 'X-Api-Key': key } });
    t.is(res.status, 200);
    t.is(res.headers.get('content-type'), a.mime_type);
    const bytes = Buffer.from(await res.arrayBuffer());
    t.is(bytes.length, a.file_size);
    const tags = exif(bytes, a.mime_type === 'image/png' ? 'png' : 'jpg');
    t.deepEqual(Object.keys(tags).filter((k) => !k.startsWith('ExifTool:') && /GPS|Make|Model|Exif|XMP|IPTC|ICC|Thumbnail|Comment|Software/i.test(k)), [], `${a.category} is stripped`);
  }
  // another account sees nothing of it
  const other = await svc.account('other@example.org');
  t.is((await fetch(holiday.assets[0].download_url, { headers: { 'X-Api-Key': other.key } })).status, 404);
  t.is((await svc.api('GET', `/api/analyse/result/${r.start.body.job_uid}`, other.key)).status, 404);

  // the job's expiry destroys its results and assets: 410 from then on
  t.is(await svc.services.results.expire(Date.now() + 8 * 86_400_000), 1);
  t.is((await fetch(holiday.assets[0].download_url, { headers: { 'X-Api-Key': key } })).status, 410);
  t.is((await svc.api('GET', `/api/analyse/result/${r.start.body.job_uid}`, key, undefined, 'onion')).status, 410);
});

test('newer interface: unknown or malformed options are a 422 naming them; nothing starts', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  for (const [opts, re] of [
    [{ colour: 'red' }, /Unknown option: colour/],
    [{ forensic_depth: 'extreme' }, /forensic_depth must be/],
    [{ face_detection: 'yes' }, /face_detection must be true or false/],
    [{ face_sensitivity: 2 }, /face_sensitivity must be/],
  ] as const) {
    const r = await analyse(svc, key, [['a.jpg', await sharp(PHOTO).resize(64).jpeg().toBuffer()]], opts);
    t.is(r.start.status, 422, JSON.stringify(opts));
    t.regex(r.start.body.message, re);
    t.is(r.start.body.error, r.start.body.error.toLowerCase());
    t.is((await svc.api('GET', `/api/analyse/job/${r.uid}`, key)).status, 404, 'no job was started');
  }
});

test('a file no detector can read fails alone: the job is partial, the good file is analysed', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const png = await sharp(PHOTO).resize(300).png().toBuffer();
  const broken = Buffer.concat([png.subarray(0, 33), Buffer.alloc(200, 7)]);
  const r = await analyse(svc, key, [['good.png', png], ['broken.png', broken]]);
  t.is(r.poll.status, 'partial', r.poll.progress_message);
  const [good, bad] = r.result.body.files;
  t.regex(good.grade, /^[ABCDF]$/);
  t.is(bad.grade, null);
  t.truthy(bad.error);
  t.truthy(bad.message);
});

test('v1: create-media-url, PATCH chunks, analyse, poll status until COMPLETED, result; tips only when asked', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const dir = tmp(t);
  const file = path.join(dir, 'trip.jpg');
  await sharp(PHOTO).jpeg({ quality: 85 }).toFile(file);
  execFileSync('exiftool', ['-q', '-overwrite_original', '-GPSLatitude=51.5', '-GPSLatitudeRef=N', '-GPSLongitude=0.12', '-GPSLongitudeRef=W', file]);
  const bytes = readFileSync(file);
  const c = v1(svc.url.i2p, key);

  const run = async (enableTips: boolean, enableExtraAnalysis: boolean) => {
    const created = await c.create('trip.jpg', bytes.length);
    t.is(created.status, 201);
    const k = c.keyOf(created.headers.get('location')!);
    for (let off = 0; off < bytes.length; off += 100_000) {
      const p = await c.patch(k, off, bytes.subarray(off, off + 100_000));
      t.is(p.status, off + 100_000 >= bytes.length ? 204 : 200);
    }
    const started = await c.send('POST', '/v1/job/analyse', { json: { key: k, enableTips, enableExtraAnalysis } });
    t.is(started.status, 200, JSON.stringify(started.body));
    const jobUrl = started.headers.get('location')!;
    t.true(jobUrl.startsWith(svc.url.i2p), jobUrl);
    const jobKey = jobUrl.split('/').pop()!;
    let status: any;
    const seen = new Set<string>();
    for (const until = Date.now() + 120_000; Date.now() < until; await new Promise((r) => setTimeout(r, 150))) {
      status = await c.send('POST', `/v1/job/status/${jobKey}`);
      t.is(status.status, 200);
      seen.add(status.body.status);
      t.deepEqual(Object.keys(status.body).sort(), ['key', 'message', 'resultUrl', 'status']);
      if (status.body.status !== 'COMPLETED') t.is(status.body.resultUrl, '');
      if (['COMPLETED', 'FAILED'].includes(status.body.status)) break;
    }
    t.is(status.body.status, 'COMPLETED', status.body.message);
    for (const s of seen) t.true(['WAITING', 'PROCESSING', 'COMPLETED'].includes(s), s);
    const resultUrl: string = status.body.resultUrl;
    t.true(resultUrl.startsWith(`${svc.url.i2p}/v1/job/result/`), resultUrl);
    const result = await c.send('GET', new URL(resultUrl).pathname);
    t.is(result.status, 200);
    t.is(result.body.key, jobKey);
    const item = result.body.results.files[0];
    t.is(item.name, 'trip.jpg');
    const gps = item.verdicts.findings.find((f: any) => /^GPS position/.test(f.label));
    t.is(gps.severity, 'high');
    for (const f of item.verdicts.findings) t.deepEqual(Object.keys(f).sort(), ['detector', 'label', 'severity', ...(enableTips && 'tip' in f ? ['tip'] : [])], 'no message ids in v1');
    t.is(typeof gps.tip === 'string', enableTips, 'a tip per finding only with enableTips');
    t.is(item.verdicts.forensic.clone === null, !enableExtraAnalysis, 'copy-move runs only with enableExtraAnalysis');
  };
  await run(true, false);
  await run(false, true);

  // bad requests: v1 answers 422 with a message (an unknown key too: SEED-SPEC keeps 404 for
  // resumableDelete alone), 401 without a key
  const bad = [
    await c.send('POST', '/v1/job/analyse', { json: { key: 'nope', enableTips: true, enableExtraAnalysis: false } }),
    await c.send('POST', '/v1/job/analyse', { json: { enableTips: true, enableExtraAnalysis: false } }),
    await c.send('POST', '/v1/job/analyse', { json: { key: 'x', enableTips: 'yes', enableExtraAnalysis: false } }),
  ];
  t.deepEqual(bad.map((b) => b.status), [422, 422, 422]);
  t.is(bad[0].body.error, 'upload_not_found');
  const half = await c.create('half.jpg', 1000);
  const hk = c.keyOf(half.headers.get('location')!);
  await c.patch(hk, 0, bytes.subarray(0, 400));
  const incomplete = await c.send('POST', '/v1/job/analyse', { json: { key: hk, enableTips: false, enableExtraAnalysis: false } });
  t.is(incomplete.status, 422);
  t.regex(incomplete.body.message, /not complete: 400 of 1000 bytes/);
  for (const [method, path] of [['POST', '/v1/job/status/job_unknown'], ['GET', '/v1/job/result/job_unknown']] as const) {
    const unknown = await c.send(method, path);
    t.is(unknown.status, 422, `${method} ${path}`);
    t.is(unknown.body.error, 'job_not_found');
  }
  t.is((await fetch(`${svc.url.i2p}/v1/job/status/x`, { method: 'POST' })).status, 401);
});

test('a video is analysed for what applies to it: metadata and provenance answered, sampled frames checked, what does not apply an object saying why, its first frame as the display image', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const dir = tmp(t);
  const file = path.join(dir, 'clip.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '2', '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-metadata', 'location=+46.5197+006.6323/', file]);
  const r = await analyse(svc, key, [['clip.mp4', readFileSync(file)]]);
  t.is(r.poll.status, 'completed', r.poll.progress_message);
  const item = r.result.body.files[0];
  t.true(item.verdicts.forensic.frames.length >= 1, 'the sampled frames get the still-image forensics');
  t.truthy(item.verdicts.findings.find((f: any) => f.detector === 'forensic' && /^At \d+\.\d\d s/.test(f.label)));
  t.is(item.verdicts.camera_fingerprint.applicable, false, 'not a JPEG: an object saying so, never a bare null on a video');
  t.truthy(item.verdicts.camera_fingerprint.reason);
  t.is(item.verdicts.c2pa.verdict, 'none');
  t.is(item.steganography_suspected, null, 'a lossy video\'s frames are not checked for LSB steganography: no answer');
  t.truthy(item.verdicts.findings.find((f: any) => f.detector === 'hidden_content' && /lossy/.test(f.label)));
  t.truthy(item.verdicts.findings.find((f: any) => f.severity === 'high' && /GPS/.test(f.label)), JSON.stringify(item.verdicts.findings));
  const display = item.assets.find((a: any) => a.category === 'display_image');
  t.truthy(display);
  const img = await sharp(Buffer.from(await (await fetch(display.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer())).metadata();
  t.deepEqual([img.format, img.width, img.height], ['jpeg', 320, 240]);
});
