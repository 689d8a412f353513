// Convert over REST: start on a session, poll by upload_uid, list results, download each file.
import type { Router } from '@koa/router';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { JobStart, Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { Sessions } from '../../domain/sessions.ts';
import type { ConvertOptions } from '../../media/convert/options.ts';
import type { AppState } from '../../http/context.ts';
import { sendFile } from '../../http/download.ts';
import { requireKey } from '../../http/middleware/auth.ts';
import { newRouter } from '../../http/router.ts';
import { startAndPoll } from '../routes.ts';
import { CONVERT_DOWNLOAD, convertResults } from './results.ts';
import { convertStart } from './start.ts';

export function convertRoutes(deps: { apiKeys: ApiKeys; jobs: Jobs; results: JobResults; sessions: Sessions; starts: { convert: JobStart<ConvertOptions> } }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');
  const { jobs, results } = deps;
  startAndPoll(router, deps, { path: '/api/convert/job', product: 'convert', start: convertStart, begin: deps.starts.convert });

  router.get('/api/convert/job/:uid/results', auth, async (ctx) => {
    ctx.body = await convertResults(ctx, results, await jobs.latest(ctx.state.account!, ctx.params.uid, 'convert'));
  });

  router.get(`${CONVERT_DOWNLOAD}/:asset`, auth, async (ctx) => {
    const { asset, read } = await results.asset(ctx.state.account!, ctx.params.asset, 'convert');
    sendFile(ctx, { size: asset.size, mimeType: asset.mimeType, name: asset.outputName ?? asset.name }, read);
  });

  return router;
}
