// Which language a request gets when the person has not chosen one: Accept-Language, matched by
// its primary subtag, unless it is Tor Browser's spoofed value (every Tor Browser sends it,
// whatever its user reads, so it says nothing about the person); otherwise English.
import { DEFAULT_LANG, isLang, type Lang } from './languages.ts';

/** What Tor Browser sends to resist fingerprinting (with and without the q-value). */
const TOR_BROWSER = new Set(['en-US,en;q=0.5', 'en-US,en']);

/** Chinese in Traditional script: not offered (the catalogue is Simplified). */
const TRADITIONAL = /^zh-(hant|tw|hk|mo)\b/i;

export function fromAcceptLanguage(header: string | undefined): Lang {
  if (!header) return DEFAULT_LANG;
  const value = header.replace(/\s+/g, '');
  if (TOR_BROWSER.has(value)) return DEFAULT_LANG;
  const ranges = value
    .split(',')
    .slice(0, 32) // a header is short; a longer list is not worth reading
    .map((part, i) => {
      const [range, ...params] = part.split(';');
      const q = params.map((p) => /^q=([01](\.\d{0,3})?)$/i.exec(p)?.[1]).find((x) => x !== undefined);
      return { range: range.toLowerCase(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.q > 0 && r.range !== '*')
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { range } of ranges) {
    if (TRADITIONAL.test(range)) continue;
    const primary = range.split('-')[0];
    if (isLang(primary)) return primary;
  }
  return DEFAULT_LANG;
}
