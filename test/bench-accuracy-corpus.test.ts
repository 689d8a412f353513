// The accuracy benchmark's outside corpus (bench/accuracy/manifest.tsv, corpus.ts): every row is
// whole and in a round; round 1 keeps exactly the split its figures were reported on; rounds 2 to 6
// are held out whole, so nobody can tune on them by running the calibration half.
import { createHash } from 'node:crypto';
import { test } from './helpers/test.ts';
import { halfOf, parseRound, readManifest } from '../bench/accuracy/corpus.ts';

// sha256 of the sorted ids of round 1's held-out rows, as the split put them before round 2 came
const ROUND1_HELD_OUT = { rows: 226, ids: 'd519f1246c4e89dc95fba9cb73dc1b29e4b7573e0e84da02124b198461f434e2' };
// round 4 was gathered for the scarce classes: camera photos and telescope photos
const ROUND4_MIN = { rows: 200, camera: 120, astronomy: 10 };
// round 5 (blind while rounds 3 and 4 are judged): camera photos first, no package above 30 pictures
const ROUND5_MIN = { rows: 220, camera: 100, astronomy: 10, perPackage: 30 };
// round 6 (blind once round 5 was judged): screenshots and artwork first, no package above 30 pictures
const ROUND6_MIN = { rows: 250, screenshot: 60, artwork: 60, camera: 15, perPackage: 30 };

test('every manifest row is whole, in round 1 to 6, and names its file by its sha256', async (t) => {
  const rows = await readManifest();
  t.true(rows.length > 0);
  for (const r of rows) {
    t.true([1, 2, 3, 4, 5, 6].includes(r.round), `${r.id}: round ${r.round}`);
    t.true(['camera', 'astronomy', 'artwork', 'screenshot'].includes(r.cls), `${r.id}: class ${r.cls}`);
    t.true(['png', 'jpeg', 'webp'].includes(r.format), `${r.id}: format ${r.format}`);
    t.true(r.width > 0 && r.height > 0, `${r.id}: size`);
    t.regex(r.sha256, /^[0-9a-f]{64}$/);
    t.is(r.id, r.sha256.slice(0, 16));
    for (const k of ['group', 'pkg', 'version', 'path', 'licence'] as const) t.true(r[k].length > 0, `${r.id}: ${k} empty`);
  }
  t.is(new Set(rows.map((r) => r.sha256)).size, rows.length, 'no picture twice');
});

test('round 1 keeps its split; every round-2 picture is held out, whatever its group hashes to', async (t) => {
  const rows = await readManifest();
  const heldOut = rows.filter((r) => r.round === 1 && halfOf(r.group, r.round) === 'held-out').map((r) => r.id).sort();
  t.is(heldOut.length, ROUND1_HELD_OUT.rows);
  t.is(createHash('sha256').update(heldOut.join('\n')).digest('hex'), ROUND1_HELD_OUT.ids);
  const round2 = rows.filter((r) => r.round === 2);
  t.true(round2.length >= 200, `round 2 has ${round2.length} pictures`);
  t.true(round2.filter((r) => r.cls === 'camera').length >= 60, 'at least 60 camera photos in round 2');
  t.true(round2.some((r) => halfOf(r.group) === 'calibration'), 'some round-2 groups hash to the calibration half (so the rule is what holds them out)');
  for (const r of round2) t.is(halfOf(r.group, r.round), 'held-out', r.id);
  const round1Shas = new Set(rows.filter((r) => r.round === 1).map((r) => r.sha256));
  t.false(round2.some((r) => round1Shas.has(r.sha256)), 'no round-1 picture again in round 2');
});

test('every round-3 picture is held out, whatever its group hashes to, and comes from packages of no earlier round', async (t) => {
  const rows = await readManifest();
  const round3 = rows.filter((r) => r.round === 3);
  t.true(round3.length >= 150, `round 3 has ${round3.length} pictures`);
  t.true(round3.some((r) => halfOf(r.group) === 'calibration'), 'some round-3 groups hash to the calibration half (so the rule is what holds them out)');
  for (const r of round3) t.is(halfOf(r.group, r.round), 'held-out', r.id);
  const earlierPkgs = new Set(rows.filter((r) => r.round < 3).map((r) => r.pkg));
  t.deepEqual(round3.filter((r) => earlierPkgs.has(r.pkg)).map((r) => r.pkg), [], 'round 3 is from packages no earlier round used');
  // a group never spans rounds, or its split would differ between its pictures
  const earlierGroups = new Set(rows.filter((r) => r.round < 3).map((r) => r.group));
  t.false(round3.some((r) => earlierGroups.has(r.group)), 'no round-3 group is shared with an earlier round');
});

