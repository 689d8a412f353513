// Pictures nobody here made (test/fixtures/outside/, from Debian packages; the accuracy
// benchmark measures the rest of that corpus): clean camera photos must not be accused of
// hiding data. The grass ground of a Stellarium panorama was graded D ("Hidden content is
// suspected") before the steganalysis was calibrated on the outside corpus; the ColdRipple cover
// was graded D from its histogram's own one-sided pairs until WS and RS had to agree with them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { embedLsbReplacement } from '../src/media/analyse/steganalysis/naive-lsb.ts';
import { analyse } from './helpers/analyse.ts';
import { startService } from './helpers/service.ts';
import { test } from './helpers/test.ts';
import type { ExecutionContext } from 'ava';

const OUTSIDE = path.resolve(import.meta.dirname, 'fixtures/outside');

/** Analyses the fixtures through the service at one depth and checks each reads clean: graded B
 *  or better, no LSB replacement suspected and no grade points from the hidden-content section. */
async function expectClean(t: ExecutionContext, names: string[], depth: 'standard' | 'deep'): Promise<any[]> {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const { poll, files } = await analyse(svc, key, names.map((n) => [n, readFileSync(path.join(OUTSIDE, n))]), { forensic_depth: depth });
  t.is(poll.status, 'completed', poll.progress_message);
  t.is(files.length, names.length);
  for (const [i, item] of files.entries()) {
    const why = `${names[i]}: ${item.grade} ${JSON.stringify(item.grade_reasons)} ${JSON.stringify(item.verdicts.hidden_content)}`;
    t.true(['A', 'B'].includes(item.grade), why);
    t.is(item.steganography_suspected, false, why);
    t.is(item.verdicts.hidden_content.lsb.evidence, 'none', why);
    t.falsy(item.grade_reasons.find((r: any) => /hidden content|steganalysis/i.test(r.reason)), why);
  }
  return files;
}

for (const depth of ['standard', 'deep'] as const) {
  test(`clean outside photos are graded B or better, with no sign of LSB replacement, at ${depth} depth`, async (t) => {
    const files = await expectClean(t, ['guereinsb.png', 'chelsea.png', 'coldripple-512.png', 'hurricane5-512.png', 'opencv-butterfly.png'], depth);
    for (const item of files) t.truthy(item.verdicts.findings.find((f: any) => f.severity === 'info' && /No sign of LSB replacement/.test(f.label)), JSON.stringify(item.verdicts.findings));
  });
}

// Round 2 of the outside corpus (all held out) found clean pictures graded D that no camera took:
// a chart with flat fills and a web-theme screenshot, whose antialiased edges lifted RS on the
// busy pixels alone (SPA now runs there too); a splash drawing whose floor of 4 pairs RS alone
// kept alive while WS and SPA read far under it; a plot beside a star field whose busy pixels
// read 3 times what their own pairs allow; and a crop of a telescope frame where only the
// near-threshold rule fired, on an RS/SPA reading the pairs' bound rules out. Each was graded D
// at standard depth before. A wallpaper of thin triangles (round 1) was graded D at deep depth:
// its busy pixels, 2.3 % of it, are antialiased edges alone, too few to read.
for (const depth of ['standard', 'deep'] as const) {
  test(`drawn, charted and telescope pictures from outside are graded B or better at ${depth} depth`, async (t) => {
    await expectClean(t, ['skrooge-pie.png', 'kphotoalbum-splash.png', 'munipack-0716_111R.png', 'munipack-robust_mean-crop.png', 'lxqt-triangles.png', 'stellarium-m23.png', 'stellarium-n2207.png', 'skrooge-menu.png', 'kphotoalbum-import.png'], depth);
  });
}

// A payload of 0.1 bpp (naive LSB replacement at random positions, 0.033 per colour sample) sits
// right at the RS threshold (0.03) and, in noise-like pictures, was under WS's old bar: in the
// ColdRipple cover RS read 0.028-0.032 and in the AI fixture WS's plain predictor left it weak.
test('a 0.1 bpp LSB payload in an outside photo and in the AI fixture is found at standard depth', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const covers = [path.join(OUTSIDE, 'coldripple-512.png'), path.resolve(import.meta.dirname, 'fixtures/c2pa-ai-generated.png')];
  const uploads: Array<[string, Buffer]> = [];
  for (const [i, file] of covers.entries()) {
    const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const img = embedLsbReplacement({ data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 }, 0.1, 7 + i);
    uploads.push([`stego-${i}.png`, await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } }).png().toBuffer()]);
  }
  const { poll, files } = await analyse(svc, key, uploads);
  t.is(poll.status, 'completed', poll.progress_message);
  for (const [i, item] of files.entries()) {
    const why = `${uploads[i][0]}: ${item.grade} ${JSON.stringify(item.verdicts.hidden_content)}`;
    t.is(item.verdicts.hidden_content.lsb.evidence, 'strong', why);
    t.is(item.steganography_suspected, true, why);
    t.is(item.grade, 'D', why);
  }
});

