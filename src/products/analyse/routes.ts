// Analyse over REST: start on an analyse session, poll by upload_uid, read the result by job_uid.
import type { Router } from '@koa/router';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { JobStart, Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { Sessions } from '../../domain/sessions.ts';
import type { AppState } from '../../http/context.ts';
import { sendFile } from '../../http/download.ts';
import { requireKey } from '../../http/middleware/auth.ts';
import { newRouter } from '../../http/router.ts';
import { startAndPoll } from '../routes.ts';
import { ANALYSE_ASSET, analyseResult } from './results.ts';
import { analyseStart, type AnalyseJobOptions } from './start.ts';

export function analyseRoutes(deps: { apiKeys: ApiKeys; jobs: Jobs; results: JobResults; sessions: Sessions; starts: { analyse: JobStart<AnalyseJobOptions> } }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');
  const { jobs, results } = deps;
  startAndPoll(router, deps, { path: '/api/analyse/job', product: 'analyse', start: analyseStart, begin: deps.starts.analyse });

  router.get('/api/analyse/result/:job', auth, async (ctx) => {
    ctx.body = await analyseResult(ctx, results, await jobs.byUid(ctx.state.account!, ctx.params.job, 'analyse'));
  });

  router.get(`${ANALYSE_ASSET}/:asset`, auth, async (ctx) => {
    const { asset, read } = await results.asset(ctx.state.account!, ctx.params.asset, 'analyse');
    sendFile(ctx, { size: asset.size, mimeType: asset.mimeType, name: `${asset.category}.${asset.mimeType === 'image/png' ? 'png' : 'jpg'}` }, read);
  });

  return router;
}
