import type { Next } from 'koa';
import type { RateLimits } from '../../domain/rate-limits.ts';
import type { Ctx } from '../context.ts';
import { expectsBody } from './body-rate.ts';
import { answerRateLimited } from './rate-limited.ts';

// The routes that start a job, and those that carry an upload's bytes.
const JOB_STARTS = new Set(['/api/job', '/api/convert/job', '/api/analyse/job', '/v1/job/analyse']);
const TUS = /^\/api\/tus(?:\/[^/]+)?$/;
const V1_CHUNK = /^\/v1\/upload\/resumable\/[^/]+$/;

/**
 * Runs the rest of the request under its account's limits: requests a minute; job starts an
 * hour (a start that is refused gives its place back); uploads at once and uploaded bytes an
 * hour (counted as they actually arrived, whatever was declared).
 */
export async function underAccountLimits(ctx: Ctx, limits: RateLimits, accountId: string, next: Next): Promise<void> {
  const refused = await limits.request(accountId);
  if (refused) return answerRateLimited(ctx, refused);

  if (ctx.method === 'POST' && JOB_STARTS.has(ctx.path)) {
    const over = await limits.startJob(accountId);
    if (over) return answerRateLimited(ctx, over);
    let started = false;
    try {
      await next();
      started = ctx.status < 400;
    } finally {
      if (!started) await limits.refundJob(accountId);
    }
    return;
  }

  if (carriesUpload(ctx)) {
    const declared = Number(ctx.get('content-length') || 0) || 0;
    const over = await limits.startUpload(accountId, declared);
    if (over) return answerRateLimited(ctx, over);
    const socket = ctx.req.socket;
    const mark = socket.bytesRead;
    try {
      await next();
    } finally {
      // A whole body is its Content-Length; a cut one is what the socket read (headers of
      // this request aside, since they came before the mark).
      const read = socket.bytesRead - mark;
      const received = ctx.req.complete && declared ? declared : declared ? Math.min(read, declared) : read;
      await limits.endUpload(accountId, declared, received);
    }
    return;
  }

  await next();
}

function carriesUpload(ctx: Ctx): boolean {
  if (!expectsBody(ctx.req)) return false;
  const { method, path } = ctx;
  return (method === 'POST' && path === '/api/upload') || ((method === 'POST' || method === 'PATCH') && TUS.test(path)) || (method === 'PATCH' && V1_CHUNK.test(path));
}
