// Mutated tool reports (heif-info, jxlinfo, ffprobe's JSON): the probe reads numbers and
// fields out of them, so the fuzzer swaps numbers for extreme ones, changes the JSON's types
// and shapes, and damages the bytes.
import fc from 'fast-check';
import { mutant } from './fuzz.ts';
import { seed } from './fuzz-fields.ts';

const digits = fc.oneof(
  fc.constantFrom('0', '1', '00', '65535', '65536', '4294967295', '4294967296', '9007199254740993', '1'.padEnd(400, '0'), '-1'),
  fc.stringMatching(/^[0-9]{1,30}$/),
);

/** One of the reports, with some of its numbers replaced, then maybe byte-damaged. */
export function textMutant(reports: readonly string[]): fc.Arbitrary<string> {
  const swapped = fc
    .tuple(fc.nat({ max: reports.length - 1 }), fc.array(fc.tuple(fc.nat(), digits), { maxLength: 4 }))
    .map(([i, swaps]) => {
      let text = reports[i];
      for (const [k, d] of swaps) {
        const runs = [...text.matchAll(/\d+/g)];
        if (!runs.length) break;
        const r = runs[k % runs.length];
        text = text.slice(0, r.index) + d + text.slice(r.index! + r[0].length);
      }
      return text;
    });
  const damaged = mutant(reports.map((r, i) => seed(`report${i}`, Buffer.from(r)))).map((b) => b.toString('utf8'));
  return fc.oneof({ weight: 3, arbitrary: swapped }, { weight: 2, arbitrary: damaged }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) });
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every value's path in a JSON document (containers too), so edits can reach any depth. */
function paths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) paths(v[k], [...at, k], out);
  return out;
}

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(0, -1, 1, 0.5, 1e308, -1e308, 2 ** 53 + 2, 65536, 7681, 4321, 100_000, 90, -270, 'N/A', '', '0:0', '1:0', '-1:1', '4294967295:1', '3601', '1e9', '-5', 'Infinity', 'nan', null, true, [], {}),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Keys the probe reads: edits land on these half the time, anywhere otherwise. */
const READ_KEYS = new Set(['streams', 'index', 'codec_type', 'codec_name', 'width', 'height', 'sample_aspect_ratio', 'duration', 'nb_frames', 'disposition', 'attached_pic', 'side_data_list', 'rotation', 'tags', 'rotate', 'format']);

type Edit = { path: number; read: boolean; kind: 'set' | 'delete'; value: unknown };

/** The JSON document with values replaced or removed (types and shapes included), as text. */
export function jsonMutant(docs: readonly object[]): fc.Arbitrary<string> {
  const edit: fc.Arbitrary<Edit> = fc.record({ path: fc.nat(), read: fc.boolean(), kind: fc.constantFrom('set' as const, 'set' as const, 'delete' as const), value: oddValue });
  const edited = fc.tuple(fc.nat({ max: docs.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 5 })).map(([i, edits]) => {
    let doc = structuredClone(docs[i]) as Json;
    for (const e of edits) {
      const all = paths(doc);
      const read = all.filter((q) => READ_KEYS.has(String(q[q.length - 1])));
      const pick = e.read && read.length ? read : all;
      const p = pick[e.path % pick.length];
      if (!p.length) {
        if (e.kind === 'set') doc = e.value as Json;
        continue;
      }
      const parent = p.slice(0, -1).reduce<any>((o, k) => o[k], doc);
      const key = p[p.length - 1];
      if (e.kind === 'delete') {
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete parent[key];
      } else parent[key] = e.value;
    }
    // numbers past double range are written as JSON allows, and JSON.parse makes them Infinity
    return JSON.stringify(doc).replace(/1e\+308/g, '1e999');
  });
  const texts = docs.map((d) => JSON.stringify(d));
  return fc.oneof({ weight: 4, arbitrary: edited }, { weight: 1, arbitrary: textMutant(texts) });
}
