// What a product's REST routes share: a start (with the key's job allowance) and a poll by
// upload_uid, on the product's own path.
import type { Router } from '@koa/router';
import type { ApiKeys } from '../domain/api-keys.ts';
import type { JobStart, Jobs } from '../domain/jobs.ts';
import type { Product, SessionType } from '../domain/ports.ts';
import type { Sessions } from '../domain/sessions.ts';
import { answerPoll, answerStart } from '../http/api/results.ts';
import { readObject } from '../http/body.ts';
import type { AppState } from '../http/context.ts';
import { requireKey } from '../http/middleware/auth.ts';
import { startJob, type StartSchema } from './start.ts';

/** POST `path` starts a job of `product`; GET `path`/:uid polls the session's job. */
export function startAndPoll<S>(
  router: Router<AppState>,
  deps: { apiKeys: ApiKeys; jobs: Jobs; sessions: Sessions },
  o: { path: string; product: Product; start: { sessionTypes: readonly SessionType[]; body(expiryMaxMs: number): StartSchema<S> }; begin: JobStart<S> },
): void {
  const on = { sessions: deps.sessions, expiryMaxMs: deps.jobs.limits.expiryMaxMs };
  router.post(o.path, requireKey(deps.apiKeys, 'x-api-key', 'job'), async (ctx) => {
    answerStart(ctx, await startJob(on, ctx.state.account!, o.start, o.begin, await readObject(ctx)));
  });
  router.get(`${o.path}/:uid`, requireKey(deps.apiKeys, 'x-api-key'), async (ctx) => {
    await answerPoll(ctx, deps.jobs, await deps.jobs.latest(ctx.state.account!, ctx.params.uid, o.product));
  });
}
