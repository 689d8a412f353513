// The analyse report's findings, tips and grade reasons are catalogue messages (an id and its
// values), so that the pages can say them in their language; the API's English label, tip and
// reason are formatted from the same message. Here: every English message formats with sample
// values in each of its branches, every one is used, and the English text of each finding and
// reason of real analyses (a photo with GPS, faces and text, a signed AI image, a file carrying
// a ZIP, a stegosuite picture, a video) is exactly its message's, also after the report's JSON.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { test } from './helpers/test.ts';
import { C2PA_PNG, FIXTURES, makeVideo } from './helpers/media.ts';
import { tempDir } from './helpers/service.ts';
import { analyseFile } from '../src/media/analyse/index.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { findingsEn } from '../src/i18n/catalogues/findings-en.ts';
import { english, type Message, type MessageId } from '../src/i18n/findings-format.ts';

const IDS = Object.keys(findingsEn) as MessageId[];

type Arg = { kind: 'text' } | { kind: 'plural'; keys: string[] } | { kind: 'select'; keys: string[] };

/** Every placeholder of a message, with the branches of its plurals and selects. */
function argsOf(elements: MessageFormatElement[], into = new Map<string, Arg>()): Map<string, Arg> {
  for (const el of elements) {
    if (el.type === TYPE.argument || el.type === TYPE.number) into.set(el.value, into.get(el.value) ?? { kind: 'text' });
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      const kind = el.type === TYPE.plural ? 'plural' : 'select';
      into.set(el.value, { kind, keys: Object.keys(el.options) });
      for (const o of Object.values(el.options)) argsOf(o.value, into);
    }
  }
  return into;
}

function hasPound(elements: MessageFormatElement[]): boolean {
  return elements.some((el) => el.type === TYPE.pound || ((el.type === TYPE.plural || el.type === TYPE.select) && Object.values(el.options).some((o) => hasPound(o.value))));
}

/** The number that picks a plural branch in English. */
const pick = (key: string) => (key.startsWith('=') ? Number(key.slice(1)) : key === 'one' ? 1 : 7);

test('every English finding, tip and grade message formats with sample values, in each branch; no # (it groups digits), no ICU quoting', (t) => {
  t.true(IDS.length > 100, `${IDS.length} messages`);
  for (const id of IDS) {
    const text: string = findingsEn[id];
    t.notRegex(text, /'[{}#|']/, `${id}: an apostrophe before a brace quotes it in ICU`);
    const ast = parse(text, { ignoreTag: true });
    t.false(hasPound(ast), `${id}: # formats the number with grouping ("12,345"); write {n}`);
    const args = argsOf(ast);
    const base: Record<string, string | number> = {};
    for (const [name, a] of args) base[name] = a.kind === 'plural' ? 7 : a.kind === 'select' ? 'zzz' : `<${name}>`;
    const variants = [base];
    for (const [name, a] of args) if (a.kind !== 'text') for (const key of a.keys) variants.push({ ...base, [name]: a.kind === 'plural' ? pick(key) : key });
    for (const values of variants) {
      const out = english(id, args.size ? values : undefined);
      t.is(typeof out, 'string');
      t.true(out.length > 0, id);
      t.notRegex(out, /[{}]|undefined/, `${id} with ${JSON.stringify(values)}: ${out}`);
    }
    if (args.size) t.throws(() => english(id, {}), undefined, `${id}: a missing value is an error, never silent`);
  }
});

test('every message of the catalogue is used by the analysis (by its id, or a template id naming a family of them)', (t) => {
  const src = path.resolve(import.meta.dirname, '../src');
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.includes('catalogues'));
  const code = files.map((f) => readFileSync(path.join(src, f), 'utf8')).join('\n');
  const families = [...code.matchAll(/`((?:finding|tip|grade)\.[\w.]*)\$\{/g)].map((m) => m[1]);
  const unused = IDS.filter((id) => !code.includes(`'${id}'`) && !families.some((f) => id.startsWith(f)));
  t.deepEqual(unused, []);
});

/** face-api's first demo photo (GPS, a camera, three faces) with a line of contact details
 *  written under it, its metadata kept. */
async function photoWithText(dir: string): Promise<string> {
  const demo = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="260"><rect width="100%" height="100%" fill="#fff"/><text x="60" y="100" font-family="DejaVu Sans" font-size="56" fill="#111">Contact: jane.reporter@example.org</text><text x="60" y="200" font-family="DejaVu Sans" font-size="56" fill="#111">Phone: +41 79 123 45 67</text></svg>`;
  const out = path.join(dir, 'team.jpg');
  await sharp(demo).extend({ bottom: 260, background: '#ffffff' }).composite([{ input: Buffer.from(svg), left: 0, top: 1280 }]).jpeg({ quality: 90 }).toFile(out);
  execFileSync('exiftool', ['-q', '-overwrite_original', '-TagsFromFile', demo, '-all:all', out]);
  return out;
}

test('the English label, tip and grade reason of each finding of real analyses is its message, formatted (also after the report is stored as JSON)', async (t) => {
  const dir = tempDir('obscura-messages-');
  const carrier = path.join(dir, 'carrier.png');
  writeFileSync(carrier, Buffer.concat([readFileSync(path.join(FIXTURES, 'secret-small.png')), Buffer.from('PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00a.txtPK\x05\x06' + '\0'.repeat(18), 'latin1')]));
  const video = path.join(dir, 'clip.mp4');
  writeFileSync(video, makeVideo({ seconds: 2 }));
  const files: [string, 'standard' | 'deep'][] = [
    [await photoWithText(dir), 'deep'],
    [C2PA_PNG, 'standard'],
    [carrier, 'standard'],
    [path.join(FIXTURES, 'outside/hurricane5-512-stegosuite.png'), 'standard'],
    [video, 'standard'],
  ];
  const seen = new Set<string>();
  const say = (m: Message) => english(m.id, m.values);
  for (const [file, depth] of files) {
    const a = await analyseFile(file, DEFAULT_LIMITS, { depth, outDir: tempDir('obscura-messages-out-') });
    const stored = JSON.parse(JSON.stringify(a)) as typeof a;
    for (const f of stored.verdicts.findings) {
      t.truthy(f.message, `${f.label}: no message`);
      t.is(say(f.message), f.label);
      t.is(f.tip === undefined, f.tipMessage === undefined, `${f.label}: a tip and its message go together`);
      if (f.tipMessage) t.is(say(f.tipMessage), f.tip as string);
      seen.add(f.message.id);
    }
    for (const r of stored.grade_reasons) {
      t.is(say(r.message), r.reason);
      seen.add(r.message.id);
    }
  }
  // the photo's GPS position, its faces and its text, each a message; the text exposes its owner
  for (const id of ['finding.privacy.gps_position', 'finding.faces.found', 'finding.text.found', 'finding.privacy.readable_email', 'grade.text.high', 'finding.hidden_content.appended_files', 'finding.ai_generation.declared', 'finding.video.worst_frame']) {
    t.true(seen.has(id), `${id} among ${[...seen].join(', ')}`);
  }
});
