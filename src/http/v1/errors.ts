import { AppError, type ErrorKind } from '../../domain/errors.ts';
import type { Mw } from '../context.ts';

/** The statuses the v1 specification documents for its operations. */
export type V1Status = 401 | 404 | 410 | 422 | 500;

/**
 * v1's table of kinds to statuses (the newer API's is STATUS_OF, middleware/errors.ts): bad
 * input of any kind is 422; anything else undocumented is 500. 404 and 410 are resumableDelete's
 * alone (`unlink`): everywhere else an unknown, deleted or expired key (a media-url's or a job's)
 * is invalid input, 422.
 */
export function v1StatusOf(kind: ErrorKind, opts: { unlink?: boolean } = {}): V1Status {
  switch (kind) {
    case 'unauthorized':
      return 401;
    case 'not_found':
      return opts.unlink ? 404 : 422;
    case 'gone':
      return opts.unlink ? 410 : 422;
    case 'bad_request':
    case 'invalid':
    case 'conflict':
    case 'length_required':
    case 'too_large':
    case 'unsupported_media':
    case 'payment_required':
      return 422;
    default:
      return 500;
  }
}

/**
 * v1 answers only the statuses the v1 specification documents: 401, 422, 404 and 410 (v1StatusOf)
 * and 500. An AppError is answered here, with its status from v1's table and the boundary's body,
 * `{error, message, ...details}`; the message stays (on the resumable paths a missing, deleted or
 * expired media-url's says so first). Koa's own client errors are 422 invalid_input.
 */
export function v1Statuses(opts: { resumable?: boolean; unlink?: boolean } = {}): Mw {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError)) {
        const e = err as { status?: number; expose?: boolean; message?: string };
        if (!(typeof e.status === 'number' && e.status < 500 && e.expose)) throw err;
        ctx.status = 422;
        ctx.body = { error: 'invalid_input', message: e.message ?? 'Invalid input.' };
        return;
      }
      const missing = (err.kind === 'not_found' || err.kind === 'gone') && !opts.unlink;
      ctx.status = v1StatusOf(err.kind, opts);
      ctx.body = { error: err.code, message: missing && opts.resumable ? `Invalid, expired or deleted media-url: ${err.message}` : err.message, ...err.details };
    }
  };
}

// The paths of the v1 specification's v1 operations.
const V1_OPERATION = /^\/v1\/(job\/(analyse|status\/[^/]+|result\/[^/]+)|upload\/(create-media-url|resumable\/[^/]+))$/;

/**
 * App-level, outside the error boundary: the v1 specification's table is v1's whole list of statuses
 * (401, 422, 404 and 410 of resumableDelete, and 500 that "stands for all other 4XX and 5XX
 * statuses"). So what answers a v1 path before its route runs (a rate limit's 429, a slow
 * body's 408) and a v1 operation's path asked with another method (405, with Allow) leave as
 * 500; the JSON body, with its precise `error` code, Allow and Retry-After stay. A path that is
 * no v1 operation keeps its 404 (or 501 for a method no route knows).
 */
export function v1StatusTable(): Mw {
  return async (ctx, next) => {
    await next();
    if (!ctx.path.startsWith('/v1/') || ctx.status < 400) return;
    if (!V1_OPERATION.test(ctx.path) && (ctx.status === 404 || ctx.status === 501)) return;
    // maintenance is the whole service's state, not an answer of the operation: every route of
    // every interface answers it alike, 503 with Retry-After
    if (ctx.status === 503 && (ctx.body as { status?: unknown } | undefined)?.status === 'MAINTENANCE') return;
    if (![401, 404, 410, 422].includes(ctx.status)) ctx.status = 500;
  };
}
