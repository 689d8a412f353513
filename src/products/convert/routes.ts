import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { FileFailure } from '../../domain/runners/convert.ts';
import { readObject } from '../body.ts';
import type { JobRow } from '../../domain/ports.ts';
import type { AppState, Ctx } from '../context.ts';
import { answerPoll, answerStart, resultFile } from './results.ts';
import { sendFile } from '../download.ts';
import { requireKey } from '../middleware/auth.ts';
import { jobStartBodies } from '../schemas/jobs.ts';
import { validate } from '../schemas/validate.ts';

/** A finished convert job's results, download URLs on the request's network (REST and MCP). */
export async function convertResults(ctx: Ctx, results: JobResults, job: JobRow): Promise<Record<string, unknown>> {
  const { report, assets } = await results.of(job);
  return {
    job_uid: job.id,
    status: job.state,
    expires_at: job.expiresAt === null ? null : new Date(job.expiresAt).toISOString(),
    result_files: assets.map((a) => resultFile(ctx, a, '/api/convert/download')),
    failed_files: ((report.failures as FileFailure[] | undefined) ?? []).map((f) => ({ name: f.name, error: f.error, message: f.message })),
  };
}

// Convert: start on a session, poll by upload_uid, list results, download each file.
export function convertRoutes(deps: { apiKeys: ApiKeys; jobs: Jobs; results: JobResults }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');
  const { jobs, results } = deps;
  const { convert } = jobStartBodies(jobs.limits.expiryMaxMs);

  router.post('/api/convert/job', requireKey(deps.apiKeys, 'x-api-key', 'job'), async (ctx) => {
    const job = await jobs.create(ctx.state.account!, 'convert', validate(convert, await readObject(ctx)));
    answerStart(ctx, job);
  });

  router.get('/api/convert/job/:uid', auth, async (ctx) => {
    await answerPoll(ctx, jobs, await jobs.latest(ctx.state.account!, ctx.params.uid, 'convert'));
  });

  router.get('/api/convert/job/:uid/results', auth, async (ctx) => {
    ctx.body = await convertResults(ctx, results, await jobs.latest(ctx.state.account!, ctx.params.uid, 'convert'));
  });

  router.get('/api/convert/download/:asset', auth, async (ctx) => {
    const { asset, read } = await results.asset(ctx.state.account!, ctx.params.asset, 'convert');
    sendFile(ctx, { size: asset.size, mimeType: asset.mimeType, name: asset.outputName ?? asset.name }, read);
  });

  return router;
}
