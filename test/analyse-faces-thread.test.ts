// Face detection runs on a thread of its own beside the other detectors: the analysis finds the
// same faces, with the same boxes, as a detection on the caller's thread; an abort while it
// runs ends the analysis and the thread, and the next analysis starts a new one.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { tempDir } from './helpers/service.ts';
import { analyseFile } from '../src/media/analyse/index.ts';
import { detectFaces } from '../src/media/analyse/faces/detect.ts';
import { endFaces, facesStats } from '../src/media/analyse/faces/thread.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';

const DEMO = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo');
const SAMPLE = path.join(DEMO, 'sample4.jpg'); // four women standing in a row

test.after.always(() => endFaces());

const options = (signal?: AbortSignal) => ({ depth: 'standard' as const, outDir: tempDir('obscura-faces-thread-'), faces: { enabled: true, sensitivity: 0.5 }, text: { enabled: false }, signal });

test.serial('the faces of an analysis come from the faces thread and are the faces a detection here finds, box for box', async (t) => {
  const before = facesStats().started;
  const analysis = await analyseFile(SAMPLE, DEFAULT_LIMITS, options());
  const faces = analysis.verdicts.faces as { count: number; boxes: { x: number; y: number; width: number; height: number; score: number }[] };
  t.true(facesStats().started > before, 'the analysis started the faces thread');
  const raw = await sharp(readFileSync(SAMPLE)).rotate().raw().toBuffer({ resolveWithObject: true });
  const here = await detectFaces({ data: new Uint8Array(raw.data.buffer, raw.data.byteOffset, raw.data.length), width: raw.info.width, height: raw.info.height, channels: raw.info.channels }, 0.5);
  t.is(faces.count, 4);
  t.deepEqual(faces.boxes, here.faces);
});

test.serial('an abort while faces are being found ends the analysis; the next analysis starts a new faces thread and finds them', async (t) => {
  await endFaces();
  const ctl = new AbortController();
  const started = facesStats().started;
  const run = analyseFile(SAMPLE, DEFAULT_LIMITS, options(ctl.signal));
  // abort once the faces thread is up (the analysis starts it first thing for a still picture)
  while (facesStats().started === started) await new Promise((r) => setTimeout(r, 5));
  ctl.abort(Object.assign(new Error('aborted by the test'), { code: 'aborted' }));
  // the abort reaches whichever reading is running first (faces here, or exiftool's tags)
  const err = await t.throwsAsync(run);
  t.is((err as { code?: string }).code, 'aborted', String(err));
  const again = await analyseFile(SAMPLE, DEFAULT_LIMITS, options());
  t.is((again.verdicts.faces as { count: number }).count, 4);
  t.true(facesStats().started >= started + 2, 'a new thread after the abort');
});
