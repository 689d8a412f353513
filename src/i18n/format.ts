// Messages in ICU MessageFormat (plurals, placeholders, tags for links), compiled once per
// language and key. A key no catalogue has is a bug: it throws, it never falls back to English.
import { IntlMessageFormat } from 'intl-messageformat';
import { CATALOGUES, type MessageKey } from './catalogues/index.ts';
import { numberTag, type Lang } from './languages.ts';

export type { MessageKey } from './catalogues/index.ts';
export type Values = Record<string, string | number>;
/** Values of a message with markup: a tag's value takes the tag's content and wraps it. */
export type RichValues<T> = Record<string, string | number | T | ((chunks: (string | T)[]) => T)>;

export interface Translate {
  (key: MessageKey, values?: Values): string;
  readonly lang: Lang;
  /** The message as parts: literal text (strings, to be escaped by the caller) and the caller's own objects. */
  parts<T>(key: MessageKey, values?: RichValues<T>): (string | T)[];
}

const compiled = new Map<string, IntlMessageFormat>();

function message(lang: Lang, key: string): IntlMessageFormat {
  const id = `${lang}\u0000${key}`;
  let mf = compiled.get(id);
  if (!mf) {
    const catalogue: Record<string, string> = CATALOGUES[lang];
    if (!Object.hasOwn(catalogue, key)) throw new Error(`no message ${key} in the ${lang} catalogue`);
    mf = new IntlMessageFormat(catalogue[key], numberTag(lang));
    compiled.set(id, mf);
  }
  return mf;
}

/** Whether the catalogues have this key (for keys made at run time, such as `error.<code>`). */
export function hasMessage(key: string): key is MessageKey {
  return Object.hasOwn(CATALOGUES.en, key);
}

const translators = new Map<Lang, Translate>();

export function translator(lang: Lang): Translate {
  let t = translators.get(lang);
  if (!t) {
    const fn = (key: MessageKey, values?: Values): string => {
      const out = message(lang, key).format(values);
      if (typeof out !== 'string') throw new Error(`message ${key} has markup: render it with parts()`);
      return out;
    };
    t = Object.assign(fn, {
      lang,
      parts<T>(key: MessageKey, values?: RichValues<T>): (string | T)[] {
        const out = message(lang, key).format<T>(values as never);
        return (Array.isArray(out) ? out : [out]) as (string | T)[];
      },
    });
    translators.set(lang, t);
  }
  return t;
}

/** English: the text of a message where one English text is needed (the API's labels, logs). */
export function english(key: MessageKey, values?: Values): string {
  return translator('en')(key, values);
}
