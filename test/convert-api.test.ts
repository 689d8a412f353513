import { existsSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { PHOTO, exif, makeVideo, run } from './helpers/media.ts';
import { tempDir } from './helpers/service.ts';
import path from 'node:path';
import { writeFileSync } from 'node:fs';

type Svc = Awaited<ReturnType<typeof startService>>;

async function session(svc: Svc, key: string, files: [string, Buffer][], network: 'clearnet' | 'onion' | 'i2p' = 'clearnet'): Promise<string> {
  const uid = (await svc.api('POST', '/api/convert/session', key, {}, network)).body.upload_uid;
  for (const [name, bytes] of files) {
    const r = await fetch(`${svc.url[network]}/api/upload`, {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': encodeURIComponent(name) },
      body: bytes,
    });
    if (r.status !== 201) throw new Error(`upload ${name}: ${r.status} ${await r.text()}`);
  }
  return uid;
}

async function waitFor(svc: Svc, key: string, uid: string, network: 'clearnet' | 'onion' | 'i2p' = 'clearnet', ms = 120_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await svc.api('GET', `/api/convert/job/${uid}`, key, undefined, network);
    if (['completed', 'partial', 'failed'].includes(r.body.status)) return r.body;
    if (Date.now() > until) throw new Error(`job still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 150));
  }
}

async function download(svc: Svc, key: string, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { 'X-Api-Key': key, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

test('convert round trip: JPEG and PNG to WebP q80 at 500 px wide, results and downloads on the onion origin', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const png = await sharp(PHOTO).resize(800).png().toBuffer();
  const uid = await session(svc, key, [['Berg Foto.jpg', readFileSync(PHOTO)], ['Berg Foto.png', png]], 'onion');
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'webp', quality: 80, width: 500, expiry: '1h' }, 'onion');
  t.is(start.status, 201);
  t.like(start.body, { job_type: 'convert', status: 'queued' });
  t.regex(start.body.job_uid, /^job_/);
  const done = await waitFor(svc, key, uid, 'onion');
  t.is(done.status, 'completed', done.progress_message);
  t.is(done.progress, 100);
  t.is(done.retry_after, undefined);

  const results = await svc.api('GET', `/api/convert/job/${uid}/results`, key, undefined, 'onion');
  t.is(results.status, 200);
  t.is(results.body.result_files.length, 2);
  const names = results.body.result_files.map((f: any) => f.output_name).sort();
  t.deepEqual(names, ['Berg Foto-2.webp', 'Berg Foto.webp']);
  for (const f of results.body.result_files) {
    t.is(f.mime_type, 'image/webp');
    t.true(f.download_url.startsWith(svc.url.onion), 'URLs handed out on the onion network point at the onion origin');
    const got = await download(svc, key, f.download_url);
    t.is(got.status, 200);
    t.is(got.bytes.length, f.file_size);
    t.regex(got.headers.get('content-disposition')!, /attachment; filename="Berg Foto(-2)?\.webp"/);
    const meta = await sharp(got.bytes).metadata();
    t.is(meta.format, 'webp');
    t.is(meta.width, 500);
    t.is(meta.height, 375);
  }
  // ranges
  const first = results.body.result_files[0];
  const part = await download(svc, key, first.download_url, { Range: 'bytes=10-19' });
  t.is(part.status, 206);
  t.is(part.bytes.length, 10);
  t.is(part.headers.get('content-range'), `bytes 10-19/${first.file_size}`);
  const whole = await download(svc, key, first.download_url);
  t.true(part.bytes.equals(whole.bytes.subarray(10, 20)));
  const tail = await download(svc, key, first.download_url, { Range: 'bytes=-5' });
  t.true(tail.bytes.equals(whole.bytes.subarray(-5)));
  const beyond = await download(svc, key, first.download_url, { Range: `bytes=${first.file_size}-` });
  t.is(beyond.status, 416);
  t.is(beyond.headers.get('content-range'), `bytes */${first.file_size}`);
});

test('start refuses bad options with 422 and disallowed formats with 415; poll and results answer in turn', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await session(svc, key, [['a.jpg', readFileSync(PHOTO)]]);
  const bad = async (body: Record<string, unknown>, re: RegExp, status = 422) => {
    const r = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, ...body });
    t.is(r.status, status, JSON.stringify(body));
    t.regex(r.body.message, re, JSON.stringify(body));
  };
  await bad({ image_format: 'bmp' }, /image_format/);
  await bad({ video_format: 'avi' }, /video_format/);
  await bad({}, /image_format|video_format/);
  await bad({ image_format: 'png', video_format: 'mkv' }, /image_format|video_format/);
  await bad({ image_format: 'webp', quality: 0 }, /quality/);
  await bad({ image_format: 'webp', quality: 101 }, /quality/);
  await bad({ image_format: 'webp', quality: '80' }, /quality/);
  await bad({ image_format: 'webp', width: -3 }, /width/);
  await bad({ image_format: 'jpeg', lossless: true }, /lossless/);
  await bad({ image_format: 'webp', colour: 'red' }, /Unknown option: colour/);
  await bad({ image_format: 'webp', expiry: '30d' }, /expiry/);
  await bad({ image_format: 'webp', expiry: 'forever' }, /expiry/);
  t.is((await svc.api('GET', `/api/convert/job/${uid}`, key)).status, 404, 'no job yet');
  t.is((await svc.api('POST', '/api/convert/job', key, { image_format: 'png' })).status, 422, 'upload_uid is required');
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: 'up_nope', image_format: 'png' })).status, 404);

  const pdf = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
  const pdfUid = await session(svc, key, [['scan.jpg', pdf]]);
  const r = await svc.api('POST', '/api/convert/job', key, { upload_uid: pdfUid, image_format: 'png' });
  t.is(r.status, 415);
  t.regex(r.body.message, /PDF/);

  const ok = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' });
  t.is(ok.status, 201);
  const again = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' });
  t.is(again.status, 409, 'one job per session');
  t.is(again.body.error, 'session_used');
  await waitFor(svc, key, uid);
  t.is((await svc.api('GET', `/api/convert/job/${uid}/results`, key)).status, 200);
  const other = await svc.account();
  t.is((await svc.api('GET', `/api/convert/job/${uid}`, other.key)).status, 404);
  t.is((await svc.api('GET', `/api/convert/job/${uid}/results`, other.key)).status, 404);
  const asset = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files[0];
  t.is((await download(svc, other.key, asset.download_url)).status, 404);
});

test('a bomb, a truncated file, a lying extension and a zero-byte file fail with clear messages; the good file converts', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const good = await sharp(PHOTO).resize(400).jpeg().toBuffer();
  // a bomb is refused when the job is started, from its header, before any work
  const bombs = await session(svc, key, [['good.jpg', good], ['bomb.png', pngBomb(100_000, 100_000)]]);
  const refused = await svc.api('POST', '/api/convert/job', key, { upload_uid: bombs, image_format: 'png' });
  t.is(refused.status, 422);
  t.is(refused.body.error, 'limit_exceeded');
  t.regex(refused.body.message, /^File 2 \(bomb\.png\): .*100000/);
  const uid = await session(svc, key, [
    ['good.jpg', good],
    ['cut.jpg', readFileSync(PHOTO).subarray(0, 20_000)],
    ['photo.png', Buffer.from('this is a text file pretending to be a PNG\n'.repeat(20))],
    ['empty.jpg', Buffer.alloc(0)],
  ]);
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' })).status, 201);
  const done = await waitFor(svc, key, uid);
  t.is(done.status, 'partial');
  t.regex(done.progress_message, /Converted 1 of 4 files; 3 failed/);
  const results = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body;
  t.is(results.result_files.length, 1);
  const byName = Object.fromEntries(results.failed_files.map((f: any) => [f.name, f]));
  t.is(byName['cut.jpg'].error, 'corrupt');
  t.is(byName['photo.png'].error, 'unsupported_media');
  t.is(byName['empty.jpg'].error, 'empty');
  for (const f of results.failed_files) t.false(/\/dev\/shm|obscura-job|\/tmp\//.test(f.message), f.message);

  // the service goes on serving other jobs
  const next = await session(svc, key, [['b.jpg', good]]);
  await svc.api('POST', '/api/convert/job', key, { upload_uid: next, image_format: 'avif', quality: 50 });
  const nextDone = await waitFor(svc, key, next);
  t.is(nextDone.status, 'completed', nextDone.progress_message);
});

test('metadata never survives: GPS, EXIF, XMP, IPTC and a comment are gone, and the rotated photo comes out upright', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const dir = tempDir();
  const src = path.join(dir, 'dirty.jpg');
  writeFileSync(src, await sharp(PHOTO).resize(600, 400, { fit: 'fill' }).jpeg().toBuffer());
  run('exiftool', ['-q', '-overwrite_original', '-n', '-GPSLatitude=48.8583', '-GPSLatitudeRef=N', '-GPSLongitude=2.2945', '-GPSLongitudeRef=E',
    '-Make=Canon', '-Model=EOS R5', '-SerialNumber=0123456789', '-Artist=Jane Source', '-XMP-dc:Creator=Jane Source', '-IPTC:By-line=Jane Source',
    '-Comment=meet at the north gate', '-Orientation=6', src]);
  const uid = await session(svc, key, [['dirty.jpg', readFileSync(src)]]);
  await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'jpeg', quality: 90 });
  t.is((await waitFor(svc, key, uid)).status, 'completed');
  const f = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files[0];
  const out = (await download(svc, key, f.download_url)).bytes;
  const tags = exif(out, 'jpg');
  const text = JSON.stringify(tags);
  for (const leak of ['Canon', 'EOS R5', '0123456789', 'Jane Source', 'north gate', 'GPS', 'XMP', 'IPTC', 'Orientation']) t.false(text.includes(leak), `${leak} in ${text}`);
  const meta = await sharp(out).metadata();
  t.deepEqual([meta.width, meta.height], [400, 600], 'orientation 6 applied to the pixels');
});

test('a video converts to WebM (VP9 + Opus) and plays', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await session(svc, key, [['clip.mp4', makeVideo({ seconds: 2 })]]);
  await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, video_format: 'webm', width: 160 });
  const done = await waitFor(svc, key, uid);
  t.is(done.status, 'completed', done.progress_message);
  const f = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files[0];
  t.is(f.mime_type, 'video/webm');
  t.is(f.output_name, 'clip.webm');
  const p = path.join(tempDir(), 'out.webm');
  writeFileSync(p, (await download(svc, key, f.download_url)).bytes);
  const probe = JSON.parse(run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', p]).toString());
  t.deepEqual(probe.streams.map((s: any) => s.codec_name).sort(), ['opus', 'vp9']);
  t.is(probe.streams.find((s: any) => s.codec_type === 'video').width, 160);
  run('ffmpeg', ['-v', 'error', '-i', p, '-f', 'null', '-']);
});

test('a job over its time limit is stopped, fails with a clear message, and leaves no tool running', async (t) => {
  const svc = await startService({ OBSCURA_JOB_TIME_LIMIT: '2s' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await session(svc, key, [['long.mp4', makeVideo({ seconds: 60, width: 1280, height: 720 })]]);
  await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, video_format: 'mp4h265', quality: 90 });
  const done = await waitFor(svc, key, uid);
  t.is(done.status, 'failed');
  t.is(done.error, 'time_limit', done.progress_message);
  t.regex(done.progress_message, /longer than the limit of 2 seconds/);
  await new Promise((r) => setTimeout(r, 500));
  // no tool is left working on a job folder that no longer exists (other tests' jobs may run)
  const leaked = run('ps', ['-eo', 'stat=,args=']).toString().split('\n').filter((l) => {
    const m = /^(\S+)\s+ffmpeg .*?(\/dev\/shm\/obscura-job-[0-9a-f]{8}-[A-Za-z0-9]{6})/.exec(l.trim());
    return m && !m[1].startsWith('Z') && !existsSync(m[2]);
  });
  t.deepEqual(leaked, []);
});

test('results expire: downloads and the results listing answer 410 and the bytes are destroyed', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await session(svc, key, [['a.jpg', readFileSync(PHOTO)]]);
  await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png', width: 64, expiry: '10m' });
  await waitFor(svc, key, uid);
  const f = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files[0];
  t.is((await download(svc, key, f.download_url)).status, 200);
  t.is(await svc.services.results.expire(Date.now() + 9 * 60_000), 0, 'not yet');
  t.is(await svc.services.results.expire(Date.now() + 11 * 60_000), 1);
  t.is((await download(svc, key, f.download_url)).status, 410);
  t.is((await svc.api('GET', `/api/convert/job/${uid}/results`, key)).status, 410);
  t.is(await svc.services.repos.keyRing.get(f.asset_id), undefined);
});

/** A valid PNG header declaring width x height, with a tiny IDAT: a decompression bomb's shape. */
function pngBomb(width: number, height: number): Buffer {
  const crc = (buf: Buffer) => {
    let c = ~0;
    for (const b of buf) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return (~c >>> 0);
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])), chunk('IEND', Buffer.alloc(0))]);
}
