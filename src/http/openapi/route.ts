// GET /openapi.json on every listener. The document is written once per app, on first ask
// (after every router is mounted); its one server is the origin of the network asked.
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { Network } from '../../config.ts';
import type { AppState } from '../context.ts';
import type { MountedRoute } from '../route-list.ts';
import { openApiDocument } from './document.ts';

export function openApiRoutes(o: { network: Network; serviceVersion: string; expiryMaxMs: number; mounted: () => MountedRoute[] }): Router<AppState> {
  let doc: Record<string, unknown> | undefined;
  const router = newRouter();
  router.get('/openapi.json', (ctx) => {
    doc ??= openApiDocument({ ...o, mounted: o.mounted() });
    const { openapi, info, ...rest } = doc;
    ctx.body = { openapi, info, servers: [{ url: ctx.state.origin }], ...rest };
  });
  return router;
}
