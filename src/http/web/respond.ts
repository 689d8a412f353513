// Answers of the web pages: whole HTML documents, and errors as pages with the status and the
// message the API would give.
import { AppError } from '../../domain/errors.ts';
import type { Logger } from '../../log.ts';
import { clientGone, type Ctx, type Mw } from '../context.ts';
import { STATUS_OF } from '../middleware/errors.ts';
import type { Html } from './html.ts';
import { page, type Chrome } from './layout.ts';
import { errorView } from './views/error.ts';

export function render(ctx: Ctx, chrome: Omit<Chrome, 'signedIn' | 'csrf'>, body: Html, status = 200): void {
  const web = ctx.state.web!;
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page({ ...chrome, signedIn: web.account ? { email: web.account.email } : null, csrf: web.csrf }, body);
}

/** A refused form's notice: the API's message and code; its status (and Retry-After) go on ctx. Anything but an AppError is thrown on. */
export function refusedNotice(ctx: Ctx, err: unknown): NonNullable<Chrome['notice']> {
  if (!(err instanceof AppError)) throw err;
  ctx.status = statusOf(ctx, err);
  return { kind: 'error', message: err.message, code: err.code };
}

/** The status an error is answered with, and its Retry-After when it has one. */
export function statusOf(ctx: Ctx, err: AppError): number {
  const retry = err.details?.retry_after;
  if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
  const override = err.details?.status_override;
  return typeof override === 'number' ? override : STATUS_OF[err.kind];
}

export function webErrors(log: Logger): Mw {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError) {
        const status = statusOf(ctx, err);
        return render(ctx, { title: 'Not done' }, errorView({ status, code: err.code, message: err.message }), status);
      }
      const e = err as { status?: number; expose?: boolean; message?: string };
      if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
        return render(ctx, { title: 'Not done' }, errorView({ status: e.status, code: 'bad_request', message: e.message ?? 'Bad request.' }), e.status);
      }
      if (clientGone(ctx)) {
        ctx.state.clientAborted = true;
        log.info({ req_id: ctx.state.requestId }, 'client aborted');
        ctx.status = 400;
        return;
      }
      log.error({ req_id: ctx.state.requestId, err }, 'unexpected error');
      const message = `Something went wrong on our side. Quote request id ${ctx.state.requestId} if you report it.`;
      render(ctx, { title: 'Error' }, errorView({ status: 500, code: 'internal_error', message }), 500);
    }
  };
}
