// Per-class precision table shared by the stego and analyse benchmarks: for each class of the
// clean corpus (test/helpers/clean-corpus.ts), the share of clean pictures called suspect
// (false positives), of weak-evidence readings, and the share caught after naive random LSB
// replacement at 0.1 and 0.2 bpp in the same pictures.
// Goals: <= 5 % false positives in every class, >= 95 % caught at 0.2 bpp.
import { embedLsbReplacement } from '../src/media/analyse/steganalysis/naive-lsb.ts';
import type { PixelImage } from '../src/media/analyse/steganalysis/types.ts';
import { CLASSES, type CleanImage } from '../test/helpers/clean-corpus.ts';

export interface Reading {
  suspected: boolean | null;
  weak: boolean;
}
type Judge = (img: PixelImage) => Promise<Reading> | Reading;

interface ClassRow {
  n: number;
  fp: number;
  weak: number;
  unanswered: number;
  d01: number;
  d02: number;
}

export async function classTable(corpus: CleanImage[], judge: Judge): Promise<{ ok: boolean; text: string; total: ClassRow }> {
  const rows = new Map<string, ClassRow>(CLASSES.map((c) => [c, { n: 0, fp: 0, weak: 0, unanswered: 0, d01: 0, d02: 0 }]));
  const total: ClassRow = { n: 0, fp: 0, weak: 0, unanswered: 0, d01: 0, d02: 0 };
  for (const [i, c] of corpus.entries()) {
    const clean = await judge(c.img);
    const s1 = await judge(embedLsbReplacement(c.img, 0.1, 31 * i + 1));
    const s2 = await judge(embedLsbReplacement(c.img, 0.2, 31 * i + 2));
    for (const r of [rows.get(c.cls)!, total]) {
      r.n++;
      if (clean.suspected) r.fp++;
      if (clean.weak) r.weak++;
      if (clean.suspected === null) r.unanswered++;
      if (s1.suspected) r.d01++;
      if (s2.suspected) r.d02++;
    }
  }
  const pct = (k: number, n: number) => (n ? `${((100 * k) / n).toFixed(1)} %` : 'n/a').padStart(9);
  let text = `${'class'.padEnd(12)}${'n'.padStart(5)}${'FP'.padStart(9)}${'weak'.padStart(9)}${'no answer'.padStart(11)}${'0.1 bpp'.padStart(9)}${'0.2 bpp'.padStart(9)}\n`;
  let ok = true;
  for (const [cls, r] of [...rows, ['all', total] as const]) {
    if (!r.n) continue;
    if (cls !== 'all' && (r.fp / r.n > 0.05 || r.d02 / r.n < 0.95)) ok = false;
    text += `${cls.padEnd(12)}${String(r.n).padStart(5)}${pct(r.fp, r.n)}${pct(r.weak, r.n)}${pct(r.unanswered, r.n).padStart(11)}${pct(r.d01, r.n)}${pct(r.d02, r.n)}\n`;
  }
  return { ok, text, total };
}
