import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { JobResults } from '../../domain/job-results.ts';
import { deleteSession } from '../../domain/session-deletion.ts';
import type { Sessions } from '../../domain/sessions.ts';
import type { Uploads } from '../../domain/uploads.ts';
import type { SessionType } from '../../domain/ports.ts';
import type { AppState, RouteCtx } from '../context.ts';
import { requireKey } from '../middleware/auth.ts';

// DELETE of a session, on each product's session path: its files and its jobs' results are
// destroyed now (409 session_busy while a job is queued or running on it; 410 once gone).
export function sessionDeleteRoutes(deps: { apiKeys: ApiKeys; sessions: Sessions; uploads: Uploads; results: JobResults }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');
  const remove = (types: readonly SessionType[]) => async (ctx: RouteCtx) => {
    ctx.body = await deleteSession(deps, ctx.state.account!, ctx.params.uid, types);
  };
  router.delete('/api/session/:uid', auth, remove(['hide', 'reveal']));
  router.delete('/api/analyse/session/:uid', auth, remove(['analyse']));
  router.delete('/api/convert/session/:uid', auth, remove(['convert']));
  return router;
}
