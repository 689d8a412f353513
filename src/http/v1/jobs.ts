// v1 jobs, as the v1 specification's tables say: analyse a completed media-url, poll its status with
// POST, read the result. The job-url is the status URL and the result-url the result URL,
// both built for the network the request came in on.
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import { AppError, hasCode } from '../../domain/errors.ts';
import type { Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { MediaUrls } from '../../domain/uploads-v1.ts';
import type { JobState } from '../../domain/ports.ts';
import { analyseItems } from '../../products/analyse/results.ts';
import type { Starts } from '../../products/index.ts';
import { analyseStart } from '../../products/analyse/start.ts';
import { readObject } from '../body.ts';
import { urlFor, type AppState } from '../context.ts';
import { requireKey } from '../middleware/auth.ts';
import { validate } from '../schemas/validate.ts';
import { JobAnalyse } from '../schemas/v1.ts';
import { v1Statuses } from './errors.ts';

const V1_STATUS: Record<JobState, string> = { queued: 'WAITING', processing: 'PROCESSING', completed: 'COMPLETED', partial: 'COMPLETED', failed: 'FAILED' };

export function v1JobRoutes(deps: { apiKeys: ApiKeys; jobs: Jobs; starts: Pick<Starts, 'analyse'>; results: JobResults; mediaUrls: MediaUrls }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'api_key');
  const { jobs, results } = deps;

  router.post('/v1/job/analyse', v1Statuses(), requireKey(deps.apiKeys, 'api_key', 'job'), async (ctx) => {
    const body = validate(JobAnalyse, await readObject(ctx));
    const account = ctx.state.account!;
    const session = await deps.mediaUrls.sessionFor(account, body.key, 'analyse');
    // v1's two options, the rest at the product's defaults; the media-url is the session, already looked up
    const options = analyseStart.options({ tips: body.enableTips, forensic_depth: body.enableExtraAnalysis ? 'deep' : 'standard' });
    const job = await deps.starts
      .analyse(account, { session, options })
      .catch((err: unknown) => {
        // a media-url is the session of v1: it holds one job, ever
        if (!hasCode(err, 'session_used')) throw err;
        const earlier = typeof err.details?.job_uid === 'string' ? ` (${err.details.job_uid})` : '';
        throw new AppError('session_used', `This media-url already has its job${earlier}: a media-url holds one job, ever. Poll that job's key; for another job, create a new media-url and upload the file again.`, err.details);
      });
    const jobUrl = urlFor(ctx, `/v1/job/status/${job.id}`);
    ctx.status = 200;
    ctx.set('Location', jobUrl);
    ctx.body = { key: job.id, status: V1_STATUS[job.state], jobUrl };
  });

  router.post('/v1/job/status/:key', v1Statuses(), auth, async (ctx) => {
    const job = await jobs.byUid(ctx.state.account!, ctx.params.key, 'analyse');
    const done = job.state === 'completed' || job.state === 'partial';
    ctx.body = {
      key: job.id,
      status: V1_STATUS[job.state],
      message: job.progressMessage,
      resultUrl: done && !results.expired(job) ? urlFor(ctx, `/v1/job/result/${job.id}`) : '',
    };
  });

  router.get('/v1/job/result/:key', v1Statuses(), auth, async (ctx) => {
    const job = await jobs.byUid(ctx.state.account!, ctx.params.key, 'analyse');
    if (job.state === 'failed') throw new AppError('job_failed', `The job failed: ${job.progressMessage}`);
    const files = await analyseItems(ctx, results, job);
    ctx.body = { key: job.id, results: { status: V1_STATUS[job.state], files } };
  });

  return router;
}
