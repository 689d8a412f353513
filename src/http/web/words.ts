// The words of a page in its language: `t` for plain text (titles, attributes, options), `say`
// for text with markup (links and emphasis inside a sentence, values that are Html), escaped as
// every other value of a view.
import { translator, type MessageKey, type RichValues, type Translate } from '../../i18n/format.ts';
import { dirOf, tagOf, type Dir, type Lang } from '../../i18n/languages.ts';
import { html, type Html } from './html.ts';

export type { MessageKey } from '../../i18n/format.ts';
type Chunks = (string | Html)[];

export interface Words {
  lang: Lang;
  /** The BCP 47 tag for `lang` attributes (zh-Hans for Chinese). */
  tag: string;
  dir: Dir;
  t: Translate;
  say(key: MessageKey, values?: RichValues<Html>): Html;
}

// tags every message may use without the view naming them
const TAGS: RichValues<Html> = {
  strong: (chunks: Chunks) => html`<strong>${chunks}</strong>`,
};

const cache = new Map<Lang, Words>();

export function wordsFor(lang: Lang): Words {
  let w = cache.get(lang);
  if (!w) {
    const t = translator(lang);
    w = { lang, tag: tagOf(lang), dir: dirOf(lang), t, say: (key, values) => html`${t.parts<Html>(key, { ...TAGS, ...values })}` };
    cache.set(lang, w);
  }
  return w;
}

/** The words of views rendered without a request (and the default): English. */
export const ENGLISH: Words = wordsFor('en');

/** A tag's value: its content as a link. */
export const link =
  (href: string, cls?: string) =>
  (chunks: Chunks): Html =>
    cls ? html`<a class="${cls}" href="${href}">${chunks}</a>` : html`<a href="${href}">${chunks}</a>`;

/** Text that must keep its own direction inside a right-to-left sentence (an address, a file name, a code). */
export const ltr = (text: string | number, cls?: string): Html => (cls ? html`<bdi class="${cls}" dir="ltr">${text}</bdi>` : html`<bdi dir="ltr">${text}</bdi>`);
