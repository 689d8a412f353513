// Hide with a decoy (issue 29): the secret and a decoy in one cover, each behind its own
// passphrase, each revealed bit-exact and alone; a wrong passphrase finds nothing; the start's
// rules (both or neither, two passphrases, a decoy no smaller than the secret, an image cover);
// the capacity a start reports is the same with or without a decoy; and this service's own
// steganalysis tells decoy outputs from single ones no better than chance at the same total rate.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { PHOTO, makeVideo } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { finishJob, revealFile } from './helpers/stego-jobs.ts';
import { uploadFile } from './helpers/upload-files.ts';
import { buildCleanCorpus, writePng } from './helpers/clean-corpus.ts';
import { analyseInput } from '../src/media/analyse/input.ts';
import { hiddenContentDetector } from '../src/media/analyse/detectors/hidden-content.ts';
import type { AnalyseOptions } from '../src/media/analyse/detector.ts';
import type { PixelImage } from '../src/media/analyse/steganalysis/types.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { probe } from '../src/media/probe.ts';
import { pack } from '../src/media/stego/container.ts';
import { sealingKeys } from '../src/media/stego/keys.ts';
import { IMAGE_DOMAIN } from '../src/media/stego/pixels.ts';
import { embed } from '../src/media/stego/stream.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
const SECRET_PASS = 'the real one, never given away';
const DECOY_PASS = 'the one handed over at the border';
const NOTHING = 'No hidden content could be recovered with this passphrase.';

const cover = () => sharp(PHOTO).resize(800, 600, { fit: 'cover' }).png().toBuffer();

/** A hide session with its files uploaded (step 1 secrets, step 2 cover, step 3 decoys) and its start's answer. */
async function start(svc: Svc, key: string, files: { secrets: [string, Buffer][]; cover: [string, Buffer]; decoys?: [string, Buffer][] }, body: Record<string, unknown>) {
  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  for (const [n, b] of files.secrets) await uploadFile(svc, key, uid, 1, n, b);
  await uploadFile(svc, key, uid, 2, files.cover[0], files.cover[1]);
  for (const [n, b] of files.decoys ?? []) await uploadFile(svc, key, uid, 3, n, b);
  return { uid, start: await svc.api('POST', '/api/job', key, { upload_uid: uid, password: SECRET_PASS, ...body }) };
}

test('a secret and a decoy in one photo: each passphrase reveals its own files bit-exact and nothing else; a wrong one finds nothing', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const secret = payload(20_000);
  const decoyA = payload(15_000);
  const decoyB = payload(9_000);
  const { uid, start: s } = await start(svc, key, { secrets: [['sources.pdf', secret]], cover: ['holiday.png', await cover()], decoys: [['menu.txt', decoyA], ['map.bin', decoyB]] }, { decoy_password: DECOY_PASS });
  t.is(s.status, 201, JSON.stringify(s.body));
  const done = await finishJob(svc, key, uid);
  t.is(done.status, 'completed', done.progress_message);
  t.is(done.progress_message, "Hid 1 file in the cover; the result is lossless. The decoy's 2 files are hidden beside them, under the decoy passphrase.");
  const made = (await svc.api('GET', `/api/job/${uid}/results`, key)).body.result_files[0];
  const stego = Buffer.from(await (await fetch(made.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());

  const real = await revealFile(svc, key, 'holiday.png', stego, SECRET_PASS);
  t.is(real.done.status, 'completed');
  t.deepEqual(real.files.map((f) => f.name), ['sources.pdf']);
  t.is(sha256(real.files[0].bytes), sha256(secret));

  const given = await revealFile(svc, key, 'holiday.png', stego, DECOY_PASS);
  t.is(given.done.status, 'completed');
  t.is(given.done.progress_message, 'Recovered 2 hidden files.', 'the same words as any reveal: nothing says there is more');
  t.deepEqual(given.files.map((f) => f.name), ['menu.txt', 'map.bin']);
  t.is(sha256(given.files[0].bytes), sha256(decoyA));
  t.is(sha256(given.files[1].bytes), sha256(decoyB));

  for (const wrong of ['not either of them', SECRET_PASS.toUpperCase()]) {
    const r = await revealFile(svc, key, 'holiday.png', stego, wrong);
    t.is(r.done.error, 'nothing_found');
    t.is(r.done.progress_message, NOTHING);
  }
});

test('a decoy is its files and its passphrase together, a different passphrase, no smaller than the secret, in an image; its capacity is the one every hide reports', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const c = await cover();
  const secret: [string, Buffer][] = [['s.bin', payload(5_000)]];
  const refused = async (files: Parameters<typeof start>[2], body: Record<string, unknown>) => (await start(svc, key, files, body)).start;

  let r = await refused({ secrets: secret, cover: ['c.png', c], decoys: [['d.bin', payload(6_000)]] }, {});
  t.is(r.status, 422);
  t.is(r.body.error, 'decoy_incomplete');
  r = await refused({ secrets: secret, cover: ['c.png', c] }, { decoy_password: DECOY_PASS });
  t.is(r.status, 422);
  t.is(r.body.error, 'decoy_incomplete');
  r = await refused({ secrets: secret, cover: ['c.png', c], decoys: [['d.bin', payload(6_000)]] }, { decoy_password: SECRET_PASS });
  t.is(r.status, 422);
  t.deepEqual(r.body, { error: 'decoy_same_password', message: "The decoy passphrase is the secret's: choose two different passphrases." });
  r = await refused({ secrets: secret, cover: ['c.png', c], decoys: [['d.bin', payload(4_000)]] }, { decoy_password: DECOY_PASS });
  t.is(r.status, 422);
  t.is(r.body.error, 'decoy_too_small');
  t.regex(r.body.message, /4000 bytes and the secret 5000/);
  r = await refused({ secrets: secret, cover: ['c.mkv', makeVideo({ seconds: 1, width: 320, height: 240 })], decoys: [['d.bin', payload(6_000)]] }, { decoy_password: DECOY_PASS, output_format: 'mkv' });
  t.is(r.status, 422);
  t.is(r.body.error, 'decoy_needs_image');
  r = await refused({ secrets: secret, cover: ['c.png', c], decoys: [['d.bin', payload(6_000)]] }, { decoy_password: '' });
  t.is(r.status, 422);
  t.is(r.body.error, 'invalid_password');

  // the capacity a start reports is a lane's, with or without a decoy: it says nothing of one
  const alone = await refused({ secrets: [['big.bin', randomBytes(200_000)]], cover: ['c.png', c] }, {});
  const withDecoy = await refused({ secrets: [['big.bin', randomBytes(200_000)]], cover: ['c.png', c], decoys: [['d.bin', randomBytes(200_000)]] }, { decoy_password: DECOY_PASS });
  t.is(alone.body.error, 'secret_too_large');
  t.is(withDecoy.body.error, 'secret_too_large');
  t.is(alone.body.capacity_bytes, withDecoy.body.capacity_bytes);
  // one lane: 720,000 samples, 90 % of them, less the header's 448 bits, in bytes, less the tag's 16
  t.is(alone.body.capacity_bytes, 80_928);
});

