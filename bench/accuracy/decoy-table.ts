// Decoy or not (issue 29): can this service's own steganalysis tell a hide with a decoy from one
// without, at the same total rate? The goal: "detection within +-2 points on the held-out covers
// of the accuracy corpus".
//
// On the held-out half (by default) of the outside corpus, every cover of the stego tables (the
// same covers, indexes and 512 px downscale: stego-tables.ts) gets this project's hide twice
// per rate (stego-makers.ts): without a decoy ('obscura': a secret of T/2 and the noise lane the
// product writes, as long as it) and with one at the same total rate ('obscura-decoy': T/2 +
// T/2). Every file goes through the hidden-content detector as the analysis product runs it
// (productJudge), and each decoy hide is compared with the single hide cover by cover (paired):
//   flagged = LSB replacement suspected (strong evidence), as in the stego tables;
//   the difference in points, single minus decoy, with a 95 % interval for paired proportions
//   (Newcombe's hybrid score interval, method 10 of Stat. Med. 17:873, 1998);
//   the goal: the difference within +-2 points. "met" when the point difference is within +-2,
//   and the interval says whether the covers were enough to show it (inside +-2) or not;
//   a rate where neither kind is flagged 5 points more often than the clean covers themselves
//   can hardly fail the goal: where it is met there, it is marked "uninformative".
// Beside the verdicts, the continuous figures behind them, per kind: changed samples per pixel
// (what embed() counts), the verdict's payload estimate (bpp, mean and median), RS and WS
// (per sample, the methods' rates) and the histogram pairs' floor; the share of neighbouring
// LSBs that agree (content.ts, lsbAgreement: the analysis' own reading of the LSB plane, which
// +-1 changes move towards 0.5, unlike the replacement estimators), as its drop from the clean
// cover, with a paired 95 % interval of single minus decoy; and, not the product's, a lane-aware
// reading: the same agreement within each lane (same channel, two pixels apart: both samples in
// one lane) and how far the two lanes differ, |lane 0 - lane 1|, which a steganalyst who knows
// the layout could read.
//
// Rates: the stego tables' 0.05, 0.1, 0.2 and 0.4 bpp, then 1.0 and 1.9 bpp, where each stream
// fills about 35 % and 70 % of its lane: past every rate the other tables use, so
// that a detector that flags our +-1 changes at all does it there.
//
// npm run bench -- accuracy (index.ts) prints it; alone:
// node bench/accuracy/decoy-table.ts [--half=calibration|held-out] [--round=1..8] [--max-side=512] [--jobs=2]
//                                    [--seed=1] [--limit=<pictures>] [--covers=<covers>] [--rates=0.1,0.4] [--deep]
// --deep judges at deep depth too (standard is the product's default, and always judged).
import sharp from 'sharp';
import { lsbAgreement } from '../../src/media/analyse/steganalysis/content.ts';
import type { PixelImage } from '../../src/media/analyse/steganalysis/types.ts';
import type { Goal, Tables } from './index.ts';
import { parseRound, scopeOf, type Half } from './corpus.ts';
import { cleanCoverFile, coverFromFile, makeStego, OBSCURA_TOOLS, RATES, type Made, type ObscuraTool } from './stego-makers.ts';
import { coversFor, pool, productJudge, withDefaults, type Depth, type StegoJudge, type StegoReading, type StegoTablesOptions } from './stego-tables.ts';

export const DECOY_RATES: readonly number[] = [...RATES, 1.0, 1.9];
/** The goal (issue 29): single and decoy flagged within this many points of each other. */
export const GOAL_POINTS = 2;
/** A rate tells much only where one kind is flagged at least this many points above the clean
 *  covers: below it both are flagged about as often as clean covers, and the goal can hardly
 *  fail (a met goal there is marked uninformative). */
const INFORMATIVE_POINTS = 5;

/** The stego tables' options (the same covers), and the rates and depths of this one. */
export interface DecoyTableOptions extends StegoTablesOptions {
  rates?: readonly number[];
  /** judge at deep depth as well */
  deep?: boolean;
}

/** What one file reads. */
interface Obs {
  flagged: Partial<Record<Depth, boolean>>;
  answered: boolean;
  payload: number | null;
  rs: number | null;
  ws: number | null;
  floor: number | null;
  agree: number;
  lanes: [number, number];
  changedPx: number;
}

