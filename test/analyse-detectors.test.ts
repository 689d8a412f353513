// The detectors declare what the pipeline needs to know about them (detector.ts): their verdict
// key, their place among the verdicts and their part of the grade. index.ts and grade.ts hold
// nothing about one detector in particular, so a file's verdicts are exactly the declared keys.
import path from 'node:path';
import { test } from './helpers/test.ts';
import { FIXTURES } from './helpers/media.ts';
import { tempDir } from './helpers/service.ts';
import { analyseFile, byVerdictOrder, DETECTORS } from '../src/media/analyse/index.ts';
import { GRADE_SECTIONS } from '../src/media/analyse/grade.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';

test('every detector declares a unique snake_case verdict key and place; grade rules name a rubric section', (t) => {
  const keys = DETECTORS.map((d) => d.name);
  t.is(new Set(keys).size, keys.length, `duplicate verdict key in ${keys.join(', ')}`);
  for (const k of keys) t.regex(k, /^[a-z][a-z0-9_]*$/);
  t.false(keys.includes('findings'), '"findings" is taken by the findings list');
  const orders = DETECTORS.map((d) => d.verdictOrder);
  t.is(new Set(orders).size, orders.length, 'two detectors at the same place among the verdicts');
  for (const d of DETECTORS) if (d.grade) t.true(GRADE_SECTIONS.includes(d.grade.section), d.name);
});

test('the verdict keys of a real analysis are exactly the declared ones, in the declared order', async (t) => {
  const analysis = await analyseFile(path.join(FIXTURES, 'secret-small.png'), DEFAULT_LIMITS, {
    depth: 'standard',
    outDir: tempDir('obscura-analyse-'),
    faces: { enabled: false, sensitivity: 0.5 },
    text: { enabled: false },
  });
  const keys = DETECTORS.map((d) => d.name);
  t.deepEqual(Object.keys(analysis.verdicts), [...byVerdictOrder(DETECTORS).map((d) => d.name), 'findings']);
  t.deepEqual(Object.keys(analysis.timings_ms), keys);
  for (const f of analysis.verdicts.findings) t.true(keys.includes(f.detector), f.detector);
});
