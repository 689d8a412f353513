// Copy-move and splice accuracy on the outside corpus (bench/accuracy/corpus.ts), through the
// manipulation detector at deep depth, in this process (as bench/analyse.ts calls detectors):
// - clean: every camera photo of the half as it is (a false positive: a copy found, or a
//   verdict 'possibly' or 'likely manipulated');
// - clones: per photo, a textured square (96-200 px in the 1024 px copy copy-move analyses)
//   pasted elsewhere in it turned by [-20, 20] degrees and resized by [0.75, 1.33], saved as
//   JPEG q85-95 (in a small picture, at most a third of its short side; found: a clone region
//   overlaps the true source or copy); and the same square only moved (plain copies, what
//   the block matching that keypoints replaced looked for);
// - splices: a square of the next photo (a fifth of the host's short side) pasted into it,
//   saved as JPEG q90, or pasted into the decoded JPEG and saved as PNG (seen: a verdict
//   'possibly' or more, and which part saw it).
// Everything is seeded by the photo's id: the same pictures every run.
//
// Thresholds are set on the calibration half only (`--half=calibration`); figures reported are
// of the held-out half (the default).
//   node bench/accuracy/clones.ts [--half=calibration|held-out] [--round=1|2|3|4|5|6|7|8] [--limit=N]
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { manipulationDetector, type ForensicVerdict } from '../../src/media/analyse/detectors/manipulation.ts';
import type { Finding } from '../../src/media/analyse/detector.ts';
import { analyseInput } from '../../src/media/analyse/input.ts';
import { DEFAULT_LIMITS } from '../../src/media/limits.ts';
import { probe } from '../../src/media/probe.ts';
import { loadCorpus, parseRound, scopeOf, type CorpusPicture, type Half, type Round } from './corpus.ts';
import type { Goal, Tables } from './index.ts';

sharp.cache(false);

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Long side of the copy copy-move analyses (detectors/manipulation.ts). */
const ANALYSED = 1024;
const GOAL_FOUND = 0.8;
const GOAL_FALSE = 0.03;

