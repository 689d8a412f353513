// Lists the candidate pictures of Debian packages for a new round of the outside corpus
// (manifest.tsv): each PNG, JPEG or WebP of at least --min-side px on its short side, with its
// size, sha256, dimensions and a 16x16 mean-hash, and the nearest picture already in the
// manifest by that hash (a small distance is a near-duplicate to look at: one picture at another
// size, a light/dark twin). A file already in the manifest (same sha256) is listed as such.
//
//   apt-get download <pkg>; dpkg-deb -x <pkg>_*.deb <dir>/<pkg>
//   node bench/accuracy/survey.ts [--min-side=256] <dir>/<pkg> ... > candidates.tsv
// The classes are not given here: they are given by looking at the pictures.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { CACHE_DIR, readManifest } from './corpus.ts';

const FORMATS = new Set(['png', 'jpeg', 'webp']);

/** 16x16 grey mean-hash: one bit a cell, set where the cell is brighter than the mean. */
export async function meanHash(file: string | Buffer): Promise<bigint> {
  const px = await sharp(file).flatten({ background: '#808080' }).greyscale().resize(16, 16, { fit: 'fill' }).raw().toBuffer();
  const mean = px.reduce((a, b) => a + b, 0) / px.length;
  let h = 0n;
  for (const v of px) h = (h << 1n) | (v > mean ? 1n : 0n);
  return h;
}

export function distance(a: bigint, b: bigint): number {
  let x = a ^ b;
  let n = 0;
  while (x) {
    n += Number(x & 1n);
    x >>= 1n;
  }
  return n;
}

async function* files(dir: string): AsyncGenerator<string> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

async function main(args: string[]): Promise<void> {
  const minSide = Number(args.find((a) => a.startsWith('--min-side='))?.split('=')[1] ?? 256);
  const roots = args.filter((a) => !a.startsWith('--'));
  const known = new Map<string, string>();
  const hashes: Array<{ id: string; h: bigint }> = [];
  for (const r of await readManifest()) {
    known.set(r.sha256, r.id);
    const f = path.join(CACHE_DIR, `${r.id}${r.format === 'jpeg' ? '.jpg' : `.${r.format}`}`);
    if (existsSync(f)) hashes.push({ id: r.id, h: await meanHash(f) });
  }
  process.stderr.write(`survey: ${hashes.length} manifest pictures hashed\n`);
  process.stdout.write(['package', 'path', 'format', 'width', 'height', 'bytes', 'sha256', 'meanhash', 'nearest', 'distance'].join('\t') + '\n');
  for (const root of roots) {
    const pkg = path.basename(root);
    for await (const f of files(root)) {
      if (!/\.(png|jpe?g|webp)$/i.test(f)) continue;
      const bytes = await readFile(f);
      const meta = await sharp(bytes).metadata().catch(() => null);
      if (!meta?.format || !FORMATS.has(meta.format) || !meta.width || !meta.height) continue;
      if (Math.min(meta.width, meta.height) < minSide) continue;
      const sha = createHash('sha256').update(bytes).digest('hex');
      // a broken file (a test suite's truncated JPEG) is no candidate: it would not load in the corpus
      const h = await meanHash(bytes).catch(() => null);
      if (h === null) continue;
      let near = { id: '', d: 257 };
      for (const k of hashes) {
        const d = distance(h, k.h);
        if (d < near.d) near = { id: k.id, d };
      }
      const nearest = known.has(sha) ? `same:${known.get(sha)}` : near.id;
      const rel = '/' + path.relative(root, f);
      process.stdout.write([pkg, rel, meta.format, meta.width, meta.height, (await stat(f)).size, sha, h.toString(16).padStart(64, '0'), nearest, known.has(sha) ? 0 : near.d].join('\t') + '\n');
    }
  }
}

if (import.meta.main) await main(process.argv.slice(2));
