// Answers of the web pages: whole HTML documents in the request's language, and errors as pages
// with the status and the code the API would give, in the page's words for that code (or the
// API's own message where the catalogue has none).
import { AppError, hasCode, type ErrorCode } from '../../domain/errors.ts';
import { OTHER_WAYS_IN } from '../../domain/web-brakes.ts';
import { hasMessage, type MessageKey, type Values } from '../../i18n/format.ts';
import type { Logger } from '../../log.ts';
import { clientGone, type Ctx, type Mw } from '../context.ts';
import { STATUS_OF } from '../middleware/errors.ts';
import { isSamePath } from './back-path.ts';
import { fieldByCode, markInvalid, type FieldOf } from './field-errors.ts';
import type { Html } from './html.ts';
import { page, type Chrome } from './layout.ts';
import { errorView } from './views/error.ts';
import { humanBytes } from './views/parts.ts';
import { wordsFor, type Words } from './words.ts';

/** The words of this request's pages. */
export function wordsOf(ctx: Ctx): Words {
  return wordsFor(ctx.state.lang ?? 'en');
}

/** Pages that are only ever posted to, and the page a person sees them from. */
const POSTED_FROM: [RegExp, string][] = [
  [/^\/account\//, '/account'],
  [/^\/sign-in\/mail$/, '/sign-in'],
  [/^\/(sign-out|language)$/, '/'],
];

/** Where the language chooser of this page sends the person back to. */
function backOf(ctx: Ctx): string {
  const back = ctx.method === 'GET' || ctx.method === 'HEAD' ? ctx.url : (POSTED_FROM.find(([re]) => re.test(ctx.path))?.[1] ?? ctx.path);
  return isSamePath(back) ? back : '/';
}

export function render(ctx: Ctx, chrome: Omit<Chrome, 'signedIn' | 'csrf' | 'words'>, body: Html, status = 200): void {
  const web = ctx.state.web!;
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Language', wordsOf(ctx).tag);
  // an error about one field: the field says so too, and the notice links to it
  const n = chrome.notice;
  const marked = n?.kind === 'error' && n.field ? markInvalid(body, n.field, n.message) : null;
  const notice = n && !marked ? { ...n, field: undefined } : n;
  ctx.body = page({ back: backOf(ctx), ...chrome, notice, signedIn: web.account ? { email: web.account.email } : null, csrf: web.csrf, words: wordsOf(ctx) }, marked ?? body);
}

/** Errors that carry their limit in their details: said with it (bytes as a size in the page's digits). */
const WITH_LIMIT: Partial<Record<ErrorCode, { key: MessageKey; values: Record<string, { detail: string; bytes?: true }> }>> = {
  file_too_large: { key: 'errorWith.file_too_large', values: { size: { detail: 'max_upload_bytes', bytes: true } } },
  secret_too_large: { key: 'errorWith.secret_too_large', values: { needed: { detail: 'needed_bytes', bytes: true }, capacity: { detail: 'capacity_bytes', bytes: true } } },
  decoy_too_small: { key: 'errorWith.decoy_too_small', values: { decoy: { detail: 'decoy_bytes', bytes: true }, secret: { detail: 'secret_bytes', bytes: true } } },
  rate_limited: { key: 'errorWith.rate_limited', values: { s: { detail: 'retry_after' } } },
};

/**
 * Codes whose catalogue words are a general stand-in for a precise API message (which option,
 * which field, why the password is weak): an English page shows the API's own, more precise words.
 */
const GENERAL: ErrorCode[] = ['rate_limited', 'invalid_option', 'unknown_option', 'invalid_expiry', 'weak_password', 'unknown_field', 'field_too_long', 'too_many_files', 'body_too_large', 'already_verified', 'unsupported_media'];

/** The page's words for an error: `error.<code>` with the error's details, else the API's English message. */
export function errorText(w: Words, err: AppError): string {
  if (w.lang === 'en' && hasCode(err, ...GENERAL)) return err.message;
  // a braked address's password: the other ways in, which still work, are the point of the message
  const limit = hasCode(err, 'rate_limited') && err.message.includes(OTHER_WAYS_IN) ? { ...WITH_LIMIT.rate_limited!, key: 'errorWith.rate_limited.otherWays' as const } : WITH_LIMIT[err.code];
  if (limit) {
    const values = Object.entries(limit.values).map(([name, v]) => [name, err.details?.[v.detail], v.bytes] as const);
    if (values.every(([, v]) => typeof v === 'number')) return w.t(limit.key, Object.fromEntries(values.map(([name, v, bytes]) => [name, bytes ? humanBytes(v as number, w) : (v as number)])));
  }
  const key = `error.${err.code}`;
  if (!hasMessage(key)) return err.message;
  const values: Values = {};
  for (const [k, v] of Object.entries(err.details ?? {})) if (typeof v === 'string' || typeof v === 'number') values[k] = v;
  return w.t(key, values);
}

/**
 * A refused form's notice: the error's words and code, and the field it is about (by its code,
 * unless `fieldOf` knows better); its status (and Retry-After) go on ctx. Anything but an
 * AppError is thrown on.
 */
export function refusedNotice(ctx: Ctx, err: unknown, fieldOf: FieldOf = fieldByCode): NonNullable<Chrome['notice']> {
  if (!(err instanceof AppError)) throw err;
  ctx.status = statusOf(ctx, err);
  return { kind: 'error', message: errorText(wordsOf(ctx), err), code: err.code, field: fieldOf(err) };
}

/** The status an error is answered with, and its Retry-After when it has one. */
export function statusOf(ctx: Ctx, err: AppError): number {
  const retry = err.details?.retry_after;
  if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
  return STATUS_OF[err.kind];
}

export function webErrors(log: Logger): Mw {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const w = wordsOf(ctx);
      if (err instanceof AppError) {
        const status = statusOf(ctx, err);
        return render(ctx, { title: w.t('errorPage.title') }, errorView({ status, code: err.code, message: errorText(w, err), words: w }), status);
      }
      const e = err as { status?: number; expose?: boolean; message?: string };
      if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
        return render(ctx, { title: w.t('errorPage.title') }, errorView({ status: e.status, code: 'bad_request', message: e.message ?? 'Bad request.', words: w }), e.status);
      }
      if (clientGone(ctx)) {
        ctx.state.clientAborted = true;
        log.info({ req_id: ctx.state.requestId }, 'client aborted');
        ctx.status = 400;
        return;
      }
      log.error({ req_id: ctx.state.requestId, err }, 'unexpected error');
      const message = w.t('errorPage.internal', { id: ctx.state.requestId });
      render(ctx, { title: w.t('errorPage.title.500') }, errorView({ status: 500, code: 'internal_error', message, words: w }), 500);
    }
  };
}
