// Watermarks: the open dwtDct invisible mark (embedded by the project's own encoder of the
// scheme, test/helpers/dwt-dct-encoder.ts), rights fields written by exiftool, on the real
// service; and the decoder on its own: round trips at several sizes, clean pictures, a JPEG.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { C2PA_PNG, PHOTO } from './helpers/media.ts';
import { embedDwtDct } from './helpers/dwt-dct-encoder.ts';
import { readInvisible } from '../src/media/analyse/watermark/invisible.ts';
import { declaredMarks } from '../src/media/analyse/watermark/declared.ts';
import { readC2pa, type C2paManifestReading } from '../src/media/analyse/c2pa-reader.ts';
import { KNOWN_MARKS } from '../src/media/analyse/watermark/known-marks.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
type Px = { data: Uint8Array; width: number; height: number; channels: 3 };

const [SD1, SDV2, SDXL] = KNOWN_MARKS;

async function pixels(img: sharp.Sharp): Promise<Px> {
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 };
}
const photoAt = (width: number, height?: number) => pixels(sharp(PHOTO).resize(width, height, { fit: 'cover' }));
const marked = (px: Px, bits: readonly number[]): Px => ({ ...px, data: embedDwtDct(px.data, px.width, px.height, bits) });
const encode = (px: Px) => sharp(Buffer.from(px.data), { raw: { width: px.width, height: px.height, channels: 3 } });

async function analyse(svc: Svc, key: string, files: [string, Buffer][]) {
  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  for (const [name, bytes] of files) {
    const r = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': name }, body: bytes });
    if (r.status !== 201) throw new Error(`upload ${r.status} ${await r.text()}`);
  }
  const start = await svc.api('POST', '/api/analyse/job', key, { upload_uid: uid });
  if (start.status !== 201) throw new Error(`start ${start.status}`);
  let poll: any;
  for (const until = Date.now() + 300_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    poll = (await svc.api('GET', `/api/analyse/job/${uid}?wait=10`, key)).body;
    if (['completed', 'partial', 'failed'].includes(poll.status)) break;
  }
  const result = await svc.api('GET', `/api/analyse/result/${start.body.job_uid}`, key);
  return { poll, files: new Map<string, any>((result.body.files as any[]).map((f) => [f.name, f])) };
}

test('on the service: the photo with the Stable Diffusion mark is flagged and the mark named; without it, not flagged; XMP rights fields flag it by declaration', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-watermark-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const photo = await photoAt(768);
  const rights = path.join(dir, 'rights.jpg');
  await sharp(PHOTO).resize(640).jpeg().toFile(rights);
  execFileSync('exiftool', ['-q', '-overwrite_original', '-XMP-xmpRights:Marked=True', '-XMP-xmpRights:WebStatement=https://example.org/licence', '-XMP-xmpRights:UsageTerms=Editorial use only', '-IPTC:CopyrightNotice=(c) 2026 Example Agency', rights]);

  const r = await analyse(svc, key, [
    ['marked.png', await encode(marked(photo, SD1.bits)).png().toBuffer()],
    ['plain.png', await encode(photo).png().toBuffer()],
    ['rights.jpg', readFileSync(rights)],
  ]);
  t.is(r.poll.status, 'completed', r.poll.progress_message);

  const m = r.files.get('marked.png');
  t.is(m.watermark_flagged, true);
  t.is(m.verdicts.watermark.invisible.mark, SD1.name);
  t.true(m.verdicts.watermark.invisible.agreement >= 0.9, JSON.stringify(m.verdicts.watermark.invisible));
  t.truthy(m.verdicts.findings.find((f: any) => f.detector === 'watermark' && f.label.includes('Invisible watermark found') && f.label.includes('Stable Diffusion 1.x')));

  const p = r.files.get('plain.png');
  t.is(p.verdicts.watermark.invisible.mark, null);
  t.truthy(p.verdicts.findings.find((f: any) => f.detector === 'watermark' && /No known invisible watermark/.test(f.label)));
  t.deepEqual(p.verdicts.watermark.declared, []);
  if (p.verdicts.watermark.visible === null) {
    // the text reading gave no answer: so does the whole check, and a finding says why
    t.is(p.watermark_flagged, null);
    t.truthy(p.verdicts.findings.find((f: any) => f.detector === 'watermark' && /not known/.test(f.label)));
  } else {
    t.deepEqual(p.verdicts.watermark.visible, []);
    t.is(p.watermark_flagged, false);
  }

  const d = r.files.get('rights.jpg');
  t.is(d.watermark_flagged, true);
  const fields = (d.verdicts.watermark.declared as any[]).map((x) => x.field);
  for (const f of ['Marked', 'WebStatement', 'UsageTerms', 'CopyrightNotice']) t.true(fields.includes(f), `${f} in ${fields}`);
  t.truthy(d.verdicts.findings.find((f: any) => f.detector === 'watermark' && /declares rights or a watermark/.test(f.label) && /Example Agency/.test(f.label)));
  t.is(d.verdicts.watermark.invisible.mark, null);
  t.log(`marked ${JSON.stringify(m.verdicts.watermark.invisible)}; plain ${JSON.stringify(p.verdicts.watermark.invisible)}, flagged ${p.watermark_flagged}, visible ${JSON.stringify(p.verdicts.watermark.visible)}; watermark ms ${m.timings_ms?.watermark ?? '?'}`);
});

