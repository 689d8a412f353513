import type { Next } from 'koa';
import type { RateLimits, Refusal } from '../../domain/rate-limits.ts';
import type { Ctx } from '../context.ts';
import { expectsBody } from './body-rate.ts';
import { answerRateLimited } from './rate-limited.ts';

// The routes that start a job, and those that carry an upload's bytes.
const JOB_STARTS = new Set(['/api/job', '/api/convert/job', '/api/analyse/job', '/v1/job/analyse']);
const TUS = /^\/api\/tus(?:\/[^/]+)?$/;
const V1_CHUNK = /^\/v1\/upload\/resumable\/[^/]+$/;

/**
 * Runs the rest of the request under its account's limits: requests a minute, then whatever the
 * route is (a job start or an upload's bytes, see withinAccountLimits).
 */
export async function underAccountLimits(ctx: Ctx, limits: RateLimits, accountId: string, next: Next): Promise<void> {
  const refused = await limits.request(accountId);
  if (refused) return answerRateLimited(ctx, refused);
  const job = ctx.method === 'POST' && JOB_STARTS.has(ctx.path);
  const over = await withinAccountLimits(ctx, limits, accountId, { job, upload: !job && carriesUpload(ctx) }, async () => {
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

function carriesUpload(ctx: Ctx): boolean {
  if (!expectsBody(ctx.req)) return false;
  const { method, path } = ctx;
  return (method === 'POST' && path === '/api/upload') || ((method === 'POST' || method === 'PATCH') && TUS.test(path)) || (method === 'PATCH' && V1_CHUNK.test(path));
}