test('every round-4 picture is held out, whatever its group hashes to, and comes from packages of no earlier round', async (t) => {
  const rows = await readManifest();
  const round4 = rows.filter((r) => r.round === 4);
  t.true(round4.length >= ROUND4_MIN.rows, `round 4 has ${round4.length} pictures`);
  t.true(round4.filter((r) => r.cls === 'camera').length >= ROUND4_MIN.camera, 'round 4 is mainly camera photos');
  t.true(round4.filter((r) => r.cls === 'astronomy').length >= ROUND4_MIN.astronomy, 'and telescope photos');
  t.true(round4.some((r) => halfOf(r.group) === 'calibration'), 'some round-4 groups hash to the calibration half (so the rule is what holds them out)');
  for (const r of round4) t.is(halfOf(r.group, r.round), 'held-out', r.id);
  const earlier = rows.filter((r) => r.round < 4);
  const earlierPkgs = new Set(earlier.map((r) => r.pkg));
  t.deepEqual(round4.filter((r) => earlierPkgs.has(r.pkg)).map((r) => r.pkg), [], 'round 4 is from packages no earlier round used');
  const earlierGroups = new Set(earlier.map((r) => r.group));
  t.false(round4.some((r) => earlierGroups.has(r.group)), 'no round-4 group is shared with an earlier round');
});

test('every round-5 picture is held out, whatever its group hashes to, and comes from packages of no earlier round', async (t) => {
  const rows = await readManifest();
  const round5 = rows.filter((r) => r.round === 5);
  t.true(round5.length >= ROUND5_MIN.rows, `round 5 has ${round5.length} pictures`);
  t.true(round5.filter((r) => r.cls === 'camera').length >= ROUND5_MIN.camera, 'round 5 is camera photos first');
  t.true(round5.filter((r) => r.cls === 'astronomy').length >= ROUND5_MIN.astronomy, 'with some telescope photos');
  const perPackage = new Map<string, number>();
  for (const r of round5) perPackage.set(r.pkg, (perPackage.get(r.pkg) ?? 0) + 1);
  for (const [pkg, n] of perPackage) t.true(n <= ROUND5_MIN.perPackage, `${pkg} gives ${n} pictures: no one source dominates`);
  t.true(round5.some((r) => halfOf(r.group) === 'calibration'), 'some round-5 groups hash to the calibration half (so the rule is what holds them out)');
  for (const r of round5) t.is(halfOf(r.group, r.round), 'held-out', r.id);
  const earlier = rows.filter((r) => r.round < 5);
  const earlierPkgs = new Set(earlier.map((r) => r.pkg));
  t.deepEqual(round5.filter((r) => earlierPkgs.has(r.pkg)).map((r) => r.pkg), [], 'round 5 is from packages no earlier round used');
  const earlierGroups = new Set(earlier.map((r) => r.group));
  t.false(round5.some((r) => earlierGroups.has(r.group)), 'no round-5 group is shared with an earlier round');
});

test('every round-6 picture is held out, whatever its group hashes to, and comes from packages of no earlier round', async (t) => {
  const rows = await readManifest();
  const round6 = rows.filter((r) => r.round === 6);
  t.true(round6.length >= ROUND6_MIN.rows, `round 6 has ${round6.length} pictures`);
  t.true(round6.filter((r) => r.cls === 'screenshot').length >= ROUND6_MIN.screenshot, 'round 6 is screenshots first');
  t.true(round6.filter((r) => r.cls === 'artwork').length >= ROUND6_MIN.artwork, 'and artwork');
  t.true(round6.filter((r) => r.cls === 'camera').length >= ROUND6_MIN.camera, 'with some camera photos');
  const perPackage = new Map<string, number>();
  for (const r of round6) perPackage.set(r.pkg, (perPackage.get(r.pkg) ?? 0) + 1);
  for (const [pkg, n] of perPackage) t.true(n <= ROUND6_MIN.perPackage, `${pkg} gives ${n} pictures: no one source dominates`);
  t.true(round6.some((r) => halfOf(r.group) === 'calibration'), 'some round-6 groups hash to the calibration half (so the rule is what holds them out)');
  for (const r of round6) t.is(halfOf(r.group, r.round), 'held-out', r.id);
  const earlier = rows.filter((r) => r.round < 6);
  const earlierPkgs = new Set(earlier.map((r) => r.pkg));
  t.deepEqual(round6.filter((r) => earlierPkgs.has(r.pkg)).map((r) => r.pkg), [], 'round 6 is from packages no earlier round used');
  const earlierGroups = new Set(earlier.map((r) => r.group));
  t.false(round6.some((r) => earlierGroups.has(r.group)), 'no round-6 group is shared with an earlier round');
});

test('--round takes 1 to 6, and rounds 2 to 6 have no calibration half', (t) => {
  t.is(parseRound(undefined, 'held-out'), undefined);
  t.is(parseRound('1', 'calibration'), 1);
  t.is(parseRound('2', 'held-out'), 2);
  t.is(parseRound('3', 'held-out'), 3);
  t.is(parseRound('4', 'held-out'), 4);
  t.is(parseRound('5', 'held-out'), 5);
  t.is(parseRound('6', 'held-out'), 6);
  t.throws(() => parseRound('7', 'held-out'), { message: /--round is 1, 2, 3, 4, 5 or 6/ });
  t.throws(() => parseRound('2', 'calibration'), { message: /no calibration half/ });
  t.throws(() => parseRound('3', 'calibration'), { message: /--round=3 has no calibration half/ });
  t.throws(() => parseRound('4', 'calibration'), { message: /--round=4 has no calibration half/ });
  t.throws(() => parseRound('5', 'calibration'), { message: /--round=5 has no calibration half/ });
  t.throws(() => parseRound('6', 'calibration'), { message: /--round=6 has no calibration half/ });
});
