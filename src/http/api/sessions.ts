import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { JobResults } from '../../domain/job-results.ts';
import { deleteSession } from '../../domain/session-deletion.ts';
import type { Sessions } from '../../domain/sessions.ts';
import type { SessionType } from '../../domain/ports.ts';
import type { Uploads } from '../../domain/uploads.ts';
import { readObject } from '../body.ts';
import type { AppState, RouteCtx } from '../context.ts';
import { requireKey } from '../middleware/auth.ts';
import { sessionBody } from '../schemas/sessions.ts';
import { validate } from '../schemas/validate.ts';
import { fileView, sessionView } from './session-views.ts';

/** Where each product's sessions live: products that share a path (hide and reveal) share its routes. */
export interface SessionPath {
  path: string;
  product: SessionType;
}

// Each product's session path (its card says which): create, describe, list its files, delete
// (its files and its jobs' results destroyed now; 409 session_busy while a job is queued or
// running on it; 410 once gone).
export function sessionRoutes(deps: { apiKeys: ApiKeys; sessions: Sessions; uploads: Uploads; results: JobResults }, paths: readonly SessionPath[]): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');
  const byPath = new Map<string, SessionType[]>();
  for (const p of paths) byPath.set(p.path, [...(byPath.get(p.path) ?? []), p.product]);

  for (const [path, list] of byPath) {
    const types = list as [SessionType, ...SessionType[]];
    const schema = sessionBody(types);
    router.post(path, auth, async (ctx: RouteCtx) => {
      const body = validate(schema, await readObject(ctx));
      const session = await deps.sessions.create(ctx.state.account!, types.find((t) => t === body.type) ?? types[0]);
      ctx.status = 201;
      ctx.body = sessionView(session, deps.sessions.limits);
    });
    router.get(`${path}/:uid`, auth, async (ctx: RouteCtx) => {
      const session = await deps.sessions.get(ctx.state.account!, ctx.params.uid, types);
      ctx.body = sessionView(session, deps.sessions.limits);
    });
    router.get(`${path}/:uid/files`, auth, async (ctx: RouteCtx) => {
      const session = await deps.sessions.get(ctx.state.account!, ctx.params.uid, types);
      ctx.body = { upload_uid: session.id, files: (await deps.uploads.listFiles(session)).map(fileView) };
    });
    router.delete(`${path}/:uid`, auth, async (ctx: RouteCtx) => {
      ctx.body = await deleteSession(deps, ctx.state.account!, ctx.params.uid, types);
    });
  }
  return router;
}
