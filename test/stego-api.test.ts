import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { PHOTO, exif } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { finishJob, revealFile } from './helpers/stego-jobs.ts';
import { uploadFile } from './helpers/upload-files.ts';
import { encodePng } from '../src/media/stego/png.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
const NOTHING = 'No hidden content could be recovered with this passphrase.';

async function hide(svc: Svc, key: string, secrets: [string, Buffer][], cover: [string, Buffer], opts: Record<string, unknown> = {}) {
  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  for (const [n, b] of secrets) await uploadFile(svc, key, uid, 1, n, b);
  await uploadFile(svc, key, uid, 2, cover[0], cover[1]);
  const start = await svc.api('POST', '/api/job', key, { upload_uid: uid, password: 'correct horse battery staple', expiry: '1h', ...opts });
  if (start.status !== 201) return { start };
  const done = await finishJob(svc, key, uid);
  const results = (await svc.api('GET', `/api/job/${uid}/results`, key)).body;
  const file = results.result_files?.[0];
  const bytes = file ? Buffer.from(await (await fetch(file.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer()) : undefined;
  return { start, done, results, file, bytes };
}

const reveal = (svc: Svc, key: string, name: string, bytes: Buffer, password = 'correct horse battery staple') => revealFile(svc, key, name, bytes, password);

/** A PNG's samples as stored: sharp widens grey with alpha to RGBA, so that is narrowed back. */
async function pixelsOf(png: Buffer, channels: 1 | 2 | 4): Promise<Buffer> {
  if (channels === 1) return sharp(png).toColourspace('b-w').raw().toBuffer();
  const rgba = await sharp(png).ensureAlpha().raw().toBuffer();
  if (channels === 4) return rgba;
  const out = Buffer.alloc(rgba.length / 2);
  for (let i = 0; i < rgba.length / 4; i++) [out[i * 2], out[i * 2 + 1]] = [rgba[i * 4], rgba[i * 4 + 3]];
  return out;
}

const cover = (w: number, h: number, format: 'png' | 'webp' | 'avif' = 'png') =>
  sharp(PHOTO).resize(w, h, { fit: 'cover' }).toFormat(format, { lossless: true }).toBuffer();

test('hide and reveal round trips bit-exact: 1 B, 1 KB and 60 KB in PNG, lossless WebP and lossless AVIF covers', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  // 60 KB: most of one of the two lanes of an 800x600 cover (80,928 bytes each)
  for (const [format, size] of [['png', 1], ['png', 1000], ['png', 60_000], ['webp', 1], ['webp', 60_000], ['avif', 1000], ['avif', 60_000]] as const) {
    const secret = payload(size);
    const c = await cover(800, 600, format);
    const h = await hide(svc, key, [[`secret-${size}.bin`, secret]], [`cover.${format}`, c], { output_format: format });
    t.is(h.done.status, 'completed', h.done.progress_message);
    t.is(h.file.mime_type, `image/${format}`);
    t.is(h.file.output_name, `cover.${format}`);
    const r = await reveal(svc, key, `cover.${format}`, h.bytes!);
    t.is(r.done.status, 'completed', r.done.progress_message);
    t.is(r.files.length, 1);
    t.is(r.files[0].name, `secret-${size}.bin`);
    t.is(sha256(r.files[0].bytes), sha256(secret), `${format} ${size}`);
  }
});

test('alpha and grey covers: transparency is kept exactly, only opaque colour samples move, the secret comes back', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const w = 400;
  const h = 300;
  // RGBA with a soft alpha ramp on the left half and opaque pixels on the right
  const rgb = await sharp(PHOTO).resize(w, h, { fit: 'cover' }).removeAlpha().raw().toBuffer();
  const rgba = Buffer.alloc(w * h * 4);
  for (let i = 0; i < w * h; i++) {
    rgb.copy(rgba, i * 4, i * 3, i * 3 + 3);
    rgba[i * 4 + 3] = i % w < w / 2 ? Math.floor(((i % w) / (w / 2)) * 255) : 255;
  }
  const grey = await sharp(PHOTO).resize(w, h, { fit: 'cover' }).greyscale().raw().toBuffer();
  const greyAlpha = Buffer.alloc(w * h * 2);
  for (let i = 0; i < w * h; i++) {
    greyAlpha[i * 2] = grey[i];
    greyAlpha[i * 2 + 1] = rgba[i * 4 + 3];
  }
  const covers: [string, Buffer, Buffer, 1 | 2 | 4][] = [
    ['rgba.png', await sharp(rgba, { raw: { width: w, height: h, channels: 4 } }).png().toBuffer(), rgba, 4],
    ['grey.png', await sharp(grey, { raw: { width: w, height: h, channels: 1 } }).toColourspace('b-w').png().toBuffer(), grey, 1],
    ['grey-alpha.png', Buffer.concat(await encodePng(greyAlpha, w, h, 2)), greyAlpha, 2],
  ];
  for (const [name, png, pixels, channels] of covers) {
    const secret = payload(3000); // a 400x300 cover's opaque samples hold 3,303 bytes in one lane
    const hidden = await hide(svc, key, [['s.bin', secret]], [name, png]);
    t.is(hidden.done.status, 'completed', hidden.done.progress_message);
    t.is((await sharp(hidden.bytes!).metadata()).channels, channels, `${name} keeps its channels`);
    const out = await pixelsOf(hidden.bytes!, channels);
    t.is(out.length, pixels.length);
    let moved = 0;
    for (let i = 0; i < pixels.length; i++) {
      const d = Math.abs(out[i] - pixels[i]);
      t.true(d <= 1);
      if (d) moved++;
      const a = channels - 1; // where the alpha sits in a pixel, for 2 and 4 channels
      if (channels % 2 === 0 && (i % channels === a || pixels[i - (i % channels) + a] !== 255) && d) t.fail(`${name}: sample ${i} moved in a transparent pixel or its alpha`);
    }
    t.true(moved > 0, `${name}: something was embedded`);
    const back = await reveal(svc, key, name, hidden.bytes!);
    t.is(back.done.status, 'completed', back.done.progress_message);
    t.is(sha256(back.files[0].bytes), sha256(secret), name);
  }
});

