// The analyse report's messages (findings, tips, grade reasons) formatted from their catalogue.
// A finding keeps its English label for the API, made here from the same id and values as the
// page's text, so there is one English text per message. Until the pages' format.ts exists this
// stands alone; the two are meant to be folded together.
import { IntlMessageFormat } from 'intl-messageformat';
import { findingsEn } from './catalogues/findings-en.ts';

export type MessageId = keyof typeof findingsEn;

/**
 * A value of a message: a string or number put in as it is (numbers are not regrouped or
 * rounded: pass a string where the text shows fixed decimals), or another message (a part of a
 * sentence with words of its own), formatted in the same language.
 */
export type MessageValue = string | number | Message;

export interface Message {
  id: MessageId;
  values?: Record<string, MessageValue>;
  /** Put inside another message after a colon: its first letter is lower-cased there (a
   *  video's frame finding: "At 1.20 s (...): the area ..."). */
  midSentence?: true;
}

const compiled = new Map<string, IntlMessageFormat>();

function compile(lang: string, id: MessageId, catalogue: Readonly<Record<MessageId, string>>): IntlMessageFormat {
  const key = `${lang}\u0000${id}`;
  let m = compiled.get(key);
  if (!m) {
    const text = catalogue[id];
    if (text === undefined) throw new Error(`No message ${id} in the ${lang} catalogue.`);
    // ignoreTag: a "<" in a message is text, never markup
    m = new IntlMessageFormat(text, lang, undefined, { ignoreTag: true });
    compiled.set(key, m);
  }
  return m;
}

/** A message in one language, from its catalogue; a missing key or placeholder throws. */
export function formatMessage(lang: string, catalogue: Readonly<Record<MessageId, string>>, message: Message): string {
  const values: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(message.values ?? {})) {
    if (typeof v === 'object') {
      const inner = formatMessage(lang, catalogue, v);
      values[k] = v.midSentence ? inner.charAt(0).toLocaleLowerCase(lang) + inner.slice(1) : inner;
    } else values[k] = v;
  }
  const out = compile(lang, message.id, catalogue).format(values);
  if (typeof out !== 'string') throw new Error(`Message ${message.id} did not format to text.`);
  return out;
}

/** The English text of a message (the API's labels, tips and grade reasons). */
export function english(id: MessageId, values?: Record<string, MessageValue>): string {
  return formatMessage('en', findingsEn, values ? { id, values } : { id });
}

/** The message and its English text, as a finding or a grade reason carries them. */
export function say(id: MessageId, values?: Record<string, MessageValue>): { text: string; message: Message } {
  const message: Message = values ? { id, values } : { id };
  return { text: formatMessage('en', findingsEn, message), message };
}

/** Messages as one list message: "a; b; c" with finding.part.semicolon, "a, b, c" with
 *  finding.part.comma; with `last` (finding.part.and) the last two are joined by it: "a, b and c". */
export function listOf(items: readonly Message[], joiner: MessageId, last: MessageId = joiner): Message {
  if (!items.length) throw new Error('An empty list has no message.');
  if (items.length === 1) return items[0];
  const head = items.slice(0, -1).reduce((a, b) => ({ id: joiner, values: { a, b } }));
  return { id: last, values: { a: head, b: items[items.length - 1] } };
}
