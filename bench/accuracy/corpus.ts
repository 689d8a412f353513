// The outside corpus (bench/accuracy/manifest.tsv): pictures from Debian packages, fetched
// through the package registry into a cache that is never committed, each file checked
// against its recorded sha256. Split into a calibration half (thresholds may be set on it) and
// a held-out half (every figure reported comes from it) by a fixed hash of the picture's group,
// so that tiles of one panorama or a stereo pair never sit on both sides. That split is round 1;
// round 2's pictures (the manifest's `round` column), added once round 1's held-out half had been
// looked at while tuning, are all held out: a fresh set nobody tuned on. Round 3 is the same again,
// added once round 2 had been looked at while tuning, round 4 once round 3 had been judged,
// round 5 once rounds 3 and 4 had been judged, round 6 once round 5 had been judged, round 7
// once round 6 had been judged, and round 8 once round 7 had been judged: each held out whole; the newest is the blind one.
//
// 'jpeg-png' pictures are made here: every camera JPEG decoded and saved as PNG, the way
// pictures often reach people (a JPEG re-saved losslessly). They share their source's group.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';

const run = promisify(execFile);

export type PictureClass = 'camera' | 'astronomy' | 'artwork' | 'screenshot' | 'jpeg-png';
export const PICTURE_CLASSES: readonly PictureClass[] = ['camera', 'jpeg-png', 'astronomy', 'artwork', 'screenshot'];
export type Half = 'calibration' | 'held-out';
/** A new round is one more number here; everything else follows from this list. */
export const ROUNDS = [1, 2, 3, 4, 5, 6, 7, 8] as const;
export type Round = (typeof ROUNDS)[number];
/** rounds added after tuning had looked at the ones before (every one after the first): all held out, no calibration half */
const HELD_OUT_ROUNDS: ReadonlySet<Round> = new Set(ROUNDS.filter((r) => r > 1));
const isRound = (v: string): boolean => ROUNDS.some((r) => String(r) === v);
/** "1, 2, 3, 4, 5, 6, 7 or 8" */
const ROUND_WORDS = `${ROUNDS.slice(0, -1).join(', ')} or ${ROUNDS[ROUNDS.length - 1]}`;

export interface CorpusPicture {
  /** first 16 hex digits of the source file's sha256 ('<id>-png' for a jpeg-png picture) */
  id: string;
  cls: PictureClass;
  group: string;
  pkg: string;
  version: string;
  /** the file's path inside the package */
  path: string;
  licence: string;
  width: number;
  height: number;
  half: Half;
  /** the manifest round the picture came in (rounds 2 to 8 are all held out) */
  round: Round;
  /** the cached file */
  file: string;
}

const MANIFEST = new URL('./manifest.tsv', import.meta.url);
export const CACHE_DIR = process.env.OBSCURA_CORPUS_CACHE ?? path.resolve(new URL('../..', import.meta.url).pathname, '.cache/corpus');
const SPLIT_SALT = 'obscura-accuracy-split-v1:';

/** `--round=1|2|3|4|5|6|7|8` of the bench's command lines: only that round's pictures; none: every round.
 *  Rounds 2 to 8 are all held out, so they have no calibration half. */
export function parseRound(value: string | undefined, half: Half): Round | undefined {
  if (value === undefined) return undefined;
  if (!isRound(value)) throw new Error(`--round is ${ROUND_WORDS}, not '${value}'`);
  const round = Number(value) as Round;
  if (HELD_OUT_ROUNDS.has(round) && half === 'calibration') throw new Error(`--round=${round} has no calibration half: every round-${round} picture is held out`);
  return round;
}

/** "held-out half" or "held-out half, round 2": what a table was made on. */
export const scopeOf = (half: Half, round?: Round) => `${half} half${round ? `, round ${round}` : ''}`;

/** The fixed split: round 1 by the first bit of a salted hash of the group (half of the groups);
 *  every picture of rounds 2 to 8 is held out. */
export function halfOf(group: string, round: Round = 1): Half {
  if (HELD_OUT_ROUNDS.has(round)) return 'held-out';
  return createHash('sha256').update(SPLIT_SALT + group).digest()[0] < 128 ? 'held-out' : 'calibration';
}

interface Row {
  id: string;
  cls: Exclude<PictureClass, 'jpeg-png'>;
  group: string;
  pkg: string;
  version: string;
  path: string;
  width: number;
  height: number;
  format: string;
  sha256: string;
  licence: string;
  round: Round;
}

export async function readManifest(): Promise<Row[]> {
  const lines = (await readFile(MANIFEST, 'utf8')).split('\n').filter((l) => l && !l.startsWith('#'));
  const [head, ...body] = lines;
  const cols = head.split('\t');
  return body.map((l) => {
    const f = Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v]));
    if (!isRound(f.round)) throw new Error(`manifest.tsv: ${f.id} has round '${f.round}' (${ROUND_WORDS})`);
    const round = Number(f.round) as Round;
    return { id: f.id, cls: f.class as Row['cls'], group: f.group, pkg: f.package, version: f.version, path: f.path, width: +f.width, height: +f.height, format: f.format, sha256: f.sha256, licence: f.licence, round };
  });
}

