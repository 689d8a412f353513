// Steganalysis precision beyond camera photos: clean pictures of every class people send
// (test/helpers/clean-corpus.ts, small size) must not be called suspect, and naive LSB
// replacement at 0.2 bpp in the same pictures must be. The C2PA fixture (a clean AI-generated
// PNG) and its Lanczos downscales were graded F before the estimators had to agree.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { AI_PNG, buildCleanCorpus, writePng, type CleanImage } from './helpers/clean-corpus.ts';
import { analyseInput } from '../src/media/analyse/input.ts';
import { hiddenContentDetector } from '../src/media/analyse/detectors/hidden-content.ts';
import { embedLsbReplacement } from '../src/media/analyse/steganalysis/naive-lsb.ts';
import type { PixelImage } from '../src/media/analyse/steganalysis/types.ts';
import { probe } from '../src/media/probe.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import type { AnalyseOptions } from '../src/media/analyse/detector.ts';

function workDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-stego-clean-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The hidden-content detector on the pixels written as a PNG file, as a user's upload. */
async function detect(img: PixelImage, dir: string, depth: 'standard' | 'deep') {
  const file = path.join(dir, 'picture.png');
  await writePng(img, file);
  const options: AnalyseOptions = { depth, outDir: dir };
  return hiddenContentDetector.run(analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, options), options);
}

async function aiAndDownscales(): Promise<CleanImage[]> {
  const corpus = await buildCleanCorpus('small', ['ai']);
  return corpus.filter((c) => /^ai\/(full|lanczos-(512|768|1000))$/.test(c.name));
}

test('the C2PA fixture and its Lanczos downscales are not suspected; naive LSB at 0.2 bpp in them is', async (t) => {
  const dir = workDir(t);
  const images = await aiAndDownscales();
  t.deepEqual(images.map((c) => c.name), ['ai/full', 'ai/lanczos-512', 'ai/lanczos-768', 'ai/lanczos-1000']);
  for (const [i, c] of images.entries()) {
    for (const depth of ['standard', 'deep'] as const) {
      const clean = await detect(c.img, dir, depth);
      t.is(clean.verdict!.suspected, false, `${c.name} ${depth}: ${JSON.stringify(clean.verdict!.lsb)}`);
      t.falsy(clean.findings.find((f) => f.severity === 'high'), `${c.name} ${depth}`);
      const stego = await detect(embedLsbReplacement(c.img, 0.2, 500 + i), dir, depth);
      t.is(stego.verdict!.suspected, true, `${c.name} + 0.2 bpp ${depth}: ${JSON.stringify(stego.verdict!.lsb)}`);
      t.is(stego.verdict!.lsb!.evidence, 'strong');
      t.truthy(stego.findings.find((f) => f.severity === 'high' && /LSB steganography suspected/.test(f.label)));
    }
  }
});

test('every clean class of the small corpus is not suspected at standard depth; 0.2 bpp in each picture is', async (t) => {
  const dir = workDir(t);
  const corpus = await buildCleanCorpus('small');
  t.true(new Set(corpus.map((c) => c.cls)).size === 6, 'all six classes');
  for (const [i, c] of corpus.entries()) {
    const clean = await detect(c.img, dir, 'standard');
    t.not(clean.verdict!.suspected, true, `${c.name}: ${JSON.stringify(clean.verdict!.lsb)}`);
    const stego = await detect(embedLsbReplacement(c.img, 0.2, 900 + i), dir, 'standard');
    t.is(stego.verdict!.suspected, true, `${c.name} + 0.2 bpp: ${JSON.stringify(stego.verdict!.lsb)}`);
  }
});

test('through the service: the C2PA fixture is not steganography_suspected nor graded F; with 0.2 bpp of naive LSB it is suspected', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const { data, info } = await sharp(AI_PNG).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const stego = embedLsbReplacement({ data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 }, 0.2, 77);
  const stegoPng = await sharp(Buffer.from(stego.data), { raw: { width: stego.width, height: stego.height, channels: 3 } }).png().toBuffer();
  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  for (const [name, bytes] of [['made-by-ai.png', readFileSync(AI_PNG)], ['carrier.png', stegoPng]] as const) {
    const r = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': name }, body: bytes });
    t.is(r.status, 201);
  }
  const start = await svc.api('POST', '/api/analyse/job', key, { upload_uid: uid });
  t.is(start.status, 201);
  let poll: any;
  for (const until = Date.now() + 120_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    poll = (await svc.api('GET', `/api/analyse/job/${uid}`, key)).body;
    if (['completed', 'partial', 'failed'].includes(poll.status)) break;
  }
  t.is(poll.status, 'completed', poll.progress_message);
  const [ai, carrier] = (await svc.api('GET', `/api/analyse/result/${start.body.job_uid}`, key)).body.files as any[];
  t.is(ai.steganography_suspected, false, JSON.stringify(ai.verdicts.hidden_content));
  t.not(ai.grade, 'F', JSON.stringify(ai.grade_reasons));
  t.falsy(ai.verdicts.findings.find((f: any) => /LSB steganography suspected/.test(f.label)));
  // RS and SPA read the AI noise as a payload, WS reads far less: a contradiction, told as
  // such, that neither takes points nor caps the grade (it used to read 'weak' and cap at B)
  t.is(ai.verdicts.hidden_content.lsb.evidence, 'none');
  t.truthy(ai.verdicts.findings.find((f: any) => f.severity === 'info' && /No sign of LSB replacement.*contradicting it/.test(f.label)));
  t.falsy(ai.grade_reasons.find((r: any) => /Hidden content|steganalysis/.test(r.reason)));
  t.is(carrier.steganography_suspected, true, JSON.stringify(carrier.verdicts.hidden_content));
  t.truthy(carrier.verdicts.findings.find((f: any) => f.severity === 'high' && /LSB steganography suspected/.test(f.label)));
});
