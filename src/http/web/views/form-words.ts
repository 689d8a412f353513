// Findings name the API's options (`convert with redact ["faces"]`); a person on the pages
// knows the forms instead. The API's phrases are replaced here by the forms' own labels.
import { API_WORDS, type ApiWord } from '../../../media/analyse/api-words.ts';
import { html, type Html } from '../html.ts';
import { LABELS } from './forms.ts';

const convert = html`use the <a href="/convert">${LABELS.convertPage}</a> page`;

const FORM_WORDS: Record<ApiWord, Html> = {
  redactFaces: html`${convert} with “${LABELS.redactFaces}” ticked under “${LABELS.redactLegend}”`,
  redactText: html`${convert} with “${LABELS.redactText}” ticked under “${LABELS.redactLegend}”`,
  facesOff: html`(“${LABELS.findFaces}” was not ticked)`,
  textOff: html`(“${LABELS.findText}” was not ticked)`,
  countNull: html`count shows “no answer”, not zero`,
  countNoAnswer: html`count shows “no answer”, not zero`,
};

const PHRASES = Object.entries(API_WORDS) as [ApiWord, string][];

/** The text, escaped, with every API phrase in it put in the words of the forms. */
export function inFormWords(text: string): Html {
  const parts: (string | Html)[] = [];
  let rest = text;
  for (;;) {
    const next = PHRASES.map(([word, phrase]) => ({ word, phrase, at: rest.indexOf(phrase) }))
      .filter((p) => p.at >= 0)
      .sort((a, b) => a.at - b.at || b.phrase.length - a.phrase.length)[0];
    if (!next) break;
    parts.push(rest.slice(0, next.at), FORM_WORDS[next.word]);
    rest = rest.slice(next.at + next.phrase.length);
  }
  parts.push(rest);
  return html`${parts}`;
}
