// The languages of the web pages: each named in its own script, with its direction. The API,
// the MCP endpoint and the logs stay English.

export const LANGUAGES = {
  en: { name: 'English', tag: 'en', dir: 'ltr' },
  es: { name: 'Español', tag: 'es', dir: 'ltr' },
  fr: { name: 'Français', tag: 'fr', dir: 'ltr' },
  pt: { name: 'Português', tag: 'pt', dir: 'ltr' },
  ru: { name: 'Русский', tag: 'ru', dir: 'ltr' },
  ar: { name: 'العربية', tag: 'ar', dir: 'rtl' },
  fa: { name: 'فارسی', tag: 'fa', dir: 'rtl' },
  zh: { name: '简体中文', tag: 'zh-Hans', dir: 'ltr' },
} as const;

export type Lang = keyof typeof LANGUAGES;
export type Dir = 'ltr' | 'rtl';

export const LANGS = Object.keys(LANGUAGES) as Lang[];
export const DEFAULT_LANG: Lang = 'en';

export function isLang(x: unknown): x is Lang {
  return typeof x === 'string' && Object.hasOwn(LANGUAGES, x);
}

export function dirOf(lang: Lang): Dir {
  return LANGUAGES[lang].dir;
}

/** The BCP 47 tag for `<html lang>` and `lang` attributes: Chinese is written in Simplified script. */
export function tagOf(lang: Lang): string {
  return LANGUAGES[lang].tag;
}

/**
 * The locale numbers are written in: the language's, with Latin digits for Arabic and Persian,
 * as their catalogues write them (so "2 GiB" in a sentence matches "1 to 100" in the next).
 */
export function numberTag(lang: Lang): string {
  return dirOf(lang) === 'rtl' ? `${tagOf(lang)}-u-nu-latn` : tagOf(lang);
}
