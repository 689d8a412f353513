import type { Refusal } from '../../domain/rate-limits.ts';
import type { Ctx } from '../context.ts';
import { expectsBody } from './body-rate.ts';

/**
 * Answers 429 `rate_limited` with Retry-After, here and now. Middleware answers rather than
 * throws, so no route's own error mapping (v1 keeps to its documented statuses) turns a limit
 * into something a client would not retry.
 */
export function answerRateLimited(ctx: Ctx, r: Refusal): void {
  ctx.status = 429;
  ctx.set('Retry-After', String(r.retryAfterS));
  // a body still on its way is not wanted: close rather than read it all
  if (expectsBody(ctx.req) && !ctx.req.complete) ctx.set('Connection', 'close');
  ctx.body = { error: 'rate_limited', message: r.message, retry_after: r.retryAfterS };
}
