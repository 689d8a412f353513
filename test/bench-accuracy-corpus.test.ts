// The accuracy benchmark's outside corpus (bench/accuracy/manifest.tsv, corpus.ts): every row is
// whole and in a round; round 1 keeps exactly the split its figures were reported on; rounds 2 to 8
// are held out whole, so nobody can tune on them by running the calibration half.
import { createHash } from 'node:crypto';
import { test } from './helpers/test.ts';
import { halfOf, parseRound, readManifest } from '../bench/accuracy/corpus.ts';

// sha256 of the sorted ids of round 1's held-out rows, as the split put them before round 2 came
const ROUND1_HELD_OUT = { rows: 226, ids: 'd519f1246c4e89dc95fba9cb73dc1b29e4b7573e0e84da02124b198461f434e2' };
/** What each blind round after round 2 was gathered for: its least size, its least count per
 *  class, and (from round 5) the most pictures any one package may give. */
const LATER_ROUNDS = [
  { round: 3, rows: 150, classes: {} },
  // gathered for the scarce classes: camera photos and telescope photos
  { round: 4, rows: 200, classes: { camera: 120, astronomy: 10 } },
  // blind while rounds 3 and 4 were judged: camera photos first
  { round: 5, rows: 220, classes: { camera: 100, astronomy: 10 }, perPackage: 30 },
  // blind once round 5 was judged: screenshots and artwork first
  { round: 6, rows: 250, classes: { screenshot: 60, artwork: 60, camera: 15 }, perPackage: 30 },
  // blind once round 6 was judged: camera photos first again
  { round: 7, rows: 220, classes: { camera: 50, artwork: 40, screenshot: 40 }, perPackage: 30 },
  // blind once round 7 was judged: screenshots and artwork first again (where the false positives were)
  { round: 8, rows: 250, classes: { screenshot: 90, artwork: 90 }, perPackage: 30 },
] as const;

test('every manifest row is whole, in round 1 to 8, and names its file by its sha256', async (t) => {
  const rows = await readManifest();
  t.true(rows.length > 0);
  for (const r of rows) {
    t.true([1, 2, 3, 4, 5, 6, 7, 8].includes(r.round), `${r.id}: round ${r.round}`);
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

for (const want of LATER_ROUNDS) {
  const n = want.round;
  test(`every round-${n} picture is held out, whatever its group hashes to, and comes from packages of no earlier round`, async (t) => {
    const rows = await readManifest();
    const round = rows.filter((r) => r.round === n);
    t.true(round.length >= want.rows, `round ${n} has ${round.length} pictures`);
    for (const [cls, least] of Object.entries(want.classes)) t.true(round.filter((r) => r.cls === cls).length >= least, `round ${n} has at least ${least} of class ${cls}`);
    if ('perPackage' in want) {
      const perPackage = new Map<string, number>();
      for (const r of round) perPackage.set(r.pkg, (perPackage.get(r.pkg) ?? 0) + 1);
      for (const [pkg, k] of perPackage) t.true(k <= want.perPackage, `${pkg} gives ${k} pictures: no one source dominates`);
    }
    t.true(round.some((r) => halfOf(r.group) === 'calibration'), `some round-${n} groups hash to the calibration half (so the rule is what holds them out)`);
    for (const r of round) t.is(halfOf(r.group, r.round), 'held-out', r.id);
    const earlier = rows.filter((r) => r.round < n);
    const earlierPkgs = new Set(earlier.map((r) => r.pkg));
    t.deepEqual(round.filter((r) => earlierPkgs.has(r.pkg)).map((r) => r.pkg), [], `round ${n} is from packages no earlier round used`);
    // a group never spans rounds, or its split would differ between its pictures
    const earlierGroups = new Set(earlier.map((r) => r.group));
    t.false(round.some((r) => earlierGroups.has(r.group)), `no round-${n} group is shared with an earlier round`);
  });
}

test('--round takes 1 to 8, and rounds 2 to 8 have no calibration half', (t) => {
  t.is(parseRound(undefined, 'held-out'), undefined);
  t.is(parseRound('1', 'calibration'), 1);
  t.is(parseRound('2', 'held-out'), 2);
  t.is(parseRound('3', 'held-out'), 3);
  t.is(parseRound('4', 'held-out'), 4);
  t.is(parseRound('5', 'held-out'), 5);
  t.is(parseRound('6', 'held-out'), 6);
  t.is(parseRound('7', 'held-out'), 7);
  t.is(parseRound('8', 'held-out'), 8);
  t.throws(() => parseRound('9', 'held-out'), { message: /--round is 1, 2, 3, 4, 5, 6, 7 or 8/ });
  t.throws(() => parseRound('2', 'calibration'), { message: /no calibration half/ });
  t.throws(() => parseRound('3', 'calibration'), { message: /--round=3 has no calibration half/ });
  t.throws(() => parseRound('4', 'calibration'), { message: /--round=4 has no calibration half/ });
  t.throws(() => parseRound('5', 'calibration'), { message: /--round=5 has no calibration half/ });
  t.throws(() => parseRound('6', 'calibration'), { message: /--round=6 has no calibration half/ });
  t.throws(() => parseRound('7', 'calibration'), { message: /--round=7 has no calibration half/ });
  t.throws(() => parseRound('8', 'calibration'), { message: /--round=8 has no calibration half/ });
});
