import { AppError } from '../../domain/errors.ts';
import type { Mw } from '../context.ts';

/**
 * v1 answers only the statuses the v1 specification documents: 401, 422, 404, 410 and 500.
 * Bad input of any kind is 422; anything else undocumented is 500; the message stays.
 * 404 and 410 are resumableDelete's alone (`unlink`): everywhere else an unknown, deleted or
 * expired key (a media-url's or a job's) is invalid input, 422.
 */
export function v1Statuses(opts: { resumable?: boolean; unlink?: boolean } = {}): Mw {
  return async (_ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError)) {
        const e = err as { status?: number; expose?: boolean; message?: string };
        if (typeof e.status === 'number' && e.status < 500 && e.expose) throw new AppError('invalid', 'invalid_input', e.message ?? 'Invalid input.');
        throw err;
      }
      switch (err.kind) {
        case 'unauthorized':
          throw err;
        case 'not_found':
        case 'gone':
          if (opts.unlink) throw err;
          throw new AppError('invalid', err.code, opts.resumable ? `Invalid, expired or deleted media-url: ${err.message}` : err.message, err.details);
        case 'bad_request':
        case 'invalid':
        case 'conflict':
        case 'length_required':
        case 'too_large':
        case 'unsupported_media':
        case 'payment_required':
          throw new AppError('invalid', err.code, err.message, err.details);
        default:
          throw new AppError('internal', err.code, err.message, err.details);
      }
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