/** The hidden-content detector on pixels written as a PNG, as an upload would be read. */
async function detect(img: PixelImage, dir: string) {
  const file = path.join(dir, 'picture.png');
  await writePng(img, file);
  const options: AnalyseOptions = { depth: 'standard', outDir: dir };
  return (await hiddenContentDetector.run(analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, options), options)).verdict!;
}

test("this service's steganalysis tells decoy outputs from single ones no better than chance at the same total rate", async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-decoy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const corpus = await buildCleanCorpus('small');
  // a single hide of s bytes fills the other lane with noise of 0 to s bytes (s / 2 on average);
  // a decoy hide of 3s/4 + 3s/4 carries the same total on average
  const RATE = 0.1; // bits of secret per sample of the picture, single hide
  const tally = { single: { suspected: 0, bpp: 0 }, decoy: { suspected: 0, bpp: 0 } };
  for (const [i, c] of corpus.entries()) {
    const s = Math.floor((c.img.data.length * RATE) / 8);
    for (const kind of ['single', 'decoy'] as const) {
      const samples = Buffer.from(c.img.data);
      const own = pack([{ name: 'a', data: randomBytes(kind === 'single' ? s : Math.floor((s * 3) / 4)) }]);
      const decoy = kind === 'decoy' ? { container: pack([{ name: 'b', data: randomBytes(Math.floor((s * 3) / 4)) }]), keys: sealingKeys(`decoy ${i}`, IMAGE_DOMAIN) } : undefined;
      await embed(samples, own, sealingKeys(`own ${i}`, IMAGE_DOMAIN), {}, decoy);
      const v = await detect({ ...c.img, data: new Uint8Array(samples) }, dir);
      if (v.suspected === true) tally[kind].suspected++;
      tally[kind].bpp += v.lsb?.payload_bpp ?? 0;
    }
  }
  const n = corpus.length;
  const points = (k: 'single' | 'decoy') => (100 * tally[k].suspected) / n;
  t.log(`${n} pictures at ${RATE} bpp of secret: suspected ${points('single').toFixed(1)} % single, ${points('decoy').toFixed(1)} % decoy; mean estimate ${(tally.single.bpp / n).toFixed(4)} / ${(tally.decoy.bpp / n).toFixed(4)} bpp`);
  t.true(n >= 20, `${n} pictures`);
  t.true(Math.abs(points('single') - points('decoy')) <= 2, 'detection within 2 points');
  t.true(Math.abs(tally.single.bpp - tally.decoy.bpp) / n <= 0.01, 'the estimated payloads within 0.01 bpp');
});
