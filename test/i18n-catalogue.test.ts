// The catalogues guard the translations: every language has exactly English's keys, every key is
// used by the code, every message parses and has English's placeholders (names and kinds), and a
// key nobody wrote throws rather than falling back to English.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { test } from './helpers/test.ts';
import { CATALOGUES, FINDINGS_CATALOGUES } from '../src/i18n/catalogues/index.ts';
import { findingsEn } from '../src/i18n/catalogues/findings-en.ts';
import { en } from '../src/i18n/catalogues/en.ts';
import { english, hasMessage, translator, type MessageKey } from '../src/i18n/format.ts';
import { LANGS, LANGUAGES, dirOf, isLang, tagOf } from '../src/i18n/languages.ts';

const SRC = path.resolve(import.meta.dirname, '../src');
const CATALOGUE_DIR = path.join(SRC, 'i18n', 'catalogues');

/**
 * Keys the code makes at run time, and how to tell one is used: `error.<code>` is shown for an
 * AppError of that code, so the code must occur as a string somewhere in src.
 */
const DYNAMIC: { prefix: string; used: (rest: string, source: string) => boolean }[] = [
  { prefix: 'error.', used: (code, source) => source.includes(`'${code}'`) },
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (p === CATALOGUE_DIR) return [];
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** The placeholders of a message: kind and name of every value, plural, select and tag, nested ones too. */
function placeholders(elements: MessageFormatElement[], out = new Set<string>()): Set<string> {
  for (const e of elements) {
    if (e.type === TYPE.argument) out.add(`argument ${e.value}`);
    else if (e.type === TYPE.number) out.add(`number ${e.value}`);
    else if (e.type === TYPE.date || e.type === TYPE.time) out.add(`date ${e.value}`);
    else if (e.type === TYPE.plural) {
      out.add(`plural ${e.value}`);
      for (const o of Object.values(e.options)) placeholders(o.value, out);
    } else if (e.type === TYPE.select) {
      out.add(`select ${e.value}:${Object.keys(e.options).sort().join('|')}`);
      for (const o of Object.values(e.options)) placeholders(o.value, out);
    } else if (e.type === TYPE.tag) {
      out.add(`tag ${e.value}`);
      placeholders(e.children, out);
    }
  }
  return out;
}

const sorted = (s: Set<string>) => [...s].sort();

test('eight languages, each named in its own script; Arabic and Persian right to left; Chinese is zh-Hans', (t) => {
  t.deepEqual(LANGS, ['en', 'es', 'fr', 'pt', 'ru', 'ar', 'fa', 'zh']);
  t.deepEqual(
    LANGS.filter((l) => dirOf(l) === 'rtl'),
    ['ar', 'fa'],
  );
  t.is(tagOf('zh'), 'zh-Hans');
  t.is(LANGUAGES.ru.name, 'Русский');
  t.true(isLang('fa'));
  t.false(isLang('zh-Hant'));
  t.false(isLang('__proto__'));
  t.false(isLang(undefined));
});

test('every catalogue has exactly English’s keys', (t) => {
  const keys = Object.keys(en).sort();
  t.true(keys.length > 100, `${keys.length} keys`);
  for (const lang of LANGS) t.deepEqual(Object.keys(CATALOGUES[lang]).sort(), keys, lang);
});

test('every key is used by the code: named in src, or made from a code the source has', (t) => {
  const source = sources(SRC)
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const unused = Object.keys(en).filter((key) => {
    const dynamic = DYNAMIC.find((d) => key.startsWith(d.prefix));
    if (dynamic && dynamic.used(key.slice(dynamic.prefix.length), source)) return false;
    return !source.includes(`'${key}'`) && !source.includes(`"${key}"`);
  });
  t.deepEqual(unused, [], 'keys no page, mail or error uses');
});

test('every message parses, and has English’s placeholders (names and kinds) in every language', (t) => {
  for (const [key, message] of Object.entries(en)) {
    const want = sorted(placeholders(parse(message)));
    for (const lang of LANGS) {
      const text: string = CATALOGUES[lang][key as MessageKey];
      let got: string[] = [];
      t.notThrows(() => {
        got = sorted(placeholders(parse(text)));
        new IntlMessageFormat(text, tagOf(lang));
      }, `${lang} ${key}`);
      t.deepEqual(got, want, `${lang} ${key}`);
    }
  }
});

test('error messages take no values the error might not carry', (t) => {
  // the pages fill error.<code> from the error's details, which vary: the messages take none
  for (const [key, message] of Object.entries(en)) if (key.startsWith('error.')) t.deepEqual(sorted(placeholders(parse(message))), [], key);
});

test('the translator: plurals, values, tags as parts; a key nobody wrote throws', (t) => {
  t.is(english('account.sessions.othersEnded', { count: 1 }), '1 other session is ended: only this browser is signed in.');
  t.is(english('account.sessions.othersEnded', { count: 2 }), '2 other sessions are ended: only this browser is signed in.');
  t.is(english('duration.d', { n: 7 }), '7 days');
  t.deepEqual(
    translator('en').parts<{ href: string }>('signIn.noAccount', { a: (chunks) => ({ href: `/sign-up:${chunks.join('')}` }) }),
    ['No account yet? ', { href: '/sign-up:Sign up' }, '.'],
  );
  t.throws(() => translator('fr')('no.such.key' as MessageKey), { message: /no message no\.such\.key in the fr catalogue/ });
  t.throws(() => english('duration.d'), undefined, 'a missing value is an error, not a blank');
  t.true(hasMessage('error.csrf_failed'));
  t.false(hasMessage('error.no_such_code'));
  t.false(hasMessage('toString'));
});

// The analyse report's messages (findings-<lang>.ts) are formatted with ignoreTag: a "<" there is
// text. The same guard: English's keys, and English's placeholders, in every language.
test('every findings catalogue has exactly English’s keys, and each message English’s placeholders', (t) => {
  const keys = Object.keys(findingsEn).sort();
  t.true(keys.length > 100, `${keys.length} keys`);
  for (const lang of LANGS) t.deepEqual(Object.keys(FINDINGS_CATALOGUES[lang]).sort(), keys, lang);
  for (const [key, message] of Object.entries(findingsEn)) {
    const want = sorted(placeholders(parse(message, { ignoreTag: true })));
    for (const lang of LANGS) {
      const text: string = FINDINGS_CATALOGUES[lang][key as keyof typeof findingsEn];
      let got: string[] = [];
      t.notThrows(() => {
        got = sorted(placeholders(parse(text, { ignoreTag: true })));
        new IntlMessageFormat(text, tagOf(lang), undefined, { ignoreTag: true });
      }, `${lang} ${key}`);
      t.deepEqual(got, want, `${lang} ${key}`);
    }
  }
});
