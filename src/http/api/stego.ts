import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import { hasCode } from '../../domain/errors.ts';
import type { Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { Sessions } from '../../domain/sessions.ts';
import type { JobRow, Product } from '../../domain/ports.ts';
import { readObject } from '../body.ts';
import type { AppState, Ctx, RouteCtx } from '../context.ts';
import { sendFile } from '../download.ts';
import { requireKey } from '../middleware/auth.ts';
import { jobStartBodies } from '../schemas/jobs.ts';
import { validate } from '../schemas/validate.ts';
import { answerPoll, answerStart, resultFile } from './results.ts';

/** A finished hide or reveal job's results, download URLs on the request's network (REST and MCP). */
export async function stegoResults(ctx: Ctx, results: JobResults, job: JobRow): Promise<Record<string, unknown>> {
  const { assets } = await results.of(job);
  return {
    job_uid: job.id,
    job_type: job.product,
    status: job.state,
    message: job.progressMessage,
    expires_at: job.expiresAt === null ? null : new Date(job.expiresAt).toISOString(),
    result_files: assets.map((a) => resultFile(ctx, a, '/api/job/download')),
  };
}

// Hide and reveal share one set of paths; the session's type says which one a job is.
export function stegoRoutes(deps: { apiKeys: ApiKeys; jobs: Jobs; results: JobResults; sessions: Sessions }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');
  const { jobs, results } = deps;
  const productOf = async (ctx: RouteCtx, uid: unknown): Promise<Product> => (await deps.sessions.get(ctx.state.account!, typeof uid === 'string' ? uid : '', ['hide', 'reveal'])).type;
  const bodies = jobStartBodies(jobs.limits.expiryMaxMs);

  router.post('/api/job', requireKey(deps.apiKeys, 'x-api-key', 'job'), async (ctx) => {
    const body = await readObject(ctx);
    // the session says which product this is, so which body it takes (a reveal has no output_format)
    const product = typeof body.upload_uid === 'string' ? await productOf(ctx, body.upload_uid) : 'hide';
    const job = await jobs.create(ctx.state.account!, product, validate(product === 'reveal' ? bodies.reveal : bodies.hide, body));
    answerStart(ctx, job);
  });

  router.get('/api/job/:uid', auth, async (ctx) => {
    await answerPoll(ctx, jobs, await jobs.latest(ctx.state.account!, ctx.params.uid, await productOf(ctx, ctx.params.uid)));
  });

  router.get('/api/job/:uid/results', auth, async (ctx) => {
    ctx.body = await stegoResults(ctx, results, await jobs.latest(ctx.state.account!, ctx.params.uid, await productOf(ctx, ctx.params.uid)));
  });

  router.get('/api/job/download/:asset', auth, async (ctx) => {
    let found;
    try {
      found = await results.asset(ctx.state.account!, ctx.params.asset, 'hide');
    } catch (err) {
      if (!hasCode(err, 'asset_not_found')) throw err;
      found = await results.asset(ctx.state.account!, ctx.params.asset, 'reveal');
    }
    const { asset, read } = found;
    sendFile(ctx, { size: asset.size, mimeType: asset.mimeType, name: asset.outputName ?? asset.name }, read);
  });

  return router;
}
