import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { AppState } from '../context.ts';
import { requireKey } from '../middleware/auth.ts';

// "Is my key good?": the cheapest authenticated call, for clients checking their set-up.
export function accountRoutes(apiKeys: ApiKeys): Router<AppState> {
  const router = newRouter();
  router.get('/api/account', requireKey(apiKeys, 'x-api-key'), (ctx) => {
    const a = ctx.state.account!;
    ctx.body = { email: a.email, verified: a.verifiedAt !== null, active: a.deactivatedAt === null, created_at: new Date(a.createdAt).toISOString() };
  });
  return router;
}
