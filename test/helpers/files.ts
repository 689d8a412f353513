import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every file under dir (recursively) whose bytes contain needle. */
export function filesContaining(dir: string, needle: string | Buffer): string[] {
  const n = typeof needle === 'string' ? Buffer.from(needle) : needle;
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      const s = statSync(p, { throwIfNoEntry: false });
      if (!s) continue;
      if (s.isDirectory()) walk(p);
      else if (s.isFile() && readFileSync(p).includes(n)) hits.push(p);
    }
  };
  walk(dir);
  return hits;
}