test('several secrets in one hide come back with their names; pixels change by at most 1 and metadata is gone', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const c = await sharp(PHOTO).resize(640, 480).withExif({ IFD0: { Make: 'Canon', Artist: 'Jane Source' } }).png().toBuffer();
  const secrets: [string, Buffer][] = [['notes.txt', Buffer.from('meet at the north gate, 6am\n'.repeat(50))], ['Quelle Foto.jpg', await sharp(PHOTO).resize(200).jpeg().toBuffer()], ['empty.bin', Buffer.alloc(0)]];
  const h = await hide(svc, key, secrets, ['holiday.png', c]);
  t.is(h.done.status, 'completed', h.done.progress_message);
  const before = await sharp(c).raw().toBuffer();
  const after = await sharp(h.bytes!).raw().toBuffer();
  t.is(after.length, before.length);
  let changed = 0;
  for (let i = 0; i < before.length; i++) {
    const d = Math.abs(before[i] - after[i]);
    t.true(d <= 1) || t.fail(`sample ${i} moved by ${d}`);
    if (d) changed++;
  }
  t.true(changed > 0 && changed < before.length * 0.05, `${changed} samples changed`);
  const tags = JSON.stringify(exif(h.bytes!, 'png'));
  t.false(/Canon|Jane Source/.test(tags), tags);
  const r = await reveal(svc, key, 'x.png', h.bytes!);
  t.deepEqual(r.files.map((f) => f.name), secrets.map(([n]) => n));
  for (const [i, [, b]] of secrets.entries()) t.true(r.files[i].bytes.equals(b));
});

test('a secret near the capacity fits in PNG, WebP and AVIF covers; one byte over is a 422 giving the capacity in bytes', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  for (const format of ['png', 'webp', 'avif'] as const) {
    const c = await cover(200, 150, format);
    const over = await hide(svc, key, [['big.bin', randomBytes(20_000)]], [`c.${format}`, c], { output_format: format });
    t.is(over.start.status, 422);
    const capacity = over.start.body.capacity_bytes;
    t.regex(over.start.body.message, new RegExp(`holds at most ${capacity} bytes`));
    // one lane of two: 45,000 samples of a 200x150 cover, 90 % of them, less the header and the tag
    t.true(capacity > 4900 && capacity < 5100, String(capacity));
    const overhead = 3 + 2 + 'near.bin'.length + 9;
    const near = randomBytes(capacity - overhead);
    const h = await hide(svc, key, [['near.bin', near]], [`c.${format}`, c], { output_format: format });
    t.is(h.done.status, 'completed', h.done.progress_message);
    const r = await reveal(svc, key, `c.${format}`, h.bytes!);
    t.true(r.files[0].bytes.equals(near), format);
    const one = await hide(svc, key, [['near.bin', randomBytes(capacity - overhead + 1)]], [`c.${format}`, c], { output_format: format });
    t.is(one.start.status, 422);
  }
});

