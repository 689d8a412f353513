// Analyse: (1) standard-depth latency for a 12 MP JPEG through the whole API (service in a
// child process: upload, job, poll, result), with the pipeline's own per-detector times and
// deep depth for comparison; (2) the hidden-content detector's detection table on the stego
// corpus (each cover written as a PNG file and analysed as the product does it, at standard
// depth: chi-square, RS and WS; Sample Pairs joins at deep); (3) full analysis with faces and
// text of a 12 MP photo and of a 30 s 1080p video (analyse-full.ts); (4) false positives per
// class of clean picture beside detection at 0.1 and 0.2 bpp, through the detector (clean-classes.ts).
// npm run bench -- analyse [--corpus=small|large] [--only=latency|full|detection|classes]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { SERVICE_NODE_FLAGS, exited, freePort, keyFor, startChild } from '../test/helpers/child.ts';
import { analyseInput } from '../src/media/analyse/input.ts';
import { hiddenContentDetector } from '../src/media/analyse/detectors/hidden-content.ts';
import { embedLsbReplacement } from '../src/media/analyse/steganalysis/naive-lsb.ts';
import { probe } from '../src/media/probe.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { buildCorpus } from './stego-corpus.ts';
import { fullAnalysis } from './analyse-full.ts';
import { classTable } from './clean-classes.ts';
import { buildCleanCorpus, writePng, type CorpusSize } from '../test/helpers/clean-corpus.ts';

const PHOTO = path.resolve(import.meta.dirname, '../test/fixtures/photo-mountain.jpg');
const RATES = [0.05, 0.1, 0.2, 0.4];

