// Faces through the real service: face-api's demo group photos (real photos, counted by a
// person looking at each), a real photo with no one in it, the two detectors that
// face_sensitivity picks, the faces asset, and face_detection / text_detection turned off.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { analyse } from './helpers/analyse.ts';
import { startService } from './helpers/service.ts';
import { PHOTO, exif } from './helpers/media.ts';


const DEMO = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo');
/** Faces a person counts in each photo (looked at one by one). */
const COUNTED: [string, number][] = [
  ['sample1.jpg', 3], // three women at a table, one leaning in from the right
  ['sample2.jpg', 3], // three women on a sofa, all looking down
  ['sample3.jpg', 3], // three women on a leather sofa, smiling at the camera
  ['sample4.jpg', 4], // four women standing in a row
  ['sample5.jpg', 5], // five women on a staircase
  ['sample6.jpg', 4], // four women in front of window blinds
];


/** The right-hand part of the mountain photo: sea, hills and rocks, no one in it. */
const noFaces = () => sharp(PHOTO).extract({ left: 1150, top: 0, width: 770, height: 1440 }).jpeg({ quality: 92 }).toBuffer();
const demoFiles = (): [string, Buffer][] => COUNTED.map(([name]) => [name, readFileSync(path.join(DEMO, name))]);

test('SSD (default sensitivity): each demo photo within ±1 of the faces a person counts, one face on the mountain, none in the empty landscape; boxes and a stripped faces asset', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const r = await analyse(svc, key, [...demoFiles(), ['mountain.jpg', readFileSync(PHOTO)], ['landscape.jpg', await noFaces()]]);
  t.is(r.poll.status, 'completed', r.poll.progress_message);
  const by = new Map(r.files.map((f) => [f.name, f]));
  const counts: string[] = [];
  for (const [name, expected] of [...COUNTED, ['mountain.jpg', 1] as [string, number]]) {
    const f = by.get(name);
    counts.push(`${name}: ${f.face_count} (counted ${expected})`);
    t.true(Math.abs(f.face_count - expected) <= 1, `${name}: found ${f.face_count}, a person counts ${expected}`);
    t.is(f.verdicts.faces.model, 'ssd_mobilenet_v1');
    t.is(f.verdicts.faces.boxes.length, f.face_count);
    for (const b of f.verdicts.faces.boxes) {
      t.true(b.x >= 0 && b.y >= 0 && b.width > 0 && b.height > 0 && b.x + b.width <= f.media.width && b.y + b.height <= f.media.height, JSON.stringify(b));
      t.true(b.score >= f.verdicts.faces.threshold);
    }
    t.truthy(f.verdicts.findings.find((x: any) => x.detector === 'faces' && new RegExp(`^${f.face_count} faces? found`).test(x.label)));
    const asset = f.assets.find((a: any) => a.category === 'faces');
    t.truthy(asset, `${name} has a faces asset`);
    const bytes = Buffer.from(await (await fetch(asset.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
    const m = await sharp(bytes).metadata();
    t.is(m.format, 'jpeg');
    t.true(Math.max(m.width!, m.height!) <= 1280, 'downscaled');
    // the demo photos carry EXIF and GPS; the asset carries nothing
    const tags = exif(bytes, 'jpg');
    t.deepEqual(Object.keys(tags).filter((k) => !k.startsWith('ExifTool:') && /GPS|Make|Model|Exif|XMP|IPTC|ICC|Thumbnail|Comment|Software/i.test(k)), [], `${name}: the faces asset is stripped`);
  }
  t.log(counts.join('; '));
  const empty = by.get('landscape.jpg');
  t.is(empty.face_count, 0, 'no one in it: 0, a real answer');
  t.deepEqual(empty.verdicts.faces.boxes, []);
  t.truthy(empty.verdicts.findings.find((x: any) => x.detector === 'faces' && x.label === 'No face found.'));
  t.falsy(empty.assets.find((a: any) => a.category === 'faces'));
});

test('face_sensitivity "low" picks the tiny detector: each demo photo still within ±1; the landscape 0', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const r = await analyse(svc, key, [...demoFiles(), ['landscape.jpg', await noFaces()]], { face_sensitivity: 'low', text_detection: false });
  t.is(r.poll.status, 'completed', r.poll.progress_message);
  const by = new Map(r.files.map((f) => [f.name, f]));
  const counts: string[] = [];
  for (const [name, expected] of COUNTED) {
    const f = by.get(name);
    counts.push(`${name}: ${f.face_count} (counted ${expected})`);
    t.is(f.verdicts.faces.model, 'tiny_face_detector');
    t.true(Math.abs(f.face_count - expected) <= 1, `${name}: found ${f.face_count}, a person counts ${expected}`);
  }
  t.log(counts.join('; '));
  t.is(by.get('landscape.jpg').face_count, 0);
});

test('face_detection and text_detection false: both counts null (not 0), no faces verdict or asset, and a finding says each was not asked for', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const r = await analyse(svc, key, [['sample1.jpg', readFileSync(path.join(DEMO, 'sample1.jpg'))]], { face_detection: false, text_detection: false });
  t.is(r.poll.status, 'completed', r.poll.progress_message);
  const [f] = r.files;
  t.is(f.face_count, null);
  t.is(f.text_region_count, null);
  t.is(f.verdicts.faces, null);
  t.falsy(f.assets.find((a: any) => a.category === 'faces'));
  t.truthy(f.verdicts.findings.find((x: any) => x.detector === 'faces' && /not asked for/.test(x.label)), JSON.stringify(f.verdicts.findings));
  t.truthy(f.verdicts.findings.find((x: any) => x.detector === 'text' && /not asked for/.test(x.label)), JSON.stringify(f.verdicts.findings));
  // a bad sensitivity is refused before any work
  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  const bad = await svc.api('POST', '/api/analyse/job', key, { upload_uid: uid, face_sensitivity: 2 });
  t.is(bad.status, 422);
  t.regex(JSON.stringify(bad.body), /face_sensitivity must be a number from 0 to 1/);
});

test('a 16383x3000 panorama (the picture that stopped the worker): the detector gets it scaled to 4096 px, and the four faces come back where they are in the panorama', async (t) => {
  t.timeout(120_000);
  const { detectFaces, FACES_MAX_SIDE } = await import('../src/media/analyse/faces/detect.ts');
  const [W, H, LEFT] = [16383, 3000, 6000];
  const group = await sharp(path.join(DEMO, 'sample4.jpg')).resize({ height: H }).toBuffer({ resolveWithObject: true });
  const { data, info } = await sharp({ create: { width: W, height: H, channels: 3, background: '#808080' }, limitInputPixels: false })
    .composite([{ input: group.data, left: LEFT, top: 0 }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  // before: face-api padded it to a 16383-px square of floats in wasm memory and the worker died
  const found = await detectFaces({ data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: info.channels }, 0.5);
  t.is(FACES_MAX_SIDE, 4096);
  t.true(Math.abs(found.faces.length - 4) <= 1, `${found.faces.length} faces`);
  for (const f of found.faces) {
    t.true(f.x >= LEFT && f.x + f.width <= LEFT + group.info.width, `a face at x ${f.x}, inside the group photo`);
    t.true(f.height > 100 && f.y + f.height <= H, `a face ${f.height} px high, in the panorama's pixels`);
  }
});
