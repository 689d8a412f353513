// The steganalysis tables of the accuracy benchmark, on one half of the outside corpus
// (held-out by default; --half=calibration for tuning):
// 1. clean pictures per class, as uploaded: false positives (LSB replacement suspected), weak
//    evidence, no answer, and the lowest grade steganalysis alone would give a clean picture;
//    then which estimator fires on which class;
// 2. detection per tool x rate (stego-makers.ts) in the same pictures as covers.
// Both at standard and deep depth, through the hidden-content detector itself on the file, the
// way the analysis product runs it (a JPEG gets no LSB analysis: its pixels are lossy).
//
// npm run bench -- accuracy (bench/accuracy/index.ts) prints them; alone:
// node bench/accuracy/stego-tables.ts [--half=calibration|held-out] [--round=1|2|3|4|5|6|7|8] [--max-side=512] [--jobs=2]
//                                     [--seed=1] [--limit=<pictures>] [--covers=<covers>] [--make-only]
// --make-only makes (or finds cached) the stego files of those covers and judges nothing: it warms
// the cache of a blind round without anyone seeing a figure of it.
// (the tools come with `bash deploy/setup.sh --bench`, which npm run bench runs)
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { analyseInput } from '../../src/media/analyse/input.ts';
import { hiddenContentDetector, type HiddenContentVerdict } from '../../src/media/analyse/detectors/hidden-content.ts';
import { grade, type Grade, type GradeRule } from '../../src/media/analyse/grade.ts';
import type { AnalyseOptions } from '../../src/media/analyse/detector.ts';
import { decodePixels } from '../../src/media/decode.ts';
import { analyseLsb } from '../../src/media/analyse/steganalysis/index.ts';
import { DEFAULT_LIMITS } from '../../src/media/limits.ts';
import type { Goal, Tables } from './index.ts';
import { probe } from '../../src/media/probe.ts';
import { loadCorpus, parseRound, scopeOf, type CorpusPicture, type Half, type Round } from './corpus.ts';
import { cleanCoverFile, coverFromFile, makeStego, RATES, stegoCached, TOOLS, type Made, type Tool } from './stego-makers.ts';

export type Depth = 'standard' | 'deep';
const DEPTHS: readonly Depth[] = ['standard', 'deep'];

export interface StegoReading {
  /** the steganalysis verdict: LSB replacement suspected (strong evidence); null: no answer */
  suspected: boolean | null;
  evidence: 'strong' | 'weak' | 'none' | null;
  /** the grade steganalysis alone gives (the hidden-content rule on the LSB verdict only) */
  grade: Grade;
  /** the whole hidden-content verdict (structure too: appended bytes, big private chunks) */
  hidden: boolean | null;
  methods: { method: string; rate: number | null; detected: boolean | null }[];
  /** the verdict's payload estimate in bits per pixel (null: no answer) */
  payload?: number | null;
}
export type StegoJudge = (file: string, depth: Depth) => Promise<StegoReading>;

const RULE = hiddenContentDetector.grade as GradeRule<unknown>;

/** The hidden-content detector on the file, as the analysis product runs it. */
export const productJudge: StegoJudge = async (file, depth) => {
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'obscura-stego-judge-'));
  try {
    const options: AnalyseOptions = { depth, outDir };
    const r = await hiddenContentDetector.run(analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, options), options);
    const v = r.verdict;
    const lsb = v?.lsb ?? null;
    // steganalysis alone: the verdict without its structural findings
    const lsbOnly: HiddenContentVerdict | null = v && { ...v, suspected: lsb?.suspected ?? null, appended_bytes: 0, embedded: [], unusual_chunks: [] };
    return { suspected: lsb?.suspected ?? null, evidence: lsb?.evidence ?? null, grade: grade([{ rule: RULE, verdict: lsbOnly }]).grade, hidden: v?.suspected ?? null, methods: lsb?.methods ?? [], payload: lsb?.payload_bpp ?? null };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
};

