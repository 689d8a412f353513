// Copy-move through the real service (deep analysis): a textured 160 px area of
// photo-mountain.jpg copied elsewhere in it turned by 13 degrees, or made 1.2x larger, then
// saved as JPEG q90, is found by keypoints (the block matching they replaced saw neither: these
// tests fail on it), with its rotation and scale; the untouched photo stays clean. So does a
// photo nobody here made with the same thing twice in it (the word "Centre" on two lines of a
// road sign: alike pixel for pixel, but not a copy; their grain differs).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { analyse } from './helpers/analyse.ts';
import { PHOTO } from './helpers/media.ts';
import { startService, type RunningService } from './helpers/service.ts';
import { test } from './helpers/test.ts';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

// the hillside (textured) copied onto the rock below it; photo-mountain.jpg is 1920 x 1440
const SOURCE: Box = { x: 1280, y: 740, width: 160, height: 160 };
const TARGET = { x: 520, y: 1080 };
// scenetext02.jpg (test/fixtures/outside/README.md), unchanged
const SIGN = readFileSync(path.resolve(import.meta.dirname, 'fixtures/outside/scenetext02.jpg'));
const ROTATION = 13;
const SCALE = 1.2;

/** The source area turned by `angle` degrees (clockwise) about its centre, or resized, pasted
 *  at TARGET; the copy's box in the picture. */
async function forge(angle: number, scale: number): Promise<{ bytes: Buffer; copy: Box }> {
  // a larger area is turned, then its centre cut out: no empty corners
  const margin = 60;
  const turned = await sharp(PHOTO)
    .extract({ left: SOURCE.x - margin, top: SOURCE.y - margin, width: SOURCE.width + 2 * margin, height: SOURCE.height + 2 * margin })
    .rotate(angle)
    .png()
    .toBuffer({ resolveWithObject: true });
  const side = Math.round(SOURCE.width * scale);
  const patch = await sharp(turned.data)
    .extract({ left: Math.round((turned.info.width - SOURCE.width) / 2), top: Math.round((turned.info.height - SOURCE.height) / 2), width: SOURCE.width, height: SOURCE.height })
    .resize(side, side)
    .png()
    .toBuffer();
  const bytes = await sharp(PHOTO).composite([{ input: patch, left: TARGET.x, top: TARGET.y }]).jpeg({ quality: 90 }).toBuffer();
  return { bytes, copy: { x: TARGET.x, y: TARGET.y, width: side, height: side } };
}

const intersects = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

let svc: RunningService;
let files: any[];
let copies: Box[];

test.before(async () => {
  svc = await startService();
  const { key } = await svc.account();
  const turned = await forge(ROTATION, 1);
  const larger = await forge(0, SCALE);
  copies = [turned.copy, larger.copy];
  const clean = await sharp(PHOTO).jpeg({ quality: 90 }).toBuffer();
  const r = await analyse(svc, key, [['turned.jpg', turned.bytes], ['larger.jpg', larger.bytes], ['clean.jpg', clean], ['sign.jpg', SIGN]], { forensic_depth: 'deep' });
  if (r.poll.status !== 'completed') throw new Error(`job ${r.poll.status}: ${r.poll.progress_message}`);
  files = r.files;
});

test.after.always(async () => {
  await svc?.close();
});

for (const [i, what] of [`turned by ${ROTATION}°`, `made ${SCALE}× larger`].entries()) {
  test(`a copy ${what} (JPEG q90): found by keypoints, both areas pointed at, with its transform; the grade drops`, (t) => {
    const f = files[i];
    const v = f.verdicts.forensic;
    t.log(`grade ${f.grade}; score ${v.score} (${v.verdict}); clone ${JSON.stringify(v.clone)}`);
    t.not(v.verdict, 'no_indication');
    t.is(v.verdict, 'likely_manipulated');
    t.is(v.clone.method, 'keypoints');
    t.true(v.clone.matches >= 10, `matches ${v.clone.matches}`);
    t.is(v.clone.regions.length, 2);
    // the two regions are the source and its copy, in either order
    const [a, b] = v.clone.regions as Box[];
    const copy = copies[i];
    t.true((intersects(a, SOURCE) && intersects(b, copy)) || (intersects(a, copy) && intersects(b, SOURCE)), `regions ${JSON.stringify(v.clone.regions)}`);
    // the transform, from the first region to the second (either way round)
    const forward = intersects(a, SOURCE);
    const rotation = forward ? v.clone.rotation_deg : -v.clone.rotation_deg;
    const scale = forward ? v.clone.scale : 1 / v.clone.scale;
    t.true(Math.abs(rotation - (i === 0 ? ROTATION : 0)) <= 2, `rotation ${rotation}`);
    t.true(Math.abs(scale - (i === 0 ? 1 : SCALE)) <= 0.05, `scale ${scale}`);
    const finding = f.verdicts.findings.find((x: any) => x.detector === 'forensic' && x.severity === 'high');
    t.truthy(finding);
    t.regex(finding?.label ?? '', /copies of each other.*keypoint matching saw it/);
    t.regex(finding?.label ?? '', i === 0 ? /turned 1[2-4]° clockwise/ : /1\.(1[5-9]|2[0-5])× larger/);
    t.true(f.assets.some((x: any) => x.category === 'forensic_clone'), 'a clone map');
    // 'likely manipulated' is 3 points of the grade: below the untouched photo's
    t.true(['C', 'D', 'F'].includes(f.grade), `grade ${f.grade}`);
    t.true(f.grade > files[2].grade, `grade ${f.grade} against the untouched photo's ${files[2].grade}`);
  });
}

test('the untouched photo (JPEG q90) at deep depth: no copy found', (t) => {
  const v = files[2].verdicts.forensic;
  t.log(`grade ${files[2].grade}; score ${v.score} (${v.verdict}); clone ${JSON.stringify(v.clone)}`);
  t.deepEqual(v.clone, { method: null, regions: [], shift: null, rotation_deg: null, scale: null, matches: 0, blocks: 0, other_shifts: 0 });
  t.is(v.verdict, 'no_indication');
  t.false(files[2].assets.some((x: any) => x.category === 'forensic_clone'));
  t.false(files[2].verdicts.findings.some((x: any) => x.detector === 'forensic' && x.severity === 'high'));
});

test('a photo with the same word twice on a sign (alike, not copied) at deep depth: no copy found', (t) => {
  const f = files[3];
  const v = f.verdicts.forensic;
  t.log(`grade ${f.grade}; score ${v.score} (${v.verdict}); clone ${JSON.stringify(v.clone)}`);
  t.deepEqual(v.clone, { method: null, regions: [], shift: null, rotation_deg: null, scale: null, matches: 0, blocks: 0, other_shifts: 0 });
  t.is(v.verdict, 'no_indication');
  t.false(f.assets.some((x: any) => x.category === 'forensic_clone'));
  t.false(f.verdicts.findings.some((x: any) => /copies of each other/.test(x.label)));
});
