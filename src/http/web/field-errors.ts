// A refused form names the field it is about: the control gets aria-invalid and the message,
// next to it and linked with aria-describedby; the notice at the top links to the control
// (layout.ts). Which field, from the error's code (or what the route knows better).
import type { AppError, ErrorCode } from '../../domain/errors.ts';
import { escapeHtml, raw, type Html } from './html.ts';

/** The control (its id) a refusal is about, by the error's code, on the account forms. */
const FIELD_OF_CODE: Partial<Record<ErrorCode, string>> = {
  invalid_email: 'email',
  missing_credentials: 'email',
  sign_in_failed: 'email',
  weak_password: 'password',
  passwords_differ: 'password-again',
  missing_api_key: 'api-key',
  invalid_api_key: 'api-key',
};

export type FieldOf = (err: AppError) => string | undefined;
export const fieldByCode: FieldOf = (err) => FIELD_OF_CODE[err.code];

/** An API field name as the id of its control on the product forms (output_format → output-format). */
export const controlOf = (apiField: string): string => (apiField === 'redact' ? 'redact-faces' : apiField.replace(/_/g, '-'));

const errorId = (id: string) => `${id}-error`;

/**
 * The body with the control `id` marked invalid and its message put before it, or null when
 * the body has no such control (the notice then links nowhere).
 */
export function markInvalid(body: Html, id: string, message: string): Html | null {
  const control = new RegExp(`<(?:input|select|textarea)\\b[^>]*\\sid="${id.replace(/[^\w-]/g, '')}"[^>]*>`).exec(body.value);
  if (!control) return null;
  let tag = control[0];
  const described = /\saria-describedby="([^"]*)"/.exec(tag);
  tag = described ? tag.replace(described[0], ` aria-describedby="${errorId(id)} ${described[1]}"`) : tag.replace(/>$/, ` aria-describedby="${errorId(id)}">`);
  tag = tag.replace(/>$/, ' aria-invalid="true">');
  const note = `<p class="field-error" id="${errorId(id)}">${escapeHtml(message)}</p>\n`;
  return raw(body.value.slice(0, control.index) + note + tag + body.value.slice(control.index + control[0].length));
}