// Stegosuite leaves flat areas alone (every pixel of a 3x3 neighbourhood whose diagonal
// neighbours equal its centre in their upper 7 bits), so in a photo with a blown-out sky its
// payload is diluted on the whole picture and the sky's one-sided pairs of values hold the
// estimate down: this 0.1 bpp payload, made by Debian's stegosuite 0.9, read "no sign" until the
// busy pixels were read alone as well. Its cover is in the clean test above.
test('a stegosuite payload in an outside photo with a flat sky is found, on the busy pixels alone', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const { poll, files } = await analyse(svc, key, [['hurricane5-512-stegosuite.png', readFileSync(path.join(OUTSIDE, 'hurricane5-512-stegosuite.png'))]]);
  t.is(poll.status, 'completed', poll.progress_message);
  const item = files[0];
  const why = `${item.grade} ${JSON.stringify(item.verdicts.hidden_content)}`;
  t.is(item.verdicts.hidden_content.lsb.evidence, 'strong', why);
  t.is(item.steganography_suspected, true, why);
  t.is(item.grade, 'D', why);
  const finding = item.verdicts.findings.find((f: any) => f.severity === 'high' && /LSB steganography suspected/.test(f.label));
  t.regex(finding?.label ?? '', /busy pixels alone \(4\d % of it/, why);
  // the payload is 3236 bytes plus stegosuite's framing in 512 x 512 pixels: 0.1 bpp
  t.true(item.verdicts.hidden_content.lsb.payload_bpp > 0.07 && item.verdicts.hidden_content.lsb.payload_bpp < 0.2, why);
});

// Stegosuite at 0.1 bpp was found in 76 % of round 4's covers (issue 23 asks 80 %): it writes
// all three channels of a pixel and only busy pixels, so in a photo with no flat area it is naive
// replacement at 0.1 bpp, at the threshold, and elsewhere the flat areas hold the estimators
// down. Each of these three read "no sign" or weak evidence at standard depth before session 16:
// a star cluster whose busy pixels keep every other value empty until the payload fills them to
// its rate (the busy pixels' histogram pairs), a butterfly photo where RS read 0.019 and WS 0.041
// per sample (both near the threshold), and a nebula where RS read 0.067 and WS 0.033 (weak:
// WS under half of RS; the two families together). A menu screenshot's payload read "no sign"
// until session 17: its busy pixels are antialiased text edges, where WS breaks (-0.95) and RS
// and SPA read 0.41 and 0.31 per sample together, 6 times the threshold there (on its clean
// cover, in the clean test above, they read none).
// A dialog's screenshot: its text is antialiased in exact greys, which stegosuite's random bits
// turn into mixed LSB patterns (0-1-0 and the like) filling evenly; RS, SPA and WS read "no sign"
// there until the grey busy pixels were read (session 17; its cover is in the clean test above).
test('stegosuite payloads of 0.1 bpp in a star cluster, a photo, a nebula, a menu and a dialog are found at standard depth', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const names = ['stellarium-m23-stegosuite.png', 'opencv-butterfly-stegosuite.png', 'stellarium-n2207-stegosuite.png', 'skrooge-menu-stegosuite.png', 'kphotoalbum-import-stegosuite.png'];
  const { poll, files } = await analyse(svc, key, names.map((n) => [n, readFileSync(path.join(OUTSIDE, n))]));
  t.is(poll.status, 'completed', poll.progress_message);
  const labels: string[] = [];
  for (const [i, item] of files.entries()) {
    const why = `${names[i]}: ${item.grade} ${JSON.stringify(item.verdicts.hidden_content)}`;
    t.is(item.verdicts.hidden_content.lsb.evidence, 'strong', why);
    t.is(item.steganography_suspected, true, why);
    t.is(item.grade, 'D', why);
    // 779 bytes plus stegosuite's framing in 256 x 256 pixels (1009 in 260 x 323, 1860 in 489 x 311): 0.1 bpp
    t.true(item.verdicts.hidden_content.lsb.payload_bpp > 0.04 && item.verdicts.hidden_content.lsb.payload_bpp < 0.3, why);
    labels.push(item.verdicts.findings.find((f: any) => f.severity === 'high' && /LSB steganography suspected/.test(f.label))?.label ?? '');
  }
  t.regex(labels[0], /busy pixels alone .*histogram pairs: \d+ pairs of values .* on a quarter of the busy samples/);
  t.regex(labels[1], /both read the same payload/);
  t.regex(labels[2], /within a factor 3 of each other/);
  t.regex(labels[3], /busy pixels alone .*broken by the edges here, and RS and SPA read .* together/);
  t.regex(labels[4], /grey pixels: \d+ grey busy pixels .* about \d+\.\d % of them rewritten/);
});

// A JPEG decoded and saved as PNG (the way many pictures reach people): OpenCV's photo of a
// chessboard has one-sided pairs of values from its quantised blocks, which read as a payload's
// floor of 0.17 per sample (graded D, round 1's held-out half). WS and the RS/SPA mean read under a
// third of that floor, so it is set aside; and its blocks rebuild exactly from the quantisation
// table they sit on, which LSB replacement cannot leave intact (steganalysis.test.ts checks that
// reading). The same decode with 0.1 bpp replaced is still found.
test('a JPEG re-saved as PNG is not accused of hiding data; with a payload it is', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const decoded = await sharp(path.join(OUTSIDE, 'board.jpg')).png({ compressionLevel: 6 }).toBuffer();
  const { data, info } = await sharp(decoded).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const img = embedLsbReplacement({ data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 }, 0.1, 11);
  const stego = await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } }).png().toBuffer();
  const { poll, files } = await analyse(svc, key, [['board.png', decoded], ['board-stego.png', stego]]);
  t.is(poll.status, 'completed', poll.progress_message);
  const [clean, carrier] = files;
  const why = (item: any) => `${item.grade} ${JSON.stringify(item.grade_reasons)} ${JSON.stringify(item.verdicts.hidden_content)}`;
  t.true(['A', 'B'].includes(clean.grade), why(clean));
  t.is(clean.steganography_suspected, false, why(clean));
  t.is(clean.verdicts.hidden_content.lsb.evidence, 'none', why(clean));
  t.truthy(clean.verdicts.findings.find((f: any) => f.severity === 'info' && /No sign of LSB replacement/.test(f.label)), why(clean));
  t.is(carrier.verdicts.hidden_content.lsb.evidence, 'strong', why(carrier));
  t.is(carrier.grade, 'D', why(carrier));
});