export async function run(args: string[] = []): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-bench-analyse-'));
  const sizeArg = args.find((a) => a.startsWith('--corpus='));
  const only = args.find((a) => a.startsWith('--only='))?.split('=')[1];
  try {
    if (!only || only === 'latency') await latency(dir);
    if (!only || only === 'full') await fullAnalysis(dir);
    if (!only || only === 'detection') await detection(dir);
    if (!only || only === 'classes') await classes(dir, (sizeArg ? sizeArg.split('=')[1] : 'large') as CorpusSize);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function latency(dir: string): Promise<void> {
  const jpeg = await sharp(PHOTO).resize(4000, 3000, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
  const dataDir = path.join(dir, 'data');
  const key = await keyFor(dataDir, 'bench@example.org');
  const port = await freePort();
  const child = await startChild(dataDir, port, { OBSCURA_LOG_LEVEL: 'warn' }, SERVICE_NODE_FLAGS);
  const origin = `http://127.0.0.1:${port}`;
  const h = { 'X-Api-Key': key, 'Content-Type': 'application/json' };
  const once = async (depth: string) => {
    const t = performance.now();
    const uid = ((await (await fetch(`${origin}/api/analyse/session`, { method: 'POST', headers: h, body: '{}' })).json()) as any).upload_uid;
    const up = await fetch(`${origin}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': 'photo.jpg' }, body: jpeg });
    if (up.status !== 201) throw new Error(`upload ${up.status}`);
    const start = (await (await fetch(`${origin}/api/analyse/job`, { method: 'POST', headers: h, body: JSON.stringify({ upload_uid: uid, forensic_depth: depth }) })).json()) as any;
    for (;;) {
      const p = (await (await fetch(`${origin}/api/analyse/job/${uid}?wait=30`, { headers: h })).json()) as any;
      if (p.status === 'completed') break;
      if (p.status === 'failed' || p.status === 'partial') throw new Error(p.progress_message);
    }
    const result = (await (await fetch(`${origin}/api/analyse/result/${start.job_uid}`, { headers: h })).json()) as any;
    return { ms: performance.now() - t, grade: result.files[0].grade };
  };
  try {
    const standard = [];
    for (let i = 0; i < 3; i++) standard.push(await once('standard'));
    const deep = await once('deep');
    const ms = standard.map((s) => s.ms).sort((a, b) => a - b);
    process.stdout.write(`12 MP JPEG (4000x3000, q90, ${(jpeg.length / 1e6).toFixed(1)} MB) through the whole API, upload to result:\n`);
    process.stdout.write(`  standard depth: median ${(ms[1] / 1000).toFixed(2)} s of 3 (${ms.map((m) => (m / 1000).toFixed(2)).join(', ')}) (goal <= 3 s); grade ${standard[0].grade}\n`);
    process.stdout.write(`  deep depth: ${(deep.ms / 1000).toFixed(2)} s (copy-move, Sample Pairs, full-resolution maps)\n`);
  } finally {
    child.kill('SIGTERM');
    await exited(child);
  }
  // where the time goes, in-process
  const { analyseFile } = await import('../src/media/analyse/index.ts');
  const file = path.join(dir, 'photo.jpg');
  writeFileSync(file, jpeg);
  const out = mkdtempSync(path.join(dir, 'out-'));
  const r = await analyseFile(file, DEFAULT_LIMITS, { depth: 'standard', outDir: out });
  process.stdout.write(`  per detector, standard, in-process (ms): ${Object.entries(r.timings_ms).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
}

async function detection(dir: string): Promise<void> {
  const covers = await buildCorpus();
  const rows: { label: string; hits: number; n: number; err: number[] }[] = [{ label: 'clean (false positives)', hits: 0, n: 0, err: [] }, ...RATES.map((r) => ({ label: `naive LSB ${r} bpp`, hits: 0, n: 0, err: [] as number[] }))];
  const options = { depth: 'standard' as const, outDir: dir };
  const verdictOf = async (img: (typeof covers)[number]['img'], name: string) => {
    const file = path.join(dir, name);
    await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: img.channels } }).png({ compressionLevel: 1 }).toFile(file);
    const r = await hiddenContentDetector.run(analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, options), options);
    return r.verdict!;
  };
  for (const [i, c] of covers.entries()) {
    const v = await verdictOf(c.img, 'clean.png');
    rows[0].n++;
    if (v.suspected) rows[0].hits++;
    for (const [j, rate] of RATES.entries()) {
      const s = await verdictOf(embedLsbReplacement(c.img, rate, 7000 + 10 * i + j), 'stego.png');
      rows[j + 1].n++;
      if (s.suspected) rows[j + 1].hits++;
      if (s.lsb?.payload_bpp != null) rows[j + 1].err.push(Math.abs(s.lsb.payload_bpp - rate));
    }
  }
  process.stdout.write(`\nhidden-content detector, standard depth, ${covers.length} natural covers written as PNG:\n`);
  process.stdout.write(`${'covers'.padEnd(28)} ${'suspected'.padStart(9)}  mean |estimate error|\n`);
  for (const r of rows) {
    const mean = r.err.length ? (r.err.reduce((a, b) => a + b, 0) / r.err.length).toFixed(3) : '-';
    process.stdout.write(`${r.label.padEnd(28)} ${((100 * r.hits) / r.n).toFixed(1).padStart(7)} %  ${mean}\n`);
  }
  const fp = rows[0].hits / rows[0].n;
  const at02 = rows[3].hits / rows[3].n;
  process.stdout.write(`goal at 0.2 bpp: detection >= 0.95 at <= 0.05 false positives: ${at02.toFixed(3)} at ${fp.toFixed(3)} -> ${at02 >= 0.95 && fp <= 0.05 ? 'PASS' : 'FAIL'}\n`);
}

async function classes(dir: string, size: CorpusSize): Promise<void> {
  const corpus = await buildCleanCorpus(size);
  const options = { depth: 'standard' as const, outDir: dir };
  const file = path.join(dir, 'class.png');
  const table = await classTable(corpus, async (img) => {
    await writePng(img, file);
    const r = await hiddenContentDetector.run(analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, options), options);
    return { suspected: r.verdict!.suspected, weak: r.findings.some((f) => f.severity === 'low' && /Weak signs of LSB replacement/.test(f.label)) };
  });
  process.stdout.write(`\nhidden-content detector, standard depth, clean corpus (${size}, ${corpus.length} pictures written as PNG) and naive LSB in the same pictures:\n${table.text}`);
  process.stdout.write(`goal: <= 5 % false positives in every class, >= 95 % caught at 0.2 bpp in every class -> ${table.ok ? 'PASS' : 'FAIL'}\n`);
}