test('round trip: each known mark, at several sizes (odd ones too), is read back and named; the same pictures unmarked are not', async (t) => {
  const sizes: [number, number][] = [[256, 256], [512, 384], [1001, 751], [1920, 1080]];
  const figures: string[] = [];
  for (const [w, h] of sizes) {
    const clean = await photoAt(w, h);
    const none = readInvisible(clean);
    t.is(none.mark, null, `${w}x${h} clean`);
    figures.push(`${w}x${h} clean ${none.agreement}/${none.correlation}`);
    for (const mark of [SD1, SDV2, SDXL]) {
      const r = readInvisible(await pixels(sharp(await encode(marked(clean, mark.bits)).png().toBuffer())));
      t.is(r.mark, mark.name, `${w}x${h} ${mark.name}: ${JSON.stringify(r)}`);
      t.true(r.agreement >= 0.9);
      figures.push(`${w}x${h} ${mark.name.slice(0, 22)} ${r.agreement}/${r.correlation}`);
    }
  }
  t.log(figures.join('\n'));
});

test('a pipeline that hands RGB to the encoder as if it were BGR: still read (the other channel order)', async (t) => {
  const photo = await photoAt(768);
  const swap = (px: Px): Px => {
    const d = new Uint8Array(px.data.length);
    for (let i = 0; i < d.length; i += 3) [d[i], d[i + 1], d[i + 2]] = [px.data[i + 2], px.data[i + 1], px.data[i]];
    return { ...px, data: d };
  };
  const r = readInvisible(swap(marked(swap(photo), SDXL.bits)));
  t.is(r.mark, SDXL.name);
  t.is(r.channel_order, 'rgb');
});

test('clean pictures are not flagged: the C2PA fixture, flat colours, gradients and noise', async (t) => {
  const synth = (w: number, h: number, f: (x: number, y: number, c: number) => number): Px => {
    const d = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) for (let c = 0; c < 3; c++) d[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(f(x, y, c))));
    return { data: d, width: w, height: h, channels: 3 };
  };
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const cases: [string, Px][] = [
    ['c2pa fixture', await pixels(sharp(C2PA_PNG))],
    ['flat grey', synth(512, 512, () => 128)],
    ['flat blue', synth(512, 512, (_x, _y, c) => [30, 60, 200][c])],
    ['gradient', synth(640, 480, (x, y, c) => [(x / 640) * 255, (y / 480) * 255, ((x + y) / 1120) * 255][c])],
    ['noise', synth(512, 512, () => rnd() * 256)],
    ['faint noise', synth(512, 512, () => 128 + (rnd() - 0.5) * 20)],
  ];
  const figures: string[] = [];
  for (const [name, px] of cases) {
    const r = readInvisible(px);
    t.is(r.mark, null, `${name}: ${JSON.stringify(r)}`);
    figures.push(`${name} ${r.agreement}/${r.correlation}`);
  }
  t.log(figures.join('; '));
});

test('a JPEG at quality 90: the mark survives without chroma subsampling; with 4:2:0 it is lost, and no other mark is named', async (t) => {
  const m = marked(await photoAt(768), SD1.bits);
  const full = readInvisible(await pixels(sharp(await encode(m).jpeg({ quality: 90, chromaSubsampling: '4:4:4' }).toBuffer())));
  t.is(full.mark, SD1.name, JSON.stringify(full));
  const sub = readInvisible(await pixels(sharp(await encode(m).jpeg({ quality: 90, chromaSubsampling: '4:2:0' }).toBuffer())));
  t.true(sub.mark === null || sub.mark === SD1.name, JSON.stringify(sub));
  t.log(`q90 4:4:4 ${full.agreement}/${full.correlation}; q90 4:2:0 ${sub.agreement}/${sub.correlation}`);
});

test('declared: C2PA watermark statements count, the C2PA fixture (no such statement) does not, and Marked=False (public domain) is no mark', async (t) => {
  const fixture = await readC2pa(C2PA_PNG, 'image/png');
  t.is(fixture.status, 'manifest');
  t.deepEqual(declaredMarks({}, fixture), []);
  const stated: C2paManifestReading = { ...(fixture as C2paManifestReading), actions: [{ action: 'c2pa.watermarked' }], assertion_labels: ['c2pa.actions.v2', 'c2pa.soft-binding'] };
  t.deepEqual(declaredMarks({}, stated).map((d) => `${d.field}:${d.value}`), ['action:c2pa.watermarked', 'assertion:c2pa.soft-binding']);
  t.deepEqual(declaredMarks({ 'XMP-xmpRights:Marked': false, 'XMP-dc:Title': 'Lake' }, undefined), []);
  t.is(declaredMarks({ 'XMP-plus:LicensorName': 'Example Stock', 'XMP-xyz:WatermarkType': 'visible' }, undefined).length, 2);
});
