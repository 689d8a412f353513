// The controls of the product forms (products/<product>/form.ts): labelled, with their hints
// tied to them (aria-describedby), and the values a refused form sent shown again.
import { html, type Html } from '../html.ts';
import type { Words } from '../words.ts';
import { durationMs, durationWords } from './parts.ts';

export interface FormLimits {
  fileMaxBytes: number;
  sessionMaxFiles: number;
  expiryMax: string;
  imageFormats: readonly string[];
  videoFormats: readonly string[];
  stegoImageFormats: readonly string[];
  stegoVideoFormats: readonly string[];
  /** OBSCURA_STEGOSUITE_MAX_PIXELS: the largest picture a reveal gives to stegosuite. */
  stegosuiteMaxPixels: number;
  fits: readonly string[];
}

export type Values = Record<string, string | string[]>;
export type Option = readonly [value: string, label: string];

const EXPIRIES = ['1h', '6h', '1d', '3d', '7d'];

export function all(values: Values, name: string): string[] {
  const v = values[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
export function one(values: Values, name: string): string {
  return all(values, name)[0] ?? '';
}

export function select(id: string, name: string, label: string, options: Option[], selected: string, hint?: string): Html {
  const hintId = hint ? `${id}-hint` : null;
  return html`<div class="field">
<label for="${id}">${label}</label>
<select id="${id}" name="${name}"${hintId ? html` aria-describedby="${hintId}"` : null}>
${options.map(([value, text]) => html`<option value="${value}"${value === selected ? html` selected` : null}>${text}</option>\n`)}</select>
${hint ? html`<p class="hint" id="${hintId}">${hint}</p>` : null}
</div>`;
}

export function checkbox(id: string, name: string, value: string, label: string, checked: boolean): Html {
  return html`<div class="check">
<input type="checkbox" id="${id}" name="${name}" value="${value}"${checked ? html` checked` : null}>
<label for="${id}">${label}</label>
</div>`;
}

export function numberField(id: string, name: string, label: string, value: string, min: number, max: number | null, hint: string): Html {
  return html`<div class="field">
<label for="${id}">${label}</label>
<input type="number" id="${id}" name="${name}" inputmode="numeric" min="${min}"${max !== null ? html` max="${max}"` : null} step="1" value="${value}" aria-describedby="${id}-hint">
<p class="hint" id="${id}-hint">${hint}</p>
</div>`;
}

export function fileField(id: string, name: string, label: string, multiple: boolean, accept: string | null, hint: string, required = true): Html {
  return html`<div class="field">
<label for="${id}">${label}</label>
<input type="file" id="${id}" name="${name}"${multiple ? html` multiple` : null}${accept ? html` accept="${accept}"` : null}${required ? html` required` : null} aria-describedby="${id}-hint">
<p class="hint" id="${id}-hint">${hint}</p>
</div>`;
}

/** The decoy's passphrase: optional, never prefilled, and never offered by a password manager as the real one. */
export function decoyPasswordField(w: Words): Html {
  return html`<div class="field">
<label for="decoy-password">${w.t('form.decoyPassphrase')}</label>
<input type="password" id="decoy-password" name="decoy_password" maxlength="1024" autocomplete="off" spellcheck="false" aria-describedby="decoy-password-hint">
<p class="hint" id="decoy-password-hint">${w.t('form.decoyPassphrase.hint')}</p>
</div>`;
}

export function passwordField(autocomplete: string, w: Words): Html {
  // never prefilled: a passphrase must not travel back in a page
  return html`<div class="field">
<label for="password">${w.t('form.passphrase')}</label>
<input type="password" id="password" name="password" required maxlength="1024" autocomplete="${autocomplete}" spellcheck="false" aria-describedby="password-hint">
<p class="hint" id="password-hint">${w.t('form.passphrase.hint')}</p>
</div>`;
}

export function expiryField(values: Values, expiryMax: string, w: Words): Html {
  const max = durationMs(expiryMax) ?? Infinity;
  const options: Option[] = [
    ['', w.t('form.expiry.default', { duration: durationWords('1d', w) })],
    ...EXPIRIES.filter((e) => (durationMs(e) ?? 0) <= max).map((e): Option => [e, durationWords(e, w)]),
  ];
  return select('expiry', 'expiry', w.t('form.expiry'), options, one(values, 'expiry'), w.t('form.expiry.hint', { max: durationWords(expiryMax, w) }));
}
