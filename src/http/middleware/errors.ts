import { AppError, type ErrorKind } from '../../domain/errors.ts';
import type { Logger } from '../../log.ts';
import { clientGone, type Mw } from '../context.ts';

export const STATUS_OF: Record<ErrorKind, number> = {
  bad_request: 400,
  invalid: 422,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  length_required: 411,
  too_large: 413,
  range_not_satisfiable: 416,
  unsupported_media: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

const DEFAULT_CODE: Record<number, string> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  411: 'length_required',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_input',
  501: 'not_implemented',
};

/**
 * The one error boundary: every failure leaves as JSON `{error, message}`. Expected errors
 * keep their message; anything unexpected is a 500 with a request id and no details.
 */
export function errorBoundary(log: Logger): Mw {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: 'not_found', message: 'Nothing is here.' };
      } else if (ctx.status === 405 && !ctx.body) {
        const allow = ctx.response.get('Allow');
        ctx.body = { error: 'method_not_allowed', message: `${ctx.method} is not allowed here${allow ? `; this path takes ${allow}` : ''}.` };
      } else if (ctx.status === 501 && !ctx.body) {
        ctx.body = { error: 'not_implemented', message: `${ctx.method} is not supported here.` };
      }
    } catch (err) {
      const e = err as { status?: number; expose?: boolean; message?: string; headers?: Record<string, string> };
      if (err instanceof AppError) {
        ctx.status = STATUS_OF[err.kind];
        ctx.body = { error: err.code, message: err.message, ...err.details };
      } else if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
        ctx.status = e.status;
        ctx.body = { error: DEFAULT_CODE[e.status] ?? 'bad_request', message: e.message ?? 'Bad request.' };
      } else if (clientGone(ctx)) {
        // A client that hung up mid-request (a reset, a premature close) is no fault of ours.
        ctx.state.clientAborted = true;
        log.info({ req_id: ctx.state.requestId }, 'client aborted');
        ctx.status = 400;
        ctx.body = { error: 'client_aborted', message: 'The connection closed before the request was complete.' };
      } else {
        log.error({ req_id: ctx.state.requestId, err }, 'unexpected error');
        ctx.status = 500;
        ctx.body = {
          error: 'internal_error',
          message: `Something went wrong on our side. Quote request id ${ctx.state.requestId} if you report it.`,
          request_id: ctx.state.requestId,
        };
      }
      if (e.headers) for (const [k, v] of Object.entries(e.headers)) if (/^(retry-after|allow)$/i.test(k)) ctx.set(k, v);
    }
  };
}