export interface StegoTablesOptions {
  judge?: StegoJudge;
  half?: Half;
  /** only this round of the manifest (none: every round of the half) */
  round?: Round;
  /** covers are downscaled to this long side before embedding */
  maxSide?: number;
  /** covers made and analysed at once */
  jobs?: number;
  seed?: number;
  /** a quick look: at most this many clean pictures and this many covers */
  limit?: number;
  /** this many covers spread over the half (every clean picture is still analysed) */
  covers?: number;
  log?: (s: string) => void;
}

interface Tally {
  n: number;
  fp: number;
  weak: number;
  none: number;
  hidden: number;
  worst: Grade;
  fired: Map<string, number>;
  rates: Map<string, number[]>;
}
const newTally = (): Tally => ({ n: 0, fp: 0, weak: 0, none: 0, hidden: 0, worst: 'A', fired: new Map(), rates: new Map() });
const GRADES: readonly Grade[] = ['A', 'B', 'C', 'D', 'F'];

function add(t: Tally, r: StegoReading): void {
  t.n++;
  if (r.suspected === true) t.fp++;
  if (r.evidence === 'weak') t.weak++;
  if (r.suspected === null) t.none++;
  if (r.hidden === true) t.hidden++;
  if (GRADES.indexOf(r.grade) > GRADES.indexOf(t.worst)) t.worst = r.grade;
  for (const m of r.methods) {
    if (m.detected) t.fired.set(m.method, (t.fired.get(m.method) ?? 0) + 1);
    if (m.rate !== null && m.method !== 'chi_square') t.rates.set(m.method, [...(t.rates.get(m.method) ?? []), m.rate]);
  }
}

interface DetRow {
  label: string;
  made: number;
  overCapacity: number;
  failed: number;
  bitsSum: number;
  bitsN: number;
  capacity: number[];
  by: Record<Depth, Tally>;
}
const newDet = (label: string): DetRow => ({ label, made: 0, overCapacity: 0, failed: 0, bitsSum: 0, bitsN: 0, capacity: [], by: { standard: newTally(), deep: newTally() } });

const pct = (k: number, n: number) => (n ? `${((100 * k) / n).toFixed(1)} %` : 'n/a');
const q = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

/** Runs `fn` over `items` with at most `jobs` at a time. */
export async function pool<T>(items: readonly T[], jobs: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  }));
}

/** The covers of the stego half of the tables. A jpeg-png picture is its camera JPEG's pixels, so
 *  the covers are every picture but those (the camera JPEG decoded is the same cover). */
export function coversOf(pictures: readonly CorpusPicture[], count?: number): CorpusPicture[] {
  const eligible = pictures.filter((p) => p.cls !== 'jpeg-png');
  // --covers: a spread over the whole list (every class), not its first entries
  const step = count && count < eligible.length ? eligible.length / count : 1;
  return step === 1 ? eligible : Array.from({ length: count! }, (_, k) => eligible[Math.floor(k * step)]);
}

/** The options both runs share, with their defaults. */
/** The stego covers of the options' half and round (at most `limit` pictures looked at, `covers` of them). */
export async function coversFor(opts: Pick<StegoTablesOptions, 'round' | 'limit' | 'covers'>, half: Half, log: (s: string) => void): Promise<CorpusPicture[]> {
  const loaded = await loadCorpus({ half, round: opts.round, log });
  return coversOf(opts.limit ? loaded.slice(0, opts.limit) : loaded, opts.covers);
}

/** The options' defaults: the held-out half, 512 px, 2 jobs, seed 1, the log on stderr. */
export function withDefaults(opts: Omit<StegoTablesOptions, 'judge'>) {
  return {
    half: opts.half ?? 'held-out',
    maxSide: opts.maxSide ?? 512,
    jobs: opts.jobs ?? 2,
    seed: opts.seed ?? 1,
    log: opts.log ?? ((s: string) => process.stderr.write(`${s}\n`)),
  };
}

/** --make-only: makes (or finds in the cache) every stego file the tables would judge, with the
 *  same covers, indexes and seeds, and judges nothing: it warms the cache of a round that must
 *  stay blind. Returns counts and times only. */
