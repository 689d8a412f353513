import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { SessionLimits, Sessions } from '../../domain/sessions.ts';
import type { SessionRow } from '../../domain/ports.ts';
import type { StoredFile, Uploads } from '../../domain/uploads.ts';
import type { SessionType } from '../../domain/ports.ts';
import { readObject } from '../body.ts';
import type { AppState, RouteCtx } from '../context.ts';
import { requireKey } from '../middleware/auth.ts';
import { AnalyseSessionBody, ConvertSessionBody, HideRevealSessionBody } from '../schemas/sessions.ts';
import { validate } from '../schemas/validate.ts';

/** A session as clients read it: its id is the wire's upload_uid, with the limits of its files (REST and MCP). */
export function sessionView(row: SessionRow, limits: SessionLimits): Record<string, unknown> {
  return {
    upload_uid: row.id,
    type: row.type,
    max_upload_bytes: limits.directUploadMax,
    max_file_bytes: limits.fileMax,
    max_files: limits.sessionMaxFiles,
    created_at: new Date(row.createdAt).toISOString(),
    expires_at: new Date(row.expiresAt).toISOString(),
  };
}

/** A stored file as clients read it (REST and MCP). */
export function fileView(f: StoredFile): Record<string, unknown> {
  return { storage_uid: f.id, name: f.name, step: f.step, size: f.size, status: f.complete ? 'completed' : 'uploading' };
}

// Sessions of the three products, and the files each holds:
//   hide/reveal: /api/session,  analyse: /api/analyse/session,  convert: /api/convert/session
export function sessionRoutes(deps: { apiKeys: ApiKeys; sessions: Sessions; uploads: Uploads }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');

  const create = (schema: typeof HideRevealSessionBody | typeof AnalyseSessionBody | typeof ConvertSessionBody, fixed?: SessionType) => async (ctx: RouteCtx) => {
    const body = validate(schema, await readObject(ctx));
    const session = await deps.sessions.create(ctx.state.account!, (body.type ?? fixed) as SessionType);
    ctx.status = 201;
    ctx.body = sessionView(session, deps.sessions.limits);
  };

  const files = (types: readonly SessionType[]) => async (ctx: RouteCtx) => {
    const session = await deps.sessions.get(ctx.state.account!, ctx.params.uid, types);
    ctx.body = { upload_uid: session.id, files: (await deps.uploads.listFiles(session)).map(fileView) };
  };

  const one = (types: readonly SessionType[]) => async (ctx: RouteCtx) => {
    const session = await deps.sessions.get(ctx.state.account!, ctx.params.uid, types);
    ctx.body = sessionView(session, deps.sessions.limits);
  };

  router.post('/api/session', auth, create(HideRevealSessionBody));
  router.post('/api/analyse/session', auth, create(AnalyseSessionBody, 'analyse'));
  router.post('/api/convert/session', auth, create(ConvertSessionBody, 'convert'));
  router.get('/api/session/:uid', auth, one(['hide', 'reveal']));
  router.get('/api/analyse/session/:uid', auth, one(['analyse']));
  router.get('/api/convert/session/:uid', auth, one(['convert']));
  router.get('/api/session/:uid/files', auth, files(['hide', 'reveal']));
  router.get('/api/analyse/session/:uid/files', auth, files(['analyse']));
  router.get('/api/convert/session/:uid/files', auth, files(['convert']));
  return router;
}
