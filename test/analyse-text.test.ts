// Text (OCR) through the real service: rendered text read back with a character error rate
// under 5 %, an e-mail address raising a privacy finding that does not quote it, a photo
// without text, text_detection false, the text in the result and never in the logs; and the
// visible-mark reading the watermark detector uses, on a "© Getty Images" corner overlay.
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { analyse } from './helpers/analyse.ts';
import { startService } from './helpers/service.ts';
import { PHOTO, exif } from './helpers/media.ts';
import { readText } from '../src/media/analyse/text/ocr.ts';
import { visibleMarks } from '../src/media/analyse/text/marks.ts';
import { exposures } from '../src/media/analyse/text/exposure.ts';
import { findTextRegions } from '../src/media/analyse/text/regions.ts';
import { endOcr, ocrStats } from '../src/media/analyse/text/pool.ts';


test.after.always(() => endOcr());


const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Black lines of text on white, rendered by sharp (librsvg) in DejaVu Sans. */
function rendered(lines: string[], size = 40, width = 1500): Promise<Buffer> {
  const height = Math.round(lines.length * size * 1.7 + 80);
  const text = lines.map((l, i) => `<text x="40" y="${Math.round(70 + i * size * 1.7)}" font-family="DejaVu Sans" font-size="${size}" fill="#111">${esc(l)}</text>`).join('');
  return sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${text}</svg>`)).png().toBuffer();
}

/** Levenshtein distance, two rows. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

const EXPOSURE_LABEL = /e-mail address|phone number|handle|licence plate|badge|street or place sign/;

const PARAGRAPH = [
  'The harbour lights were dim when the ferry left at 21:40.',
  'Seven passengers, two bicycles and a crate of lemons went aboard.',
  'Nobody asked for tickets; the captain waved everyone through.',
  'By midnight the town was a faint glow behind the islands.',
];

test('rendered text is read back with a character error rate under 5 %; the text is in the result (verdict and regions), boxes are on the lines, a stripped text_regions asset; none of it in the logs', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const png = await rendered(PARAGRAPH);
  const r = await analyse(svc, key, [['letter.png', png]]);
  t.is(r.poll.status, 'completed', r.poll.progress_message);
  const [f] = r.files;
  const truth = norm(PARAGRAPH.join(' '));
  const read = norm(f.verdicts.text.text);
  const cer = distance(read, truth) / truth.length;
  t.log(`CER ${(cer * 100).toFixed(2)} % over ${truth.length} characters`);
  t.true(cer < 0.05, `CER ${cer}: read ${JSON.stringify(read)}`);
  t.is(f.text_region_count, PARAGRAPH.length);
  t.is(f.verdicts.text.region_count, PARAGRAPH.length);
  const { height } = await sharp(png).metadata();
  for (const [i, region] of (f.verdicts.text.regions as any[]).entries()) {
    t.true(region.confidence > 0.8 && region.confidence <= 1, JSON.stringify(region));
    const b = region.box;
    t.true(b.x >= 0 && b.y >= 0 && b.width > 0 && b.height > 0 && b.x + b.width <= 1500 && b.y + b.height <= height!, JSON.stringify(b));
    // line i's baseline is at 70 + i * 68 px: its box spans it
    const baseline = 70 + i * 68;
    t.true(b.y < baseline && b.y + b.height >= baseline - 4, `line ${i}: ${JSON.stringify(b)}`);
  }
  // plain prose exposes nobody: no privacy finding from the text
  t.falsy(f.verdicts.findings.find((x: any) => EXPOSURE_LABEL.test(x.label)), JSON.stringify(f.verdicts.findings));
  t.truthy(f.verdicts.findings.find((x: any) => x.detector === 'text' && /^4 lines of text found/.test(x.label)));
  const asset = f.assets.find((a: any) => a.category === 'text_regions');
  t.truthy(asset, 'a text_regions asset');
  const bytes = Buffer.from(await (await fetch(asset.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
  const m = await sharp(bytes).metadata();
  t.is(m.format, 'jpeg');
  t.true(Math.max(m.width!, m.height!) <= 1280, 'downscaled');
  t.deepEqual(Object.keys(exif(bytes, 'jpg')).filter((k) => !k.startsWith('ExifTool:') && /GPS|Make|Model|Exif|XMP|IPTC|ICC|Thumbnail|Comment|Software/i.test(k)), []);
  const logs = svc.logs.join('');
  for (const words of ['harbour lights', 'crate of lemons', 'faint glow']) t.false(logs.includes(words), `"${words}" is in the logs`);
});

test('a rendered e-mail address raises a high privacy finding that names the kind, not the address; the grade drops; the address is in the result only', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const r = await analyse(svc, key, [['card.png', await rendered(['Write to me at', 'jane.doe@example.org'], 48, 900)]]);
  t.is(r.poll.status, 'completed', r.poll.progress_message);
  const [f] = r.files;
  const finding = f.verdicts.findings.find((x: any) => /e-mail address is readable/.test(x.label));
  t.truthy(finding, JSON.stringify(f.verdicts.findings));
  t.is(finding.severity, 'high');
  t.is(finding.detector, 'privacy');
  t.truthy(finding.tip);
  t.true(f.verdicts.text.text.includes('jane.doe@example.org'), f.verdicts.text.text);
  t.deepEqual(f.verdicts.text.exposures.map((x: any) => x.kind), ['email']);
  t.truthy(f.grade_reasons.find((g: any) => /Readable text/.test(g.reason) && g.points === 2), JSON.stringify(f.grade_reasons));
  const shown = JSON.stringify(f.verdicts.findings) + JSON.stringify(f.grade_reasons);
  t.false(shown.includes('jane.doe'), 'no finding quotes the address');
  t.false(svc.logs.join('').includes('jane.doe'), 'the address is not in the logs');
});

test('a photo without text: no region, or a few unsure ones, and no privacy finding from text; text_detection false: null, not 0, with a finding saying why', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const photo = await sharp(PHOTO).jpeg({ quality: 90 }).toBuffer();
  const on = await analyse(svc, key, [['mountain.jpg', photo]]);
  t.is(on.poll.status, 'completed', on.poll.progress_message);
  const [f] = on.files;
  t.log(`regions in the photo: ${f.text_region_count}`);
  t.true(f.text_region_count !== null && f.text_region_count <= 2, String(f.text_region_count));
  t.is(f.verdicts.text.exposures.length, 0);
  t.falsy(f.verdicts.findings.find((x: any) => EXPOSURE_LABEL.test(x.label)), JSON.stringify(f.verdicts.findings));

  const off = await analyse(svc, key, [['mountain.jpg', photo]], { text_detection: false });
  t.is(off.poll.status, 'completed', off.poll.progress_message);
  const [g] = off.files;
  t.is(g.text_region_count, null);
  t.is(g.verdicts.text, null);
  t.falsy(g.assets.find((a: any) => a.category === 'text_regions'));
  t.truthy(g.verdicts.findings.find((x: any) => x.detector === 'text' && /not asked for/.test(x.label)), JSON.stringify(g.verdicts.findings));
});

test('visible marks: a "© Getty Images" overlay in a corner of a photo reads as a stock-agency mark in the corner; the bare photo has none; findTextRegions gives its box', async (t) => {
  const overlay = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="520" height="90"><text x="10" y="60" font-family="DejaVu Sans" font-size="48" fill="white" stroke="black" stroke-width="1">© Getty Images</text></svg>');
  const marked = await sharp(PHOTO).composite([{ input: overlay, gravity: 'southeast' }]).jpeg({ quality: 88 }).toBuffer();
  const raw = async (b: Buffer) => {
    const { data, info } = await sharp(b).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels };
  };
  const img = await raw(marked);
  const marks = visibleMarks(await readText(img));
  t.is(marks.length, 1, JSON.stringify(marks));
  t.like(marks[0], { where: 'corner', kind: 'stock_agency' });
  t.regex(marks[0].text, /Getty Images/);
  // the overlay sits in the bottom-right 520x90 px of the 1920x1440 photo (a few px of slack:
  // tesseract's box takes in the glyphs' dark outline and what touches it)
  const box = marks[0].box;
  t.true(box.x >= 1920 - 520 - 20 && box.y >= 1440 - 90 - 20 && box.x + box.width <= 1920 && box.y + box.height <= 1440, JSON.stringify(box));
  t.deepEqual(visibleMarks(await readText(await raw(await sharp(PHOTO).jpeg({ quality: 88 }).toBuffer()))), []);
  const boxes = await findTextRegions(img);
  t.true(boxes.some((b) => b.x >= 1380 && b.y >= 1330), JSON.stringify(boxes));
});

test.serial('a 12 MP photo is read where its text is, not whole: a hotel sign and a corner mark come back with their words and boxes, and OCR reads under half as many pixels as the whole picture would take', async (t) => {
  const items = [
    { x: 300, y: 600, size: 120, text: 'HOTEL BELVEDERE', read: 'HOTEL BELVEDERE', style: 'font-weight="bold" fill="#111"' },
    { x: 3000, y: 2900, size: 64, text: '© Getty Images', read: 'Getty Images', style: 'fill="white" stroke="black" stroke-width="2"' },
  ];
  const overlay = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="3000">${items.map((i) => `<text x="${i.x}" y="${i.y}" font-family="DejaVu Sans" font-size="${i.size}" ${i.style}>${i.text}</text>`).join('')}</svg>`);
  const jpeg = await sharp(PHOTO).resize(4000, 3000, { fit: 'fill' }).composite([{ input: overlay, left: 0, top: 0 }]).jpeg({ quality: 90 }).toBuffer();
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const before = ocrStats().pixelsRead ?? 0;
  const reading = await readText({ data, width: info.width, height: info.height, channels: info.channels });
  const read = (ocrStats().pixelsRead ?? Infinity) - before;
  t.log(`OCR read ${(read / 1e6).toFixed(2)} MP of the 4 MP copy; lines: ${JSON.stringify(reading.regions.map((r) => r.text))}`);
  for (const item of items) {
    const line = reading.regions.find((r) => r.text.includes(item.read));
    t.truthy(line, `"${item.read}" is read: ${JSON.stringify(reading.regions)}`);
    // the box (in the 4000 x 3000 picture's pixels) is on the line: it holds the start of its baseline
    const b = line!.box;
    t.true(b.x <= item.x + item.size && b.x + b.width > item.x + item.size && b.y < item.y && b.y + b.height >= item.y - item.size / 4, `${item.read}: ${JSON.stringify(b)}`);
  }
  t.true(read < 0.5 * 4_000_000, `OCR read ${read} pixels`);
  t.deepEqual(visibleMarks(reading).map((m) => [m.kind, m.where]), [['stock_agency', 'corner']]);
});