export async function cloneTables(opts: { half?: Half; round?: Round; limit?: number; log?: (s: string) => void } = {}): Promise<Tables> {
  const half = opts.half ?? 'held-out';
  const log = opts.log ?? (() => {});
  let photos = await loadCorpus({ half, round: opts.round, cls: ['camera'], log });
  if (opts.limit) photos = photos.slice(0, opts.limit);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'obscura-bench-clones-'));
  try {
    const clean: Outcome[] = [];
    const clones: Array<Outcome & { made: Clone }> = [];
    const plain: Array<Outcome & { made: Clone }> = [];
    const splices: Array<Outcome & { kind: 'jpeg' | 'png' }> = [];
    for (const [i, photo] of photos.entries()) {
      log(`${i + 1}/${photos.length} ${photo.id}`);
      const c = await check(photo.file, dir);
      clean.push(c);
      log(`  clean: ${c.verdict?.verdict} ${c.parts.join('+')} clone ${JSON.stringify(c.verdict?.clone)} ${Math.round(c.ms)} ms`);
      const made = await makeClone(photo, dir);
      const o = await check(made.file, dir, [made.source, made.copy]);
      clones.push({ ...o, made });
      log(`  clone (angle ${made.angle.toFixed(1)}, scale ${made.scale.toFixed(2)}, side ${made.side}, q${made.quality}): ${o.found ? 'found' : 'MISSED'} ${o.verdict?.verdict} clone ${JSON.stringify(o.verdict?.clone)}`);
      const moved = await makeClone(photo, dir, true);
      const po = await check(moved.file, dir, [moved.source, moved.copy]);
      plain.push({ ...po, made: moved });
      log(`  plain copy (side ${moved.side}, q${moved.quality}): ${po.found ? 'found' : 'MISSED'} ${po.verdict?.verdict} clone ${JSON.stringify(po.verdict?.clone)}`);
      const donor = photos[(i + 1) % photos.length];
      for (const kind of ['jpeg', 'png'] as const) {
        const file = await makeSplice(photo, donor, kind, dir);
        const sp = await check(file, dir);
        splices.push({ ...sp, kind });
        log(`  splice ${kind}: ${sp.verdict?.verdict} ${sp.parts.join('+')}`);
      }
    }
    return report(scopeOf(half, opts.round), clean, clones, plain, splices);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---- the pictures ----------------------------------------------------------------------------

interface Clone {
  file: string;
  source: Box;
  copy: Box;
  angle: number;
  scale: number;
  /** Side of the source square in the analysed copy's pixels. */
  side: number;
  quality: number;
}

function random(seedText: string): () => number {
  let s = 2166136261;
  for (const c of seedText) s = Math.imul(s ^ c.charCodeAt(0), 16777619) >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/** The photo upright (EXIF orientation applied), as raw RGB. */
async function upright(file: string) {
  const { data, info } = await sharp(file).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, raw: { width: info.width, height: info.height, channels: 3 as const } };
}

/** plain: the same square moved, neither turned nor resized (what block matching looks for). */
export async function makeClone(photo: CorpusPicture, dir: string, plain = false): Promise<Clone> {
  const r = random(`clone:${photo.id}`);
  const img = await upright(photo.file);
  const k = Math.max(1, Math.max(img.width, img.height) / ANALYSED);
  // 96-200 px in the analysed copy; at most a third of a small picture's short side
  const side = Math.min(Math.round(96 + r() * 104), Math.floor(Math.min(img.width, img.height) / k / 3));
  const size = Math.round(side * k);
  const angle = plain ? (r(), 0) : -20 + 40 * r();
  const scale = plain ? (r(), 1) : 0.75 + 0.58 * r();
  const quality = Math.round(85 + 10 * r());
  const out = Math.round(size * scale);
  // the source: the most textured of 24 random squares (grey variance) that leaves room for the copy
  const big = Math.min(Math.ceil(size * 1.5), img.width, img.height);
  const grey = await sharp(img.data, { raw: img.raw }).greyscale().raw().toBuffer();
  const variance = (x: number, y: number) => {
    let a = 0;
    let b = 0;
    let n = 0;
    for (let j = y; j < y + big; j += 4) {
      for (let i = x; i < x + big; i += 4) {
        const v = grey[j * img.width + i];
        a += v;
        b += v * v;
        n++;
      }
    }
    return b / n - (a / n) ** 2;
  };
  const candidates = Array.from({ length: 24 }, () => {
    const x = Math.floor(r() * (img.width - big));
    const y = Math.floor(r() * (img.height - big));
    return { x, y, v: variance(x, y) };
  }).sort((p, q) => q.v - p.v);
  const inset = Math.round((big - size) / 2);
  let best = candidates[0];
  let copy: Box | null = null;
  // the copy: anywhere it does not touch the source
  for (const c of candidates) {
    const source = { x: c.x + inset, y: c.y + inset, width: size, height: size };
    for (let t = 0; t < 200 && !copy; t++) {
      const at = { x: Math.floor(r() * (img.width - out)), y: Math.floor(r() * (img.height - out)), width: out, height: out };
      if (!intersects(grow(at, 16), source)) copy = at;
    }
    if (copy) {
      best = c;
      break;
    }
  }
  if (!copy) throw new Error(`no room for a copy in ${photo.id}`);
  const source = { x: best.x + inset, y: best.y + inset, width: size, height: size };
  // turned about its centre (a larger square is turned, its middle cut: no empty corners), resized
  const turned = await sharp(img.data, { raw: img.raw }).extract({ left: best.x, top: best.y, width: big, height: big }).rotate(angle).png().toBuffer({ resolveWithObject: true });
  const patch = await sharp(turned.data)
    .extract({ left: Math.round((turned.info.width - size) / 2), top: Math.round((turned.info.height - size) / 2), width: size, height: size })
    .resize(out, out)
    .png()
    .toBuffer();
  const file = path.join(dir, `clone-${photo.id}${plain ? '-plain' : ''}.jpg`);
  await sharp(img.data, { raw: img.raw }).composite([{ input: patch, left: copy.x, top: copy.y }]).jpeg({ quality }).toFile(file);
  return { file, source, copy, angle, scale, side, quality };
}

async function makeSplice(host: CorpusPicture, donor: CorpusPicture, kind: 'jpeg' | 'png', dir: string): Promise<string> {
  const r = random(`splice:${host.id}:${kind}`);
  const img = await upright(host.file);
  const from = await upright(donor.file);
  const side = Math.round(Math.min(img.width, img.height) / 5);
  const d = Math.min(side, from.width, from.height);
  const patch = await sharp(from.data, { raw: from.raw })
    .extract({ left: Math.floor(r() * (from.width - d)), top: Math.floor(r() * (from.height - d)), width: d, height: d })
    .png()
    .toBuffer();
  const at = { left: Math.floor(r() * (img.width - d)), top: Math.floor(r() * (img.height - d)) };
  const file = path.join(dir, `splice-${host.id}.${kind === 'jpeg' ? 'jpg' : 'png'}`);
  const p = sharp(img.data, { raw: img.raw }).composite([{ input: patch, ...at }]);
  await (kind === 'jpeg' ? p.jpeg({ quality: 90 }) : p.png()).toFile(file);
  return file;
}

// ---- the detector ------------------------------------------------------------------------------

interface Outcome {
  verdict: ForensicVerdict | null;
  /** Parts that gave evidence: 'copy-move', 'noise', 'ELA'. */
  parts: string[];
  /** A clone region overlaps one of the true boxes (clones only). */
  found: boolean;
  ms: number;
}

async function check(file: string, dir: string, truth: Box[] = []): Promise<Outcome> {
  const outDir = await mkdtemp(path.join(dir, 'out-'));
  try {
    const t = performance.now();
    const input = analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, { depth: 'deep', outDir });
    const r = await manipulationDetector.run(input, { depth: 'deep', outDir });
    const ms = performance.now() - t;
    const v = r.verdict;
    return { verdict: v, parts: partsOf(r.findings), found: !!v?.clone?.regions.some((b) => truth.some((x) => intersects(b, x))), ms };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

function partsOf(findings: Finding[]): string[] {
  const parts: string[] = [];
  for (const f of findings) {
    if (f.severity === 'info') continue;
    if (/copies of each other/.test(f.label)) parts.push('copy-move');
    else if (/noisier/.test(f.label)) parts.push('noise');
    else if (/saved again as JPEG/.test(f.label)) parts.push('ELA');
  }
  return parts;
}

const flagged = (o: Outcome) => o.verdict?.verdict === 'possibly_manipulated' || o.verdict?.verdict === 'likely_manipulated';

// ---- the report --------------------------------------------------------------------------------

function report(scope: string, clean: Outcome[], clones: Array<Outcome & { made: Clone }>, plain: Array<Outcome & { made: Clone }>, splices: Array<Outcome & { kind: 'jpeg' | 'png' }>): Tables {
  const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '-');
  const share = (n: number, d: number) => `${n}/${d} (${pct(n, d)})`;
  const lines: string[] = [];
  const row = (cells: string[]) => lines.push(cells.map((c, i) => (i === 0 ? c.padEnd(34) : c.padStart(16))).join(''));

  lines.push(`Copy-move and splices, ${scope} camera photos (${clean.length}), manipulation detector at deep depth`);
  row(['', 'copy found', 'flagged', 'median ms']);
  const cleanCopies = clean.filter((o) => o.verdict?.clone?.method).length;
  row(['clean (false positives)', share(cleanCopies, clean.length), share(clean.filter(flagged).length, clean.length), median(clean.map((o) => o.ms))]);
  const found = clones.filter((o) => o.found).length;
  row(['clones (turned, resized, JPEG)', share(found, clones.length), share(clones.filter(flagged).length, clones.length), median(clones.map((o) => o.ms))]);
  const plainFound = plain.filter((o) => o.found).length;
  row(['plain copies (moved only, JPEG)', share(plainFound, plain.length), share(plain.filter(flagged).length, plain.length), median(plain.map((o) => o.ms))]);


  lines.push('', 'Clones by rotation and scale (found / made)');
  const buckets: Array<[string, (c: Clone) => boolean]> = [
    ['|angle| < 5°', (c) => Math.abs(c.angle) < 5],
    ['|angle| 5-12°', (c) => Math.abs(c.angle) >= 5 && Math.abs(c.angle) < 12],
    ['|angle| 12-20°', (c) => Math.abs(c.angle) >= 12],
    ['scale 0.75-0.9', (c) => c.scale < 0.9],
    ['scale 0.9-1.1', (c) => c.scale >= 0.9 && c.scale <= 1.1],
    ['scale 1.1-1.33', (c) => c.scale > 1.1],
    ['side 96-140 px (1024 px copy)', (c) => c.side < 140],
    ['side 140-200 px', (c) => c.side >= 140],
  ];
  for (const [name, test] of buckets) {
    const inside = clones.filter((o) => test(o.made));
    row([name, share(inside.filter((o) => o.found).length, inside.length)]);
  }

  lines.push('', 'Splices (a square of another photo pasted in)');
  row(['', 'flagged', 'copy-move', 'noise', 'ELA']);
  for (const kind of ['jpeg', 'png'] as const) {
    const s = splices.filter((o) => o.kind === kind);
    const by = (part: string) => share(s.filter((o) => flagged(o) && o.parts.includes(part)).length, s.length);
    row([kind === 'jpeg' ? 'saved as JPEG q90' : 'into a JPEG, saved as PNG', share(s.filter(flagged).length, s.length), by('copy-move'), by('noise'), by('ELA')]);
  }
  const falseFlags = clean.filter(flagged).length;
  row(['clean photos (for comparison)', share(falseFlags, clean.length)]);

  const goals: Goal[] = [
    { name: `clones found >= ${GOAL_FOUND * 100}% (${scope})`, ok: found >= GOAL_FOUND * clones.length, figure: pct(found, clones.length) },
    { name: `copy-move on clean photos <= ${GOAL_FALSE * 100}% (${scope})`, ok: cleanCopies <= GOAL_FALSE * clean.length, figure: pct(cleanCopies, clean.length) },
  ];
  lines.push('', ...goals.map((g) => `${g.ok ? 'met    ' : 'NOT met'}  ${g.name}: ${g.figure}`));
  return { text: lines.join('\n'), goals };
}

function median(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  return s.length ? String(Math.round(s[Math.floor(s.length / 2)])) : '-';
}

function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function grow(b: Box, by: number): Box {
  return { x: b.x - by, y: b.y - by, width: b.width + 2 * by, height: b.height + 2 * by };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const half = (arg('half') as Half) ?? 'held-out';
  const out = await cloneTables({ half, round: parseRound(arg('round'), half), limit: arg('limit') ? Number(arg('limit')) : undefined, log: (s) => process.stderr.write(`${s}\n`) });
  process.stdout.write(`${out.text}\n`);
}
