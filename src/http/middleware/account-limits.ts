import type { Next } from 'koa';
import type { RateLimits, Refusal } from '../../domain/rate-limits.ts';
import type { Ctx } from '../context.ts';
import { expectsBody } from './body-rate.ts';
import { answerRateLimited } from './rate-limited.ts';

/**
 * What a route counts against its account beyond the request itself, declared by the route
 * (requireKey's third argument), never read off the path: a job start, or an upload's bytes.
 */
export type Counted = 'job' | 'upload';

/**
 * Runs the rest of the request under its account's limits: requests a minute, then what the
 * route said it is (a job start or an upload's bytes, see withinAccountLimits).
 */
export async function underAccountLimits(ctx: Ctx, limits: RateLimits, accountId: string, counted: Counted | undefined, next: Next): Promise<void> {
  const refused = await limits.request(accountId);
  if (refused) return answerRateLimited(ctx, refused);
  const job = counted === 'job';
  // an upload route's request without a body (a TUS creation without data) carries no bytes
  const upload = counted === 'upload' && expectsBody(ctx.req);
  const over = await withinAccountLimits(ctx, limits, accountId, { job, upload }, async () => {
    await next();
    return ctx.status < 400;
  });
  if (over) answerRateLimited(ctx, over);
}

/**
 * `work` under the account's limits on what it is: a job start is counted against the hour's
 * starts (and given back unless `work` says it started); an upload counts as one at once and
 * its bytes against the hour's allowance, as they actually arrived, whatever was declared.
 * The refusal, when one applies, comes back instead of running `work`. The API's middleware
 * and the web pages' forms (an upload and a job start in one) both go through here.
 */
export async function withinAccountLimits(
  ctx: Ctx,
  limits: RateLimits,
  accountId: string,
  what: { job: boolean; upload: boolean },
  work: () => Promise<boolean>,
): Promise<Refusal | undefined> {
  const declared = Number(ctx.get('content-length') || 0) || 0;
  if (what.upload) {
    const over = await limits.startUpload(accountId, declared);
    if (over) return over;
  }
  const socket = ctx.req.socket;
  const mark = socket.bytesRead;
  try {
    if (what.job) {
      const over = await limits.startJob(accountId);
      if (over) return over;
    }
    let started = false;
    try {
      started = await work();
    } finally {
      if (what.job && !started) await limits.refundJob(accountId);
    }
    return undefined;
  } finally {
    if (what.upload) {
      // A whole body is its Content-Length; a cut one is what the socket read (headers of
      // this request aside, since they came before the mark).
      const read = socket.bytesRead - mark;
      const received = ctx.req.complete && declared ? declared : declared ? Math.min(read, declared) : read;
      await limits.endUpload(accountId, declared, received);
    }
  }
}
