import { AppError } from '../../domain/errors.ts';
import type { Mw } from '../context.ts';

/**
 * v1 answers only the statuses SEED-SPEC.md documents: 401, 422, 404, 410 and 500.
 * Bad input of any kind is 422; anything else undocumented is 500; the message stays.
 * `resumable` routes (HEAD/PATCH) also answer 422 for unknown, deleted or expired media-urls.
 */
export function v1Statuses(opts: { resumable?: boolean } = {}): Mw {
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
          if (opts.resumable) throw new AppError('invalid', err.code, `Invalid, expired or deleted media-url: ${err.message}`, err.details);
          throw err;
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
