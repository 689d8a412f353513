import type { Router } from '@koa/router';
import type { ApiKeys } from '../../domain/api-keys.ts';
import { hasCode } from '../../domain/errors.ts';
import type { JobStart, Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { Sessions } from '../../domain/sessions.ts';
import type { Product } from '../../domain/ports.ts';
import { readObject } from '../../http/body.ts';
import type { AppState, RouteCtx } from '../../http/context.ts';
import { answerPoll, answerStart } from '../../http/api/results.ts';
import { sendFile } from '../../http/download.ts';
import { requireKey } from '../../http/middleware/auth.ts';
import { newRouter } from '../../http/router.ts';
import { startJob } from '../start.ts';
import { STEGO_DOWNLOAD, stegoResults } from './results.ts';
import { hideStart, revealStart, type HideStart, type RevealOptions } from './start.ts';

// Hide and reveal share one set of paths; the session's type says which one a job is.
export function stegoRoutes(deps: { apiKeys: ApiKeys; jobs: Jobs; results: JobResults; sessions: Sessions; starts: { hide: JobStart<HideStart>; reveal: JobStart<RevealOptions> } }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');
  const { jobs, results } = deps;
  const productOf = async (ctx: RouteCtx, uid: unknown): Promise<Product> => (await deps.sessions.get(ctx.state.account!, typeof uid === 'string' ? uid : '', ['hide', 'reveal'])).type;
  const on = { sessions: deps.sessions, expiryMaxMs: jobs.limits.expiryMaxMs };

  router.post('/api/job', requireKey(deps.apiKeys, 'x-api-key', 'job'), async (ctx) => {
    const body = await readObject(ctx);
    // the session says which product this is, so which body it takes (a reveal has no output_format)
    const product = typeof body.upload_uid === 'string' ? await productOf(ctx, body.upload_uid) : 'hide';
    const account = ctx.state.account!;
    answerStart(ctx, product === 'reveal' ? await startJob(on, account, revealStart, deps.starts.reveal, body) : await startJob(on, account, hideStart, deps.starts.hide, body));
  });

  router.get('/api/job/:uid', auth, async (ctx) => {
    await answerPoll(ctx, jobs, await jobs.latest(ctx.state.account!, ctx.params.uid, await productOf(ctx, ctx.params.uid)));
  });

  router.get('/api/job/:uid/results', auth, async (ctx) => {
    ctx.body = await stegoResults(ctx, results, await jobs.latest(ctx.state.account!, ctx.params.uid, await productOf(ctx, ctx.params.uid)));
  });

  router.get(`${STEGO_DOWNLOAD}/:asset`, auth, async (ctx) => {
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