// ---- statistics

const Z = 1.959964;

function wilson(k: number, n: number): [number, number] {
  if (!n) return [0, 1];
  const p = k / n, z2 = Z * Z, den = 1 + z2 / n;
  const mid = (p + z2 / (2 * n)) / den, half = (Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / den;
  return [Math.max(0, mid - half), Math.min(1, mid + half)];
}

/** 95 % interval of p1 - p2 for paired binary outcomes: a = both, b = first only, c = second
 *  only, d = neither (Newcombe 1998, method 10, without continuity correction). */
export function pairedDiffInterval(a: number, b: number, c: number, d: number): { diff: number; lo: number; hi: number } {
  const n = a + b + c + d;
  if (!n) return { diff: NaN, lo: NaN, hi: NaN };
  const p1 = (a + b) / n, p2 = (a + c) / n, diff = p1 - p2;
  const [l1, u1] = wilson(a + b, n), [l2, u2] = wilson(a + c, n);
  const den = Math.sqrt((a + b) * (c + d) * (a + c) * (b + d));
  const phi = den > 0 ? (a * d - b * c) / den : 0;
  const dl = Math.sqrt(Math.max(0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2));
  const du = Math.sqrt(Math.max(0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2));
  return { diff, lo: diff - dl, hi: diff + du };
}

/** Mean of paired differences with a normal 95 % interval. */
function meanInterval(xs: number[]): { mean: number; lo: number; hi: number } {
  const n = xs.length;
  if (!n) return { mean: NaN, lo: NaN, hi: NaN };
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const sd = n > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) : 0;
  const h = (Z * sd) / Math.sqrt(n);
  return { mean, lo: mean - h, hi: mean + h };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
const median = (xs: number[]) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const nums = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null && Number.isFinite(x));

// ---- reading one file

/** Agreement of LSBs within each lane (even and odd sample indices): same channel, two pixels
 *  apart, so both samples of a pair are in one lane. */
export function laneAgreement(img: PixelImage): [number, number] {
  const { data, width: w, height: h, channels: ch } = img;
  const same = [0, 0], n = [0, 0];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x + 2 < w; x++) {
      const i = (y * w + x) * ch;
      for (let c = 0; c < 3; c++) {
        const k = (i + c) & 1;
        same[k] += ((data[i + c] ^ data[i + c + 2 * ch]) & 1) ^ 1;
        n[k]++;
      }
    }
  }
  return [n[0] ? same[0] / n[0] : NaN, n[1] ? same[1] / n[1] : NaN];
}

async function rgbOf(file: string): Promise<PixelImage> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 };
}

const methodRate = (r: StegoReading, m: string) => r.methods.find((x) => x.method === m)?.rate ?? null;

async function observe(judge: StegoJudge, file: string, depths: readonly Depth[], changed: number, px: number): Promise<Obs> {
  const flagged: Partial<Record<Depth, boolean>> = {};
  let std: StegoReading | undefined;
  for (const d of depths) {
    const r = await judge(file, d);
    flagged[d] = r.suspected === true;
    if (d === 'standard') std = r;
  }
  const img = await rgbOf(file);
  return {
    flagged,
    answered: std!.suspected !== null,
    payload: std!.payload ?? null,
    rs: methodRate(std!, 'rs'),
    ws: methodRate(std!, 'weighted_stego'),
    floor: methodRate(std!, 'histogram_pairs'),
    agree: lsbAgreement(img),
    lanes: laneAgreement(img),
    changedPx: changed / px,
  };
}

// ---- the table

type Kind = 's' | 'd';
const KIND_OF: Record<ObscuraTool, Kind> = { obscura: 's', 'obscura-decoy': 'd' };
/** The comparison: the single hide against the decoy hide. */
const VERSUS: readonly { k: 'd'; what: string }[] = [{ k: 'd', what: 'the same bits' }];

