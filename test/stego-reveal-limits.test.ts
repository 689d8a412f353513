// The reveal bomb (issue 22, finding 2): a container sealed with the right passphrase whose
// files declare far more than a hide could have put in the cover. Through the real API: the job
// fails with reveal_too_large, saying the limit and the setting, before anything is inflated;
// nothing is left in scratch; and the same service still reveals an ordinary file bit-exact.
import { readdir } from 'node:fs/promises';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';
import { PHOTO } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { containerOf, deflatedZeros, stegoPng } from './helpers/reveal-container.ts';
import { uploadFile } from './helpers/upload-files.ts';
import { finishJob, revealFile } from './helpers/stego-jobs.ts';
import { imageCapacity } from '../src/media/stego/image.ts';
import { capacityBytes } from '../src/media/stego/stream.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
const PASS = 'correct horse battery staple';
const MiB = 1 << 20;
const GiB = 1 << 30;

const reveal = (svc: Svc, key: string, bytes: Buffer) => revealFile(svc, key, 'stego.png', bytes, PASS);

async function hide(svc: Svc, key: string, secret: Buffer, cover: Buffer) {
  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  await uploadFile(svc, key, uid, 1, 'secret.bin', secret);
  await uploadFile(svc, key, uid, 2, 'cover.png', cover);
  const start = await svc.api('POST', '/api/job', key, { upload_uid: uid, password: PASS });
  if (start.status !== 201) return { start };
  const done = await finishJob(svc, key, uid);
  const results = (await svc.api('GET', `/api/job/${uid}/results`, key)).body;
  const bytes = Buffer.from(await (await fetch(results.result_files[0].download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
  return { start, done, bytes };
}

const cover = (w: number, h: number) => sharp(PHOTO).resize(w, h, { fit: 'cover' }).png().toBuffer();

/** The service's scratch root, and what is in it (every job's folder is gone once it ends). */
async function serviceWithScratch(env: Record<string, string> = {}) {
  const scratch = tempDir('obscura-scratch-');
  const svc = await startService({ OBSCURA_SCRATCH_DIR: scratch, ...env });
  return { svc, left: () => readdir(scratch) };
}

/** An ordinary hide and reveal on the same service: the bound takes nothing from real use. */
async function ordinaryRoundTrip(t: { is(a: unknown, b: unknown, m?: string): void }, svc: Svc, key: string) {
  const secret = payload(20_000);
  const h = await hide(svc, key, secret, await cover(400, 300));
  t.is(h.done?.status, 'completed', h.done?.progress_message ?? JSON.stringify(h.start.body));
  const r = await reveal(svc, key, h.bytes!);
  t.is(r.done.status, 'completed', r.done.progress_message);
  t.is(r.files.length, 1);
  t.is(r.files[0].name, 'secret.bin');
  t.is(sha256(r.files[0].bytes), sha256(secret), 'bit-exact');
}

test('the default bound refuses a secret declaring 1 GiB before inflating it: reveal_too_large names the capacity and OBSCURA_MAX_REVEAL_BYTES; scratch is left empty', async (t) => {
  const { svc, left } = await serviceWithScratch();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const c = await cover(800, 600);
  // a reveal is bound by the whole picture's capacity (what a hide before the two lanes could hold)
  const capacity = capacityBytes(800 * 600 * 3);
  // 1 GiB declared, 64 MiB of zeros really in it (about 64 KB deflated): had it been inflated
  // first, its size would not match, and that is "nothing found"; the bound answers first
  const bomb = containerOf([
    { name: 'note.txt', size: 5, body: Buffer.from('hello'), deflated: false },
    { name: 'zeros.bin', size: GiB, body: await deflatedZeros(64 * MiB), deflated: true },
  ]);
  const r = await reveal(svc, key, await stegoPng(c, bomb, PASS));
  t.is(r.done.status, 'failed');
  t.is(r.done.error, 'reveal_too_large', r.done.progress_message);
  t.is(r.done.progress_message, `The hidden files come to ${GiB + 5} bytes, and this file holds at most ${capacity} bytes (its capacity; OBSCURA_MAX_REVEAL_BYTES allows ${512 * MiB}). Nothing was revealed.`);
  t.is(r.files.length, 0, 'not even the small file before it');
  t.deepEqual(await left(), [], 'nothing in scratch');
  await ordinaryRoundTrip(t, svc, key);
  t.deepEqual(await left(), []);
});

test('a real bomb, 256 MiB of zeros deflated to 255 KB and declared honestly, stops at OBSCURA_MAX_REVEAL_BYTES; a hide over the setting is refused at start', async (t) => {
  const { svc, left } = await serviceWithScratch({ OBSCURA_MAX_REVEAL_BYTES: '256KiB' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const zeros = await deflatedZeros(256 * MiB);
  // a cover that holds the deflated bomb: its capacity is over the setting, so the setting binds
  const c = await cover(1600, 1200);
  t.true(imageCapacity({ width: 1600, height: 1200 } as never) > 256 * 1024);
  const r = await reveal(svc, key, await stegoPng(c, containerOf([{ name: 'zeros.bin', size: 256 * MiB, body: zeros, deflated: true }]), PASS));
  t.is(r.done.status, 'failed');
  t.is(r.done.error, 'reveal_too_large', r.done.progress_message);
  t.is(r.done.progress_message, `The hidden files come to ${256 * MiB} bytes, and a reveal gives back at most ${256 * 1024} bytes (OBSCURA_MAX_REVEAL_BYTES). Nothing was revealed.`);
  t.is(r.files.length, 0);
  t.deepEqual(await left(), [], 'nothing in scratch');

  // what the reveal would refuse, the hide refuses first
  const big = await hide(svc, key, payload(300_000), c);
  t.is(big.start.status, 422);
  t.is(big.start.body.error, 'secret_too_large');
  t.regex(big.start.body.message, /a reveal gives back at most 262144 bytes \(OBSCURA_MAX_REVEAL_BYTES\)/);
  await ordinaryRoundTrip(t, svc, key);
  t.deepEqual(await left(), []);
});