test('wrong passphrase, nothing hidden, truncated, re-encoded as JPEG, random bytes: one and the same answer', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const c = await cover(400, 300);
  const h = await hide(svc, key, [['s.txt', Buffer.from('the list')]], ['c.png', c]);
  const jpeg = await sharp(h.bytes!).jpeg({ quality: 98 }).toBuffer();
  const cases: [string, Buffer, string?][] = [
    ['wrong passphrase', h.bytes!, 'correct horse battery stapler'],
    ['nothing hidden', c],
    ['truncated', h.bytes!.subarray(0, Math.floor(h.bytes!.length / 2))],
    ['converted to JPEG', jpeg],
    ['random bytes', randomBytes(50_000)],
    ['zero bytes', Buffer.alloc(0)],
  ];
  for (let i = 0; i < 6; i++) {
    const fuzzed = Buffer.from(h.bytes!);
    for (let k = 0; k < 20; k++) fuzzed[Math.floor(Math.random() * fuzzed.length)] ^= 1 << Math.floor(Math.random() * 8);
    cases.push([`fuzzed ${i}`, fuzzed]);
  }
  for (const [what, bytes, pw] of cases) {
    const r = await reveal(svc, key, 'suspect.png', bytes, pw);
    t.is(r.done.status, 'failed', what);
    t.is(r.done.progress_message, NOTHING, what);
    t.is(r.done.error, 'nothing_found', what);
  }
  // and the service still works
  const ok = await reveal(svc, key, 'c.png', h.bytes!);
  t.is(ok.files[0].bytes.toString(), 'the list');
});

test('bad hide requests: empty passphrase, unknown options, a lossy output format, no cover; a weak passphrase is noted', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const c = await cover(300, 200);
  const bad = async (opts: Record<string, unknown>, re: RegExp) => {
    const h = await hide(svc, key, [['s', Buffer.from('x')]], ['c.png', c], opts);
    t.is(h.start.status, 422, JSON.stringify(opts));
    t.regex(h.start.body.message, re);
  };
  await bad({ password: '' }, /cannot be empty/);
  await bad({ password: 42 }, /password is required/);
  await bad({ output_format: 'jpeg' }, /png, webp, avif/);
  await bad({ stealth: 'max' }, /Unknown option: stealth/);
  const weak = await hide(svc, key, [['s', Buffer.from('x')]], ['c.png', c], { password: 'abc12' });
  t.is(weak.done.status, 'completed');
  t.regex(weak.done.progress_message, /passphrase is very short/);
  const jpegCover = await hide(svc, key, [['s', Buffer.from('x')]], ['c.jpg', readFileSync(PHOTO)]);
  t.is(jpegCover.done.status, 'completed');
  t.regex(jpegCover.done.progress_message, /lossless PNG/);
  t.is(jpegCover.file.output_name, 'c.png');
  // the passphrase is not kept once the job is over
  const row = svc.services.db!.prepare("SELECT id, sealed FROM jobs WHERE product = 'hide' AND state = 'completed' LIMIT 1").get() as { id: string; sealed: Uint8Array };
  const { Sealer } = await import('../src/store/sealer.ts');
  const opened = new Sealer(svc.services.masterKey.derive('row-sealer')).open<{ options: Record<string, unknown> }>(`job:${row.id}`, Buffer.from(row.sealed));
  t.false('password' in opened.options);
});

test('video covers: hide in MKV (FFV1) and WebM (VP9 lossless), audio kept, reveal bit-exact', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const { makeVideo, run } = await import('./helpers/media.ts');
  const { tempDir } = await import('./helpers/service.ts');
  const { writeFileSync } = await import('node:fs');
  const path = await import('node:path');
  const clip = makeVideo({ seconds: 2, width: 320, height: 240 });
  for (const format of ['mkv', 'webm'] as const) {
    const secret = payload(40_000);
    const h = await hide(svc, key, [['dossier.pdf', secret], ['b.txt', Buffer.from('second')]], ['clip.mp4', clip], { output_format: format });
    t.is(h.done.status, 'completed', h.done.progress_message);
    t.is(h.file.output_name, `clip.${format}`);
    const p = path.join(tempDir(), `out.${format}`);
    writeFileSync(p, h.bytes!);
    const streams = JSON.parse(run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', p]).toString());
    t.deepEqual(streams.streams.map((s: any) => s.codec_name).sort(), format === 'mkv' ? ['ffv1', 'flac'] : ['opus', 'vp9']);
    t.false(/Lavf|Lavc|ffv1 encoder/.test(h.bytes!.toString('latin1')), 'no encoder strings');
    const r = await reveal(svc, key, `clip.${format}`, h.bytes!);
    t.is(r.done.status, 'completed', r.done.progress_message);
    t.deepEqual(r.files.map((f) => f.name), ['dossier.pdf', 'b.txt']);
    t.is(sha256(r.files[0].bytes), sha256(secret));
    const wrong = await reveal(svc, key, `clip.${format}`, h.bytes!, 'not the passphrase');
    t.is(wrong.done.progress_message, NOTHING);
  }
});