interface CoverObs {
  clean: Obs;
  s?: Obs;
  d?: Obs;
  /** container bits (both streams) per pixel */
  bits: Partial<Record<Kind, number>>;
}
interface RateRow {
  rate: number;
  covers: CoverObs[];
  over: Record<Kind, number>;
  failed: number;
}
type Pair = { clean: Obs; s: Obs; d: Obs; bitsS: number; bitsD: number };
/** The covers where the single hide and decoy hide `k` were both made. */
const pairsOf = (r: RateRow, k: 'd'): Pair[] => r.covers.flatMap((o) => (o.s && o[k] ? [{ clean: o.clean, s: o.s, d: o[k]!, bitsS: o.bits.s!, bitsD: o.bits[k]! }] : []));

export async function decoyTable(opts: DecoyTableOptions = {}): Promise<Tables> {
  const judge = opts.judge ?? productJudge;
  const { half, maxSide, jobs, seed, log } = withDefaults(opts);
  const rates = opts.rates ?? DECOY_RATES;
  const depths: Depth[] = opts.deep ? ['standard', 'deep'] : ['standard'];
  const t0 = performance.now();
  const covers = await coversFor(opts, half, log);
  const tLoaded = performance.now();
  const rows = new Map<number, RateRow>(rates.map((r) => [r, { rate: r, covers: [], over: { s: 0, d: 0 }, failed: 0 }]));
  let scaled = 0, done = 0, bad = 0, madeMs = 0, judgeMs = 0;
  await pool(covers, jobs, async (p, i) => {
    let cover;
    try {
      cover = await coverFromFile(p.id, p.file, i, maxSide);
    } catch (e) {
      bad++;
      log(`cover ${p.id}: ${(e as Error).message.split('\n')[0]}`);
      return;
    }
    if (cover.scaled) scaled++;
    const px = cover.img.width * cover.img.height;
    let t = performance.now();
    const clean = await observe(judge, await cleanCoverFile(cover, 'png'), depths, 0, px);
    judgeMs += performance.now() - t;
    for (const rate of rates) {
      const row = rows.get(rate)!;
      const got: CoverObs = { clean, bits: {} };
      for (const tool of OBSCURA_TOOLS) {
        const k = KIND_OF[tool];
        let m: Made;
        t = performance.now();
        try {
          m = await makeStego(cover, tool, rate, seed);
        } catch (e) {
          row.failed++;
          log(`${tool} ${rate} on ${p.id}: ${(e as Error).message.split('\n')[0]}`);
          continue;
        }
        madeMs += performance.now() - t;
        if (m.status === 'over-capacity') { row.over[k]++; continue; }
        if (m.status !== 'ok' || !m.file) { row.failed++; continue; }
        t = performance.now();
        got[k] = await observe(judge, m.file, depths, m.changed ?? NaN, px);
        got.bits[k] = (m.bits ?? NaN) / px;
        judgeMs += performance.now() - t;
      }
      row.covers.push(got);
    }
    done++;
    if (done % 10 === 0 || done === covers.length) {
      const el = (performance.now() - tLoaded) / 1000;
      log(`decoy-table: ${done}/${covers.length} covers, ${el.toFixed(0)} s, about ${((el / done) * (covers.length - done)).toFixed(0)} s left`);
    }
  });
  const tEnd = performance.now();

  // ---- text
  const f = (x: number, k = 3) => (Number.isFinite(x) ? x.toFixed(k) : 'n/a');
  const pts = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}` : 'n/a');
  const pc = (k: number, n: number) => (n ? `${((100 * k) / n).toFixed(1)} %` : 'n/a');
  const goals: Goal[] = [];
  let text = `Decoy or not (issue 29), ${scopeOf(half, opts.round)} of the outside corpus: ${covers.length} covers${bad ? ` (${bad} not decoded)` : ''}, ${scaled} downscaled to ${maxSide} px. This project's hide on each, per total rate T: single (a secret of T/2 and the noise lane the product writes, as long as it); decoy (T/2 + T/2: stego-makers.ts). Paired on the same covers; judged by the hidden-content detector as the product runs it.\n`;
  for (const { k, what } of VERSUS) {
    for (const d of depths) {
      text += `\nFlagged (LSB replacement suspected), single against a decoy hide of ${what}, ${d} depth; diff = single - decoy in points, 95 % interval for paired proportions; goal: within +-${GOAL_POINTS} points\n`;
      text += `${'total bpp'.padEnd(10)}${'n'.padStart(5)}${'n/a'.padStart(6)}${'clean'.padStart(9)}${'single'.padStart(9)}${'decoy'.padStart(9)}${'both'.padStart(6)}${'s only'.padStart(8)}${'d only'.padStart(8)}${'diff [95 % interval]'.padStart(24)}   goal\n`;
      for (const r of rows.values()) {
        const pairs = pairsOf(r, k);
        const n = pairs.length;
        let a = 0, b = 0, c = 0, dd = 0, cl = 0;
        for (const q of pairs) {
          const x = q.s.flagged[d]!, y = q.d.flagged[d]!;
          if (x && y) a++; else if (x) b++; else if (y) c++; else dd++;
          if (q.clean.flagged[d]) cl++;
        }
        const ci = pairedDiffInterval(a, b, c, dd);
        const g = GOAL_POINTS / 100;
        const within = Math.abs(ci.diff) <= g;
        const shown = ci.lo >= -g && ci.hi <= g;
        // it can only fail where the hide is flagged clearly more often than the clean covers themselves
        const informative = Math.max(a + b, a + c) - cl >= (INFORMATIVE_POINTS * n) / 100;
        const na = r.over.s + r.over[k] + r.failed;
        const verdict = !n ? 'no covers' : within ? `met ${shown ? '(interval inside)' : '(interval not inside: too few covers to show it)'}${informative ? '' : '; uninformative: < 5 points above the clean covers'}` : 'NOT MET';
        text += `${String(r.rate).padEnd(10)}${String(n).padStart(5)}${String(na).padStart(6)}${pc(cl, n).padStart(9)}${pc(a + b, n).padStart(9)}${pc(a + c, n).padStart(9)}${String(a).padStart(6)}${String(b).padStart(8)}${String(c).padStart(8)}${`${pts(ci.diff)} [${pts(ci.lo)}, ${pts(ci.hi)}]`.padStart(24)}   ${verdict}\n`;
        if (n) goals.push({ name: `decoy (${what}) vs single at ${r.rate} bpp in total, ${d} depth: flagged within +-${GOAL_POINTS} points`, ok: within, figure: `single ${pc(a + b, n)}, decoy ${pc(a + c, n)}, diff ${pts(ci.diff)} points [${pts(ci.lo)}, ${pts(ci.hi)}] on ${n} covers (clean ${pc(cl, n)})${shown ? '' : '; interval not inside +-2'}${informative || !within ? '' : '; uninformative'}` });
      }
    }
  }
  text += '\nThe figures behind the verdicts (standard depth; single / decoy): container bits per pixel; changed samples per pixel; the verdict\'s payload estimate in bpp, mean and median over the covers it answered; RS and WS per sample and the histogram pairs\' floor, means over the covers they answered\n';
  text += `${'total bpp'.padEnd(10)}${'bits/px'.padStart(22)}${'changes/px'.padStart(22)}${'payload mean'.padStart(22)}${'payload median'.padStart(22)}${'RS'.padStart(22)}${'WS'.padStart(22)}${'pairs floor'.padStart(22)}${'answered'.padStart(16)}\n`;
  const three = (r: RateRow, g: (o: Obs, q: CoverObs, k: Kind) => number | null, agg: (v: number[]) => number, k = 3) =>
    (['s', 'd'] as const).map((kind) => f(agg(nums(r.covers.filter((q) => q[kind]).map((q) => g(q[kind]!, q, kind)))), k)).join(' / ');
  for (const r of rows.values()) {
    const ans = (['s', 'd'] as const).map((kind) => r.covers.filter((q) => q[kind]?.answered).length).join('/');
    text += `${String(r.rate).padEnd(10)}${three(r, (_o, q, k) => q.bits[k] ?? null, mean).padStart(22)}${three(r, (o) => o.changedPx, mean).padStart(22)}${three(r, (o) => o.payload, mean).padStart(22)}${three(r, (o) => o.payload, median).padStart(22)}${three(r, (o) => o.rs, mean).padStart(22)}${three(r, (o) => o.ws, mean).padStart(22)}${three(r, (o) => o.floor, mean).padStart(22)}${ans.padStart(16)}\n`;
  }
  const asym = (o: Obs) => Math.abs(o.lanes[0] - o.lanes[1]);
  for (const { k, what } of VERSUS) {
    text += `\nPaired differences, single - decoy of ${what}, mean with a 95 % interval: the payload estimate (bpp, covers both answered); the drop in LSB agreement from the clean cover (content.ts; +-1 changes move it, the replacement estimators hardly), mean drops single / decoy. Then, not the product's steganalysis, a lane-aware reading: LSB agreement within each lane (same channel, two pixels apart), how far the lanes differ, |lane 0 - lane 1| (mean; clean covers for scale), and the share of covers where the single hide's lanes differ more than the decoy hide's (50 % = no tell)\n`;
    text += `${'total bpp'.padEnd(10)}${'payload diff'.padStart(28)}${'agreement drop s / d'.padStart(24)}${'drop diff'.padStart(30)}${'lanes: clean'.padStart(14)}${'single'.padStart(9)}${'decoy'.padStart(9)}${'single > decoy'.padStart(16)}\n`;
    for (const r of rows.values()) {
      const pairs = pairsOf(r, k);
      const pd = meanInterval(pairs.filter((q) => q.s.payload !== null && q.d.payload !== null).map((q) => q.s.payload! - q.d.payload!));
      const dropS = pairs.map((q) => q.clean.agree - q.s.agree), dropD = pairs.map((q) => q.clean.agree - q.d.agree);
      const dd = meanInterval(pairs.map((q) => q.d.agree - q.s.agree));
      const more = pairs.filter((q) => asym(q.s) > asym(q.d)).length + 0.5 * pairs.filter((q) => asym(q.s) === asym(q.d)).length;
      text += `${String(r.rate).padEnd(10)}${`${f(pd.mean, 4)} [${f(pd.lo, 4)}, ${f(pd.hi, 4)}]`.padStart(28)}${`${f(mean(dropS), 4)} / ${f(mean(dropD), 4)}`.padStart(24)}${`${f(dd.mean, 4)} [${f(dd.lo, 4)}, ${f(dd.hi, 4)}]`.padStart(30)}` +
        `${f(mean(pairs.map((q) => asym(q.clean))), 4).padStart(14)}${f(mean(pairs.map((q) => asym(q.s))), 4).padStart(9)}${f(mean(pairs.map((q) => asym(q.d))), 4).padStart(9)}${pc(more, pairs.length).padStart(16)}\n`;
    }
  }
  const over = [...rows.values()].filter((r) => r.over.s + r.over.d + r.failed).map((r) => `${r.rate} bpp: over a lane's capacity ${r.over.s} single, ${r.over.d} decoy${r.failed ? `; ${r.failed} failed` : ''}`);
  if (over.length) text += `n/a (left out of the pairs): ${over.join('; ')}\n`;
  const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  text += `\ntimes: loading the corpus ${s(tLoaded - t0)}; covers ${s(tEnd - tLoaded)} with ${jobs} at once (making and cache ${s(madeMs)}, judging ${s(judgeMs)}, summed over the jobs); total ${s(tEnd - t0)}\n`;
  return { text, goals };
}