const extOf = (r: Row) => (r.format === 'jpeg' ? '.jpg' : `.${r.format}`);
const cachedFile = (r: Row) => path.join(CACHE_DIR, `${r.id}${extOf(r)}`);

/** Downloads the packages whose pictures are not cached yet and copies those pictures in. */
async function fetchMissing(rows: Row[], log: (s: string) => void): Promise<void> {
  const missing = rows.filter((r) => !existsSync(cachedFile(r)));
  if (!missing.length) return;
  await mkdir(CACHE_DIR, { recursive: true });
  const byPkg = Map.groupBy(missing, (r) => r.pkg);
  log(`corpus: fetching ${missing.length} pictures from ${byPkg.size} Debian packages into ${CACHE_DIR}`);
  const failures: string[] = [];
  await Promise.all(
    [...byPkg].map(async ([pkg, want]) => {
      const tmp = await mkdtemp(path.join(os.tmpdir(), 'obscura-corpus-'));
      try {
        // the recorded version first; a newer one still serves every file whose hash is unchanged
        try {
          await run('apt-get', ['download', `${pkg}=${want[0].version}`], { cwd: tmp });
        } catch {
          await run('apt-get', ['download', pkg], { cwd: tmp });
        }
        const deb = (await readdir(tmp)).find((f) => f.endsWith('.deb'));
        if (!deb) throw new Error('apt-get download gave no .deb');
        await run('dpkg-deb', ['-x', deb, 'root'], { cwd: tmp });
        for (const r of want) {
          const src = path.join(tmp, 'root', r.path);
          const bytes = await readFile(src).catch(() => null);
          if (!bytes || createHash('sha256').update(bytes).digest('hex') !== r.sha256) {
            failures.push(`${pkg}${r.path}: ${bytes ? 'changed' : 'missing'} in the package`);
            continue;
          }
          const part = `${cachedFile(r)}.part`;
          await copyFile(src, part);
          await rename(part, cachedFile(r));
        }
      } catch (e) {
        failures.push(`${pkg}: ${(e as Error).message.split('\n')[0]}`);
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    }),
  );
  if (failures.length) log(`corpus: ${failures.length} not fetched (left out):\n  ${failures.slice(0, 10).join('\n  ')}`);
}

/** A camera JPEG decoded and saved as PNG (no metadata), cached beside its source. */
async function jpegPng(r: Row): Promise<string> {
  const out = path.join(CACHE_DIR, `${r.id}-png.png`);
  if (!existsSync(out)) {
    await sharp(cachedFile(r)).png({ compressionLevel: 6 }).toFile(`${out}.part`);
    await rename(`${out}.part`, out);
  }
  return out;
}

/** The corpus, fetched into the cache on first use. */
export async function loadCorpus(opts: { half?: Half; round?: Round; cls?: readonly PictureClass[]; log?: (s: string) => void } = {}): Promise<CorpusPicture[]> {
  const rows = (await readManifest()).filter((r) => !opts.round || r.round === opts.round);
  await fetchMissing(rows, opts.log ?? ((s) => process.stderr.write(`${s}\n`)));
  const out: CorpusPicture[] = [];
  for (const r of rows) {
    if (!existsSync(cachedFile(r))) continue;
    const base = { group: r.group, pkg: r.pkg, version: r.version, path: r.path, licence: r.licence, width: r.width, height: r.height, half: halfOf(r.group, r.round), round: r.round };
    out.push({ ...base, id: r.id, cls: r.cls, file: cachedFile(r) });
    if (r.cls === 'camera' && r.format === 'jpeg') out.push({ ...base, id: `${r.id}-png`, cls: 'jpeg-png', file: await jpegPng(r) });
  }
  return out.filter((p) => (!opts.half || p.half === opts.half) && (!opts.cls || opts.cls.includes(p.cls)));
}

/** How many pictures and groups each half holds, per class (for the tables' headers). */
export function corpusSummary(pictures: readonly CorpusPicture[]): string {
  const lines = PICTURE_CLASSES.map((c) => {
    const of = pictures.filter((p) => p.cls === c);
    return `${c.padEnd(11)} ${String(of.length).padStart(4)} pictures, ${String(new Set(of.map((p) => p.group)).size).padStart(4)} groups`;
  });
  const rounds = ROUNDS.filter((r) => pictures.some((p) => p.round === r)).map((r) => {
    const of = pictures.filter((p) => p.round === r);
    return `round ${r}: ${of.length} pictures (${PICTURE_CLASSES.map((c) => `${c} ${of.filter((p) => p.cls === c).length}`).join(', ')})`;
  });
  const pkgs = [...new Set(pictures.map((p) => p.pkg))].sort();
  return `${lines.join('\n')}\n${rounds.join('\n')}\nfrom ${pkgs.length} Debian packages: ${pkgs.join(', ')}\n`;
}
