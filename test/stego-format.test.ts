// What a hide wrote is what every later reveal reads: today's service reveals what the code of an
// earlier commit (main when issue 26's work on the hide path began) hid, bit for bit. Since the
// decoy (issue 29) a hide writes two lanes, which that code cannot read: the second test holds
// today's hides to today's reveal, and the earlier code to finding nothing in them (a downgrade
// past issue 29 loses what was hidden after it); videos alike. The earlier code runs from git history.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { PHOTO, makeVideo } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { oldTree } from './helpers/old-release.ts';
import { startService, tempDir } from './helpers/service.ts';
import { finishJob, revealFile } from './helpers/stego-jobs.ts';
import { uploadFile } from './helpers/upload-files.ts';
import { loadConfig } from '../src/config.ts';

/** main on 2026-11-26, before issue 26's changes to the hide path. */
const BEFORE = '3d861bd716b12968e3350188310cdfbf7c0e13b7';
const PASS = 'correct horse battery staple';
const limits = loadConfig({}).media;

/** That commit's own hide and reveal engines, loaded from its tree. */
async function before() {
  const tree = oldTree(BEFORE);
  const load = (f: string) => import(pathToFileURL(path.join(tree, f)).href);
  const image = await load('src/media/stego/image.ts');
  const video = await load('src/media/stego/video.ts');
  const keys = await load('src/media/stego/keys.ts');
  const pixels = await load('src/media/stego/pixels.ts');
  return {
    hide: (cover: string, secret: Buffer, outDir: string): Promise<{ path: string }> =>
      image.hideInImage(cover, [{ name: 'secret.bin', data: secret }], keys.sealingKeys(PASS, pixels.IMAGE_DOMAIN), outDir, 'png', { limits }),
    reveal: (file: string, outDir: string): Promise<{ name: string; path: string }[]> => image.revealFromImage(file, PASS, outDir, { limits }),
    hideVideo: (cover: string, secret: Buffer, outDir: string): Promise<{ path: string }> =>
      video.hideInVideo(cover, [{ name: 'secret.bin', data: secret }], keys.sealingKeys(PASS, video.VIDEO_DOMAIN), outDir, 'mkv', { limits }),
    revealVideo: (file: string, outDir: string): Promise<{ name: string; path: string }[]> => video.revealFromVideo(file, PASS, outDir, { limits }),
  };
}

// 1 B and two larger secrets: p from 10 down to 3, and walks long enough (over 2^21 positions)
// that a reveal shares them with its helper thread
const SIZES = [1, 30_000, 200_000];
const coverPng = () => sharp(PHOTO).resize(1600, 1200, { fit: 'fill' }).png().toBuffer();

test("today's service reveals what the earlier code hid, bit for bit", async (t) => {
  const old = await before();
  const dir = tempDir();
  const cover = path.join(dir, 'cover.png');
  writeFileSync(cover, await coverPng());
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  for (const size of SIZES) {
    const secret = payload(size);
    const out = path.join(dir, `hidden-${size}`);
    mkdirSync(out);
    const hidden = await old.hide(cover, secret, out);
    const r = await revealFile(svc, key, 'hidden.png', readFileSync(hidden.path), PASS);
    t.is(r.done.status, 'completed', r.done.progress_message);
    t.is(r.files.length, 1);
    t.is(sha256(r.files[0].bytes), sha256(secret), `${size} B`);
  }
});

test("hides are written in two lanes since the decoy (issue 29): today's service reveals its own, bit for bit, and the earlier code, which reads one stream over the whole picture, finds nothing", async (t) => {
  // a downgrade past issue 29 cannot reveal what was hidden after it: said in docs/operators.md
  const old = await before();
  const dir = tempDir();
  const cover = await coverPng();
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  for (const size of SIZES) {
    const secret = payload(size);
    const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
    await uploadFile(svc, key, uid, 1, 'secret.bin', secret);
    await uploadFile(svc, key, uid, 2, 'cover.png', cover);
    t.is((await svc.api('POST', '/api/job', key, { upload_uid: uid, password: PASS })).status, 201);
    const done = await finishJob(svc, key, uid);
    t.is(done.status, 'completed', done.progress_message);
    const file = (await svc.api('GET', `/api/job/${uid}/results`, key)).body.result_files[0];
    const bytes = Buffer.from(await (await fetch(file.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
    const hidden = path.join(dir, `hidden-${size}.png`);
    writeFileSync(hidden, bytes);
    const r = await revealFile(svc, key, 'hidden.png', bytes, PASS);
    t.is(sha256(r.files[0].bytes), sha256(secret), `${size} B, today`);
    const out = path.join(dir, `revealed-${size}`);
    mkdirSync(out);
    await t.throwsAsync(old.reveal(hidden, out), { message: /No hidden content/ }, `${size} B, the earlier code`);
  }
});

test("videos too: today's service reveals what the earlier code hid in one, and the earlier code finds nothing in today's, written in two lanes", async (t) => {
  const old = await before();
  const dir = tempDir();
  const cover = path.join(dir, 'cover.mkv');
  writeFileSync(cover, makeVideo({ seconds: 1, width: 320, height: 240 }));
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const secret = payload(20_000);
  mkdirSync(path.join(dir, 'old'));
  const hidden = await old.hideVideo(cover, secret, path.join(dir, 'old'));
  const r = await revealFile(svc, key, 'hidden.mkv', readFileSync(hidden.path), PASS);
  t.is(r.done.status, 'completed', r.done.progress_message);
  t.is(sha256(r.files[0].bytes), sha256(secret), 'the earlier code\'s video, revealed today');

  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  await uploadFile(svc, key, uid, 1, 'secret.bin', secret);
  await uploadFile(svc, key, uid, 2, 'cover.mkv', readFileSync(cover));
  t.is((await svc.api('POST', '/api/job', key, { upload_uid: uid, password: PASS, output_format: 'mkv' })).status, 201);
  t.is((await finishJob(svc, key, uid)).status, 'completed');
  const file = (await svc.api('GET', `/api/job/${uid}/results`, key)).body.result_files[0];
  const today = path.join(dir, 'today.mkv');
  writeFileSync(today, Buffer.from(await (await fetch(file.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer()));
  t.is(sha256((await revealFile(svc, key, 'today.mkv', readFileSync(today), PASS)).files[0].bytes), sha256(secret), "today's video, revealed today");
  mkdirSync(path.join(dir, 'back'));
  await t.throwsAsync(old.revealVideo(today, path.join(dir, 'back')), { message: /No hidden content/ }, 'the earlier code');
});
