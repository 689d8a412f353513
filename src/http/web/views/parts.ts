// Small pieces the views share: formatting and the fields every form needs.
import { html, type Html } from '../html.ts';
import { numberTag } from '../../../i18n/languages.ts';
import { ENGLISH, type Words } from '../words.ts';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

const numbers = new Map<string, Intl.NumberFormat>();

/** 2147483648 → "2 GiB", 1536 → "1.5 KiB" (French "1,5 KiB"): the number in the page's language, Latin digits in Arabic and Persian. */
export function humanBytes(n: number, w: Words = ENGLISH): string {
  let i = 0;
  while (n >= 1024 && i < UNITS.length - 1) {
    n /= 1024;
    i++;
  }
  const tag = numberTag(w.lang);
  let f = numbers.get(tag);
  if (!f) numbers.set(tag, (f = new Intl.NumberFormat(tag, { maximumFractionDigits: 1 })));
  return `${f.format(n)} ${UNITS[i]}`;
}

/** Epoch milliseconds → "YYYY-MM-DD HH:MM UTC": one zone for everyone, nothing local leaks. */
export function utc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/** "ai_generation" → "Ai generation"; names the views know are given better words by callers. */
export function words(key: string): string {
  const s = key.replace(/_/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The first field of every form: the server reads bodies as a stream and wants it first. */
export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

/** The e-mail address field of the sign-in and sign-up forms, keeping what was typed. */
export function emailField(email: string | undefined, w: Words = ENGLISH): Html {
  return html`<div class="field">
<label for="email">${w.t('form.email')}</label>
<input type="email" id="email" name="email" autocomplete="username" required value="${email ?? ''}">
</div>`;
}

/** A one-button POST form (sign out, revoke, resend). */
export function buttonForm(action: string, csrf: string, label: string, hidden: Record<string, string> = {}, cls = 'inline'): Html {
  return html`<form method="post" action="${action}" class="${cls}">${csrfField(csrf)}${Object.entries(hidden).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  )}<button type="submit">${label}</button></form>`;
}

const UNIT_WORDS = { m: 'duration.m', h: 'duration.h', d: 'duration.d', w: 'duration.w' } as const;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** "7d" → "7 days"; anything else is shown as given. */
export function durationWords(d: string, w: Words = ENGLISH): string {
  const m = /^(\d+)\s*([mhdw])$/.exec(d.trim());
  if (!m) return d;
  return w.t(UNIT_WORDS[m[2] as keyof typeof UNIT_WORDS], { n: Number(m[1]) });
}

/** "7d" → milliseconds, or null when it is not such a duration. */
export function durationMs(d: string): number | null {
  const m = /^(\d+)\s*([mhdw])$/.exec(d.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]] : null;
}
