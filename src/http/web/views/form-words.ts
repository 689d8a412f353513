// Findings name the API's options (`convert with redact ["faces"]`); a person on the pages
// knows the forms instead. The API's phrases are replaced here by the forms' own labels.
import { API_WORDS, type ApiWord } from '../../../media/analyse/api-words.ts';
import { html, type Html } from '../html.ts';
import { ENGLISH, link, type Words } from '../words.ts';

function formWords(w: Words): Record<ApiWord, Html> {
  const redact = (option: 'form.convert.redactFaces' | 'form.convert.redactText') =>
    w.say('report.formWords.redact', { link: link('/convert'), page: w.t('nav.convert'), option: w.t(option), legend: w.t('form.convert.redact') });
  return {
    redactFaces: redact('form.convert.redactFaces'),
    redactText: redact('form.convert.redactText'),
    facesOff: html`${w.t('report.formWords.optionOff', { option: w.t('form.analyse.findFaces') })}`,
    textOff: html`${w.t('report.formWords.optionOff', { option: w.t('form.analyse.findText') })}`,
    countNull: html`${w.t('report.formWords.countNull')}`,
    countNoAnswer: html`${w.t('report.formWords.countNull')}`,
  };
}

const PHRASES = Object.entries(API_WORDS) as [ApiWord, string][];

/** The text, escaped, with every API phrase in it put in the words of the forms, in the page's language. */
export function inFormWords(text: string, w: Words = ENGLISH): Html {
  const parts: (string | Html)[] = [];
  let words: Record<ApiWord, Html> | undefined;
  let rest = text;
  for (;;) {
    const next = PHRASES.map(([word, phrase]) => ({ word, phrase, at: rest.indexOf(phrase) }))
      .filter((p) => p.at >= 0)
      .sort((a, b) => a.at - b.at || b.phrase.length - a.phrase.length)[0];
    if (!next) break;
    words ??= formWords(w);
    parts.push(rest.slice(0, next.at), words[next.word]);
    rest = rest.slice(next.at + next.phrase.length);
  }
  parts.push(rest);
  return html`${parts}`;
}