export async function makeStegoOnly(opts: Omit<StegoTablesOptions, 'judge'> = {}): Promise<string> {
  const { half, maxSide, jobs, seed, log } = withDefaults(opts);
  const t0 = performance.now();
  const covers = await coversFor(opts, half, log);
  const tLoaded = performance.now();
  let made = 0, cached = 0, overCapacity = 0, failed = 0, badCovers = 0, done = 0;
  const toolMs = new Map<string, number>();
  await pool(covers, jobs, async (p, i) => {
    let cover;
    try {
      cover = await coverFromFile(p.id, p.file, i, maxSide);
    } catch (e) {
      badCovers++;
      log(`cover ${p.id}: ${(e as Error).message.split('\n')[0]}`);
      return;
    }
    await cleanCoverFile(cover, 'png');
    await cleanCoverFile(cover, 'jpeg');
    for (const tool of TOOLS) {
      for (const rate of RATES) {
        const t = performance.now();
        const fresh = !stegoCached(cover, tool, rate, seed);
        let m: Made;
        try {
          m = await makeStego(cover, tool, rate, seed);
        } catch (e) {
          failed++;
          log(`${tool} ${rate} on ${p.id}: ${(e as Error).message.split('\n')[0]}`);
          continue;
        }
        if (fresh) { made++; toolMs.set(tool, (toolMs.get(tool) ?? 0) + performance.now() - t); } else cached++;
        if (m.status === 'over-capacity') overCapacity++;
        else if (m.status !== 'ok') failed++;
      }
    }
    done++;
    if (done % 10 === 0 || done === covers.length) {
      const el = (performance.now() - tLoaded) / 1000;
      log(`stego-tables --make-only: ${done}/${covers.length} covers, ${el.toFixed(0)} s, about ${((el / done) * (covers.length - done)).toFixed(0)} s left`);
    }
  });
  const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  return `Stego files for the ${scopeOf(half, opts.round)} of the outside corpus (made only, nothing judged): ` +
    `${done} of ${covers.length} covers (${badCovers} not decoded), ${TOOLS.length} tools x ${RATES.length} rates each: ` +
    `${made} made, ${cached} from the cache; ${overCapacity} over the tool's capacity, ${failed} failed\n` +
    `times: loading the corpus ${s(tLoaded - t0)}, making ${s(performance.now() - tLoaded)} with ${jobs} at once; per tool: ${[...toolMs].map(([t, ms]) => `${t} ${s(ms)}`).join(', ') || 'all from the cache'}\n`;
}

/** stegoTables(judge?, options?) or stegoTables(options?) with options.judge; the judge defaults
 *  to the hidden-content detector on the file (productJudge). */
