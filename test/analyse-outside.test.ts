// Pictures nobody here made (test/fixtures/outside/, from Debian packages; the accuracy
// benchmark measures the rest of that corpus): clean camera photos must not be accused of
// hiding data. The grass ground of a Stellarium panorama was graded D ("Hidden content is
// suspected") before the steganalysis was calibrated on the outside corpus; the ColdRipple cover
// was graded D from its histogram's own one-sided pairs until WS and RS had to agree with them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { analyse } from './helpers/analyse.ts';
import { startService } from './helpers/service.ts';
import { test } from './helpers/test.ts';

const OUTSIDE = path.resolve(import.meta.dirname, 'fixtures/outside');

for (const depth of ['standard', 'deep'] as const) {
  test(`clean outside photos are graded B or better, with no sign of LSB replacement, at ${depth} depth`, async (t) => {
    const svc = await startService();
    t.teardown(() => svc.close());
    const { key } = await svc.account();
    const names = ['guereinsb.png', 'chelsea.png', 'coldripple-512.png'];
    const { poll, files } = await analyse(svc, key, names.map((n) => [n, readFileSync(path.join(OUTSIDE, n))]), { forensic_depth: depth });
    t.is(poll.status, 'completed', poll.progress_message);
    t.is(files.length, names.length);
    for (const [i, item] of files.entries()) {
      const why = `${names[i]}: ${item.grade} ${JSON.stringify(item.grade_reasons)} ${JSON.stringify(item.verdicts.hidden_content)}`;
      t.true(['A', 'B'].includes(item.grade), why);
      t.is(item.steganography_suspected, false, why);
      t.is(item.verdicts.hidden_content.lsb.evidence, 'none', why);
      t.falsy(item.grade_reasons.find((r: any) => /hidden content|steganalysis/i.test(r.reason)), why);
      t.truthy(item.verdicts.findings.find((f: any) => f.severity === 'info' && /No sign of LSB replacement/.test(f.label)), why);
    }
  });
}
