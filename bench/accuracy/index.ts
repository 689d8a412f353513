// npm run bench -- accuracy [--half=calibration] [--round=1|2|3|4|5|6|7|8] [--only=stego|clones|decoy]: how often
// the analysis is right on pictures from outside the project (bench/accuracy/manifest.tsv). Every
// figure comes from the held-out half (round 1's held-out groups and all of rounds 2 to 8;
// --round=8: only the freshest round, nobody tuned on it); --half=calibration prints the same tables on the half
// the thresholds were set on.
//
// Tables: the corpus; steganalysis (clean pictures per class, then payloads of third-party
// tools and naive embedding per rate: stego-tables.ts); copy-move and splicing (clones.ts); this
// project's hide with and without a decoy at the same total rate (decoy-table.ts, issue 29).
// Ends with every goal of the analysis and whether the held-out half meets it.
import { corpusSummary, loadCorpus, parseRound, scopeOf, type Half } from './corpus.ts';

export interface Goal {
  name: string;
  ok: boolean;
  figure: string;
}
export interface Tables {
  text: string;
  goals: Goal[];
}

export async function run(args: string[]): Promise<void> {
  const half: Half = args.includes('--half=calibration') ? 'calibration' : 'held-out';
  const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const round = parseRound(args.find((a) => a.startsWith('--round='))?.slice('--round='.length), half);
  const scope = scopeOf(half, round);
  const t0 = performance.now();
  const pictures = await loadCorpus({ half, round });
  process.stdout.write(`Corpus, ${scope} (bench/accuracy/manifest.tsv):\n${corpusSummary(pictures)}\n`);
  const goals: Goal[] = [];
  const parts: Array<[string, () => Promise<Tables>]> = [
    ['stego', async () => (await import('./stego-tables.ts')).stegoTables({ half, round })],
    ['clones', async () => (await import('./clones.ts')).cloneTables({ half, round })],
    ['decoy', async () => (await import('./decoy-table.ts')).decoyTable({ half, round })],
  ];
  for (const [name, make] of parts) {
    if (only && only !== name) continue;
    const t = performance.now();
    const tables = await make();
    process.stdout.write(`${tables.text}\n(${name}: ${((performance.now() - t) / 1000).toFixed(0)} s)\n\n`);
    goals.push(...tables.goals);
  }
  process.stdout.write(`Goals, ${scope}:\n`);
  for (const g of goals) process.stdout.write(`  ${g.ok ? 'met    ' : 'NOT MET'}  ${g.name}: ${g.figure}\n`);
  process.stdout.write(`(${((performance.now() - t0) / 1000).toFixed(0)} s in all)\n`);
}