export async function stegoTables(a?: StegoJudge | StegoTablesOptions, b?: StegoTablesOptions): Promise<Tables> {
  const opts = (typeof a === 'function' ? b : a) ?? {};
  const judge = (typeof a === 'function' ? a : opts.judge) ?? productJudge;
  const { half, maxSide, jobs, seed, log } = withDefaults(opts);
  const t0 = performance.now();
  const loaded = await loadCorpus({ half, round: opts.round, log });
  const pictures = opts.limit ? loaded.slice(0, opts.limit) : loaded;
  const classes = [...new Set(pictures.map((p) => p.cls))];

  // ---- 1. clean pictures as uploaded
  const clean = new Map<string, Record<Depth, Tally>>(classes.map((c) => [c, { standard: newTally(), deep: newTally() }]));
  let refused = 0;
  const flagged = new Map<CorpusPicture, string>();
  await pool(pictures, jobs, async (p) => {
    for (const d of DEPTHS) {
      try {
        const r = await judge(p.file, d);
        add(clean.get(p.cls)![d], r);
        if (r.suspected || r.evidence === 'weak') flagged.set(p, `${flagged.has(p) ? `${flagged.get(p)}, ` : ''}${d} ${r.suspected ? 'FP' : 'weak'}`);
      } catch (e) {
        if (d === 'standard') refused++;
        log(`clean ${p.id}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
  });
  const tClean = performance.now();

  // ---- 2. stego in the same pictures
  const covers = coversOf(pictures, opts.covers);
  const cleanPng = newDet('clean covers (PNG)');
  const cleanJpeg = newDet('clean covers (JPEG q90)');
  const rows = new Map<string, DetRow>();
  for (const tool of TOOLS) for (const r of RATES) rows.set(`${tool}|${r}`, newDet(`${tool} ${r} bpp`));
  const perClass = new Map<string, Map<string, DetRow>>();
  let scaled = 0, made = 0, madeMs = 0, judgeMs = 0, done = 0;
  const toolMs = new Map<string, number>();
  const judged = async (row: DetRow, file: string, cls?: string, key?: string) => {
    const t = performance.now();
    for (const d of DEPTHS) {
      const r = await judge(file, d);
      add(row.by[d], r);
      if (cls && key) {
        const m = perClass.get(cls) ?? new Map<string, DetRow>();
        perClass.set(cls, m);
        if (!m.has(key)) m.set(key, newDet(key));
        add(m.get(key)!.by[d], r);
      }
    }
    judgeMs += performance.now() - t;
  };
  await pool(covers, jobs, async (p, i) => {
    let cover;
    try {
      cover = await coverFromFile(p.id, p.file, i, maxSide);
    } catch (e) {
      log(`cover ${p.id}: ${(e as Error).message.split('\n')[0]}`);
      return;
    }
    if (cover.scaled) scaled++;
    await judged(cleanPng, await cleanCoverFile(cover, 'png'), p.cls, 'clean');
    await judged(cleanJpeg, await cleanCoverFile(cover, 'jpeg'));
    for (const tool of TOOLS) {
      for (const rate of RATES) {
        const row = rows.get(`${tool}|${rate}`)!;
        const t = performance.now();
        const fresh = !stegoCached(cover, tool as Tool, rate, seed);
        let m: Made;
        try {
          m = await makeStego(cover, tool as Tool, rate, seed);
        } catch (e) {
          log(`${tool} ${rate} on ${p.id}: ${(e as Error).message.split('\n')[0]}`);
          row.failed++;
          continue;
        }
        const ms = performance.now() - t;
        if (fresh) { made++; madeMs += ms; toolMs.set(tool, (toolMs.get(tool) ?? 0) + ms); }
        // (older cache entries may hold outguess's wrapped-around sizes of flat covers)
        if (m.capacityBits !== undefined && m.capacityBits <= 24 * cover.img.width * cover.img.height) row.capacity.push(m.capacityBits / (cover.img.width * cover.img.height));
        if (m.status === 'over-capacity') { row.overCapacity++; continue; }
        if (m.status !== 'ok' || !m.file) { row.failed++; log(`${tool} ${rate} on ${p.id}: ${m.note ?? 'failed'}`); continue; }
        row.made++;
        if (m.bits !== undefined) { row.bitsSum += m.bits / (cover.img.width * cover.img.height); row.bitsN++; }
        await judged(row, m.file, p.cls, `${tool}|${rate}`);
      }
    }
    done++;
    if (done % 10 === 0 || done === covers.length) {
      const el = (performance.now() - tClean) / 1000;
      log(`stego-tables: ${done}/${covers.length} covers, ${el.toFixed(0)} s, about ${((el / done) * (covers.length - done)).toFixed(0)} s left`);
    }
  });
  const tEnd = performance.now();

  // ---- text
  const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  let text = `Steganalysis on the ${scopeOf(half, opts.round)} of the outside corpus: ${pictures.length} pictures (${classes.map((c) => `${c} ${pictures.filter((p) => p.cls === c).length}`).join(', ')})` +
    `${refused ? `; ${refused} refused by the probe (left out)` : ''}\n` +
    'Through the hidden-content detector on each file, as the analysis runs it (standard: chi-square, RS, WS; deep: + Sample Pairs). A JPEG gets no LSB analysis (lossy): no answer.\n\n' +
    'Clean pictures as uploaded: FP = LSB replacement suspected; weak = weak evidence (caps the grade at B); no answer caps at B too; lowest grade = the worst a clean picture gets from steganalysis alone; hidden = the whole detector (structure too)\n';
  const head = `${'class'.padEnd(11)}${'n'.padStart(5)}  ${'depth'.padEnd(9)}${'FP'.padStart(9)}${'weak'.padStart(9)}${'no answer'.padStart(11)}${'lowest'.padStart(8)}${'hidden'.padStart(9)}\n`;
  text += head;
  const all: Record<Depth, Tally> = { standard: newTally(), deep: newTally() };
  for (const c of classes) {
    for (const d of DEPTHS) {
      const t = clean.get(c)![d];
      mergeInto(all[d], t);
      text += `${(d === 'standard' ? c : '').padEnd(11)}${(d === 'standard' ? String(t.n) : '').padStart(5)}  ${d.padEnd(9)}${pct(t.fp, t.n).padStart(9)}${pct(t.weak, t.n).padStart(9)}${pct(t.none, t.n).padStart(11)}${t.worst.padStart(8)}${pct(t.hidden, t.n).padStart(9)}\n`;
    }
  }
  for (const d of DEPTHS) text += `${(d === 'standard' ? 'all' : '').padEnd(11)}${(d === 'standard' ? String(all[d].n) : '').padStart(5)}  ${d.padEnd(9)}${pct(all[d].fp, all[d].n).padStart(9)}${pct(all[d].weak, all[d].n).padStart(9)}${pct(all[d].none, all[d].n).padStart(11)}${all[d].worst.padStart(8)}${pct(all[d].hidden, all[d].n).padStart(9)}\n`;

  text += '\nWhich estimator fires on clean pictures (deep depth; share of the class\'s pictures with an LSB answer whose method says detected; per-sample rate estimates, median / 95th percentile):\n';
  text += `${'class'.padEnd(11)}${'answered'.padStart(9)}${'chi2'.padStart(8)}${'RS'.padStart(8)}${'SPA'.padStart(8)}${'WS'.padStart(8)}${'pairs'.padStart(8)}${'RS med/p95'.padStart(16)}${'SPA med/p95'.padStart(16)}${'WS med/p95'.padStart(16)}\n`;
  for (const c of classes) {
    const t = clean.get(c)!.deep;
    const answered = t.n - t.none;
    const mq = (m: string) => { const xs = t.rates.get(m) ?? []; return xs.length ? `${q(xs, 0.5).toFixed(3)}/${q(xs, 0.95).toFixed(3)}` : 'n/a'; };
    text += `${c.padEnd(11)}${String(answered).padStart(9)}${['chi_square', 'rs', 'sample_pairs', 'weighted_stego', 'histogram_pairs'].map((m) => pct(t.fired.get(m) ?? 0, answered).padStart(8)).join('')}${mq('rs').padStart(16)}${mq('sample_pairs').padStart(16)}${mq('weighted_stego').padStart(16)}\n`;
  }

  if (half === 'calibration' && flagged.size) text += await flaggedList(flagged);

  const coverN = covers.length;
  const allCovers = pictures.filter((p) => p.cls !== 'jpeg-png').length;
  text += `\nDetection: ${coverN < allCovers ? `${coverN} of ${allCovers} (evenly spread over the list)` : coverN} covers (every picture of the half but the jpeg-png ones, which are their camera JPEGs' pixels), decoded, made RGB, ${scaled} of them downscaled to ${maxSide} px on the long side (Lanczos) before embedding; seed ${seed}.\n` +
    'bpp = payload bits / (width x height); "real bpp" = what the tool says it embedded (payload and its header) per pixel, where it says it. steghide: BMP cover, -Z, passphrase; stegosuite: PNG cover (even covers) or BMP (odd), both back to PNG; outguess: JPEG q90 cover, -p 90.\n';
  text += `${'covers'.padEnd(26)}${'n'.padStart(5)}${'n/a'.padStart(6)}${'standard'.padStart(10)}${'deep'.padStart(9)}${'weak(std)'.padStart(11)}${'no answer'.padStart(11)}${'real bpp'.padStart(10)}\n`;
  const line = (r: DetRow, extra = '') => {
    const st = r.by.standard, dp = r.by.deep;
    const na = r.overCapacity + r.failed;
    return `${r.label.padEnd(26)}${String(st.n).padStart(5)}${String(na).padStart(6)}${pct(st.fp, st.n).padStart(10)}${pct(dp.fp, dp.n).padStart(9)}${pct(st.weak, st.n).padStart(11)}${pct(st.none, st.n).padStart(11)}${(r.bitsN ? (r.bitsSum / r.bitsN).toFixed(3) : '').padStart(10)}${extra}\n`;
  };
  text += line(cleanPng) + line(cleanJpeg);
  for (const tool of TOOLS) {
    for (const rate of RATES) {
      const r = rows.get(`${tool}|${rate}`)!;
      const why = [r.overCapacity ? `${r.overCapacity} over capacity` : '', r.failed ? `${r.failed} failed` : ''].filter(Boolean).join(', ');
      text += line(r, why ? `   (${why})` : '');
    }
  }
  const og = rows.get(`outguess|${RATES[0]}`)!.capacity;
  if (og.length) {
    text += `outguess capacity (its "correctable message size", bits per pixel): median ${q(og, 0.5).toFixed(3)}, 95th percentile ${q(og, 0.95).toFixed(3)}, max ${Math.max(...og).toFixed(3)} over ${og.length} covers; ` +
      `rates it carried: ${RATES.map((r) => `${r} bpp on ${rows.get(`outguess|${r}`)!.made}/${coverN}`).join(', ')}\n`;
  }
  text += '\nDetected at standard depth per class (clean = false positives of the covers as embedded):\n';
  const keys = ['clean', ...TOOLS.flatMap((t) => [0.1, 0.2].map((r) => `${t}|${r}`))];
  text += `${'class'.padEnd(11)}${keys.map((k) => k.replace('|', ' ').replace('lsb-', '').padStart(k === 'clean' ? 8 : 17)).join('')}\n`;
  for (const c of classes) {
    const m = perClass.get(c);
    if (!m) continue;
    text += `${c.padEnd(11)}${keys.map((k) => { const t = m.get(k)?.by.standard; return (t ? `${pct(t.fp, t.n)} /${t.n}` : 'n/a').padStart(k === 'clean' ? 8 : 17); }).join('')}\n`;
  }
  text += `\ntimes: clean pictures ${s(tClean - t0)} (incl. loading the corpus); covers ${s(tEnd - tClean)} with ${jobs} at once: ${made} stego files made (${made ? s(madeMs / made) : '0 s'} each on average), analysis ${s(judgeMs)} in all; total ${s(tEnd - t0)}\n` +
    `  making, per tool (summed over the ${jobs} at once): ${[...toolMs].map(([t, ms]) => `${t} ${s(ms)}`).join(', ') || 'all from the cache'}\n`;

  // ---- goals (from issue 23; meant for the held-out half)
  const goals: Goal[] = [];
  const both = (f: (d: Depth) => { ok: boolean; fig: string }) => { const a = f('standard'), b = f('deep'); return { ok: a.ok && b.ok, figure: `standard ${a.fig}; deep ${b.fig}` }; };
  const fpOf = (cs: string[], max: number) => both((d) => {
    const parts = cs.filter((c) => clean.has(c)).map((c) => { const t = clean.get(c)![d]; return { c, t, ok: t.fp <= max * t.n }; });
    return { ok: parts.every((p) => p.ok), fig: parts.map((p) => `${p.c} ${pct(p.t.fp, p.t.n)} (${p.t.fp}/${p.t.n})`).join(', ') };
  });
  goals.push({ name: 'false positives <= 1 % on camera photos (camera, jpeg-png)', ...fpOf(['camera', 'jpeg-png'], 0.01) });
  goals.push({ name: 'false positives <= 2 % in every class', ...fpOf(classes, 0.02) });
  goals.push({ name: 'no clean picture below B on steganalysis alone', ...both((d) => ({ ok: GRADES.indexOf(all[d].worst) <= 1, fig: `lowest ${all[d].worst}${all[d].fp ? ` (${all[d].fp} pictures at D)` : ''}` })) });
  goals.push({ name: 'weak evidence <= 5 % in every class', ...both((d) => {
    const parts = classes.map((c) => ({ c, t: clean.get(c)![d] }));
    return { ok: parts.every((p) => p.t.weak <= 0.05 * p.t.n), fig: parts.map((p) => `${p.c} ${pct(p.t.weak, p.t.n)}`).join(', ') };
  }) });
  for (const tool of ['lsb-replacement', 'stegosuite'] as const) {
    for (const [rate, min] of [[0.2, 0.95], [0.1, 0.8]] as const) {
      const r = rows.get(`${tool}|${rate}`)!;
      goals.push({ name: `${tool} (LSB replacement) at ${rate} bpp detected >= ${min * 100} %`, ...both((d) => ({ ok: r.by[d].n > 0 && r.by[d].fp >= min * r.by[d].n, fig: `${pct(r.by[d].fp, r.by[d].n)} of ${r.by[d].n}` })) });
    }
  }
  return { text, goals };
}

/** Calibration half only (for tuning): each flagged clean picture with the raw readings. */
async function flaggedList(flagged: Map<CorpusPicture, string>): Promise<string> {
  let text = '\nFlagged clean pictures (calibration half; raw per-sample estimates from analyseLsb at deep depth on the decoded pixels; agree = neighbouring LSBs agreeing, content.ts):\n';
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'obscura-stego-flagged-'));
  try {
    for (const [p, what] of [...flagged].sort((a, b) => a[0].cls.localeCompare(b[0].cls))) {
      let detail: string;
      try {
        const px = await decodePixels(p.file, await probe(p.file, DEFAULT_LIMITS), scratch, { limits: DEFAULT_LIMITS });
        const v = analyseLsb(px, { samplePairs: true });
        const est = (m: string) => v.estimates.find((e) => e.method === m)?.score;
        const f = (x: number | null | undefined, k = 3) => (x === null || x === undefined ? 'n/a' : x.toFixed(k));
        detail = `${px.width}x${px.height}x${px.channels} agree ${f(v.lsbAgreement)} thr/sample ${f(v.thresholdBpp === null ? null : v.thresholdBpp / (px.channels >= 3 ? 3 : 1))} RS ${f(est('rs'))} SPA ${f(est('sample_pairs'))} WS ${f(est('weighted_stego'))} chi2 p ${f(est('chi_square'), 4)} pairs bound ${f(est('histogram_pairs'))}`;
      } catch (e) {
        detail = (e as Error).message.split('\n')[0];
      }
      text += `  ${p.cls.padEnd(11)}${p.id.padEnd(22)}${what.padEnd(28)}${detail}  ${p.pkg}:${path.basename(p.path)}\n`;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return text;
}

function mergeInto(to: Tally, from: Tally): void {
  to.n += from.n; to.fp += from.fp; to.weak += from.weak; to.none += from.none; to.hidden += from.hidden;
  if (GRADES.indexOf(from.worst) > GRADES.indexOf(to.worst)) to.worst = from.worst;
}

/** node bench/accuracy/stego-tables.ts [options above] (the tools: bash deploy/setup.sh --bench) */
export async function run(args: string[]): Promise<void> {
  const arg = (k: string) => args.find((a) => a.startsWith(`--${k}=`))?.split('=')[1];
  const half = (arg('half') ?? 'held-out') as Half;
  if (half !== 'held-out' && half !== 'calibration') throw new Error('--half is calibration or held-out');
  const round = parseRound(arg('round'), half);
  const num = (k: string) => (arg(k) === undefined ? undefined : Number(arg(k)));
  if (args.includes('--make-only')) {
    process.stdout.write(await makeStegoOnly({ half, round, maxSide: num('max-side'), jobs: num('jobs'), seed: num('seed'), limit: num('limit'), covers: num('covers') }));
    return;
  }
  const { text, goals } = await stegoTables({ half, round, maxSide: num('max-side'), jobs: num('jobs'), seed: num('seed'), limit: num('limit'), covers: num('covers') });
  process.stdout.write(text);
  process.stdout.write(`\ngoals (issue 23; they count on the held-out half${half === 'held-out' ? '' : ': THIS IS THE CALIBRATION HALF, for tuning only'}):\n`);
  for (const g of goals) process.stdout.write(`  ${g.ok ? 'PASS' : 'FAIL'}  ${g.name}: ${g.figure}\n`);
}

if (import.meta.main) await run(process.argv.slice(2));
