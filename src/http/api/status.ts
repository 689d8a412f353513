import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { AppState } from '../context.ts';

export function statusRoutes(service: { name: string; version: string }): Router<AppState> {
  const router = newRouter();
  router.get('/api/status', (ctx) => {
    ctx.body = { status: 'UP', service: service.name, version: service.version, timestamp: new Date().toISOString() };
  });
  return router;
}