/** node bench/accuracy/decoy-table.ts [options above] */
export async function run(args: string[]): Promise<void> {
  const arg = (k: string) => args.find((a) => a.startsWith(`--${k}=`))?.split('=')[1];
  const half = (arg('half') ?? 'held-out') as Half;
  if (half !== 'held-out' && half !== 'calibration') throw new Error('--half is calibration or held-out');
  const round = parseRound(arg('round'), half);
  const num = (k: string) => (arg(k) === undefined ? undefined : Number(arg(k)));
  const rates = arg('rates')?.split(',').map(Number);
  if (rates?.some((r) => !(r > 0))) throw new Error('--rates is a list of positive bpp, e.g. --rates=0.1,0.4');
  const { text, goals } = await decoyTable({ half, round, maxSide: num('max-side'), jobs: num('jobs'), seed: num('seed'), limit: num('limit'), covers: num('covers'), rates, deep: args.includes('--deep') });
  process.stdout.write(text);
  process.stdout.write(`\ngoals (issue 29; they count on the held-out half${half === 'held-out' ? '' : ': THIS IS THE CALIBRATION HALF'}):\n`);
  for (const g of goals) process.stdout.write(`  ${g.ok ? 'PASS' : 'FAIL'}  ${g.name}: ${g.figure}\n`);
}

if (import.meta.main) await run(process.argv.slice(2));