test.serial('the OCR worker is recycled after OBSCURA_OCR_RECYCLE_AFTER recognitions, and reads as well after it', async (t) => {
  await endOcr();
  const { data, info } = await sharp(await rendered(['Recycle me'], 48, 600)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const img = { data, width: info.width, height: info.height, channels: info.channels };
  const before = ocrStats().started;
  const texts: string[] = [];
  for (let i = 0; i < 5; i++) texts.push((await readText(img, { recycleAfter: 2 })).text);
  // 5 recognitions, 2 per worker: workers 1, 1, 2, 2, 3
  t.is(ocrStats().started - before, 3);
  t.deepEqual(texts, Array(5).fill('Recycle me'));
});

test('exposure patterns: each kind on what it should catch, and no alarm on dates, prices, model names or prose', (t) => {
  const region = (text: string, width = 400, height = 40) => ({ box: { x: 0, y: 0, width, height }, text, confidence: 0.9 });
  const kinds = (...texts: string[]) => exposures(texts.map((x) => region(x))).map((e) => e.kind).sort();
  t.deepEqual(kinds('jane.doe@example.org'), ['email']);
  t.deepEqual(kinds('Tel. 021 123 45 67'), ['phone']);
  t.deepEqual(kinds('+41 79 123 45 67'), ['phone']);
  t.deepEqual(kinds('(555) 123-4567'), ['phone']);
  t.deepEqual(kinds('follow @janedoe_photo'), ['handle']);
  // a plate's line of characters is about 5 times as wide as it is high
  t.deepEqual(exposures([region('AB-123-CD', 220, 40)]).map((e) => e.kind), ['licence_plate']);
  t.deepEqual(exposures([region('AB-123-CD', 800, 40)]), [], 'a line far wider than a plate');
  t.deepEqual(kinds('Baker Street'), ['street_sign']);
  t.deepEqual(kinds('Rue de Lyon'), ['street_sign']);
  t.deepEqual(kinds('Hauptstrasse 12'), ['street_sign']);
  t.deepEqual(kinds('HELLO my name is', 'Maria Lopez'), ['badge_name']);
  for (const quiet of ['Meeting on 2026-11-24 at 10:30', 'Price 1 299.00 CHF', 'Canon EOS 5D Mark IV', 'Open Google Drive', 'The quick brown fox', 'Order 2026 11 24 0001', 'Exit 12', 'ISBN 978 3 16 148410 0', 'street food and road trips']) {
    t.deepEqual(kinds(quiet), [], quiet);
  }
  // unsure lines never raise an alarm
  t.deepEqual(exposures([{ ...region('jane.doe@example.org'), confidence: 0.5 }]), []);
});
