// /api/tus: TUS 1.0.0 through @tus/server (one handler per method), over the domain's
// uploads. Koa authenticates first; the tus server then sees the account through a
// WeakMap keyed by the Node request, and hands out Locations on the request's network.
import type { IncomingMessage } from 'node:http';
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import { Server } from '@tus/server';
import { NodeRequest } from 'srvx/node';
import type { Upload } from '@tus/utils';
import type { ApiKeys } from '../../domain/api-keys.ts';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { Uploads } from '../../domain/uploads.ts';
import type { TusUploads } from '../../domain/uploads-tus.ts';
import type { Account } from '../../domain/ports.ts';
import { clientGone, type AppState, type RouteCtx } from '../context.ts';
import { STATUS_OF } from '../middleware/errors.ts';
import { requireKey } from '../middleware/auth.ts';
import { SessionTusStore } from '../tus/data-store.ts';
import { TusLocker } from '../tus/locker.ts';
import type { Locker } from '../../domain/ports.ts';

interface RequestFacts {
  account?: Account;
  origin: string;
  /** The upload a POST created, until the answer is known (a refused creation leaves nothing). */
  created?: string;
}

type TusRequest = Request & { runtime?: { node?: { req: IncomingMessage } } };

const TUS_CODES: Record<number, string> = {
  400: 'bad_request',
  403: 'forbidden',
  404: 'upload_not_found',
  409: 'offset_mismatch',
  410: 'upload_expired',
  412: 'tus_version_required',
  413: 'file_too_large',
  415: 'unsupported_media_type',
  460: 'checksum_mismatch',
  500: 'internal_error',
  501: 'not_implemented',
};

export function tusRoutes(deps: { apiKeys: ApiKeys; uploads: Uploads; tusUploads: TusUploads; sessionLifeMs: number; locker: Locker }): Router<AppState> {
  const facts = new WeakMap<IncomingMessage, RequestFacts>();
  const factsOf = (req: Request): RequestFacts => {
    const node = (req as TusRequest).runtime?.node?.req;
    const f = node && facts.get(node);
    if (!f) throw new AppError('missing_api_key', 'An API key is required: send it in the X-Api-Key header.');
    return f;
  };
  const accountOf = (req: Request): Account => {
    const a = factsOf(req).account;
    if (!a) throw new AppError('missing_api_key', 'An API key is required: send it in the X-Api-Key header.');
    return a;
  };

  const store = new SessionTusStore(deps.uploads, deps.tusUploads, deps.sessionLifeMs);
  const tus = new Server({
    path: '/api/tus',
    datastore: store,
    // the engine's locks: one upload's requests are serialised across every instance
    locker: new TusLocker(deps.locker),
    maxSize: deps.uploads.limits.fileMax,
    respectForwardedHeaders: false,
    namingFunction: () => newId('st', 16),
    generateUrl: (req, { path, id }) => new URL(`${path}/${id}`, factsOf(req).origin).toString(),
    onUploadCreate: async (req, upload: Upload) => {
      const md = upload.metadata ?? {};
      const { session, step } = await deps.uploads.admit(accountOf(req), { uploadUid: md.upload_uid, step: md.step, size: upload.size });
      store.pending.set(upload.id, { account: accountOf(req), session, step });
      factsOf(req).created = upload.id;
      return {};
    },
    // HEAD, PATCH and DELETE reach TUS uploads only: a direct or v1 upload is not one (404).
    onIncomingRequest: async (req, id) => {
      if (req.method !== 'POST') await deps.uploads.owned(accountOf(req), id, 'tus');
    },
    onResponseError: (_req, err) => {
      if (err instanceof AppError) {
        return { status_code: STATUS_OF[err.kind], body: JSON.stringify({ error: err.code, message: err.message, ...(err.details ?? {}) }) };
      }
      const e = err as { status_code?: number; body?: string };
      const status = typeof e.status_code === 'number' ? e.status_code : 500;
      // 501 is a TUS feature this server lacks (Upload-Concat): its own words say so; a retry would not help
      const message = status >= 500 && status !== 501 ? 'The upload could not be stored; try again.' : (e.body ?? 'Bad request').trim();
      return { status_code: status, body: JSON.stringify({ error: TUS_CODES[status] ?? 'tus_error', message }) };
    },
  });

  const auth = requireKey(deps.apiKeys, 'x-api-key');
  // The tus server answers with a web Response; Koa sends it, so the response goes through
  // the same headers, error boundary and access log as every other route.
  const handle = async (ctx: RouteCtx) => {
    const f: RequestFacts = { account: ctx.state.account, origin: ctx.state.origin };
    facts.set(ctx.req, f);
    let response: Response;
    try {
      response = await tus.handleWeb(new NodeRequest({ req: ctx.req, res: ctx.res }) as unknown as Request);
    } finally {
      // A creation that did not end in 201 (a body past Upload-Length, a broken connection)
      // handed out no Location: its row and bytes would be an orphan blocking the session.
      // A client gone before the answer never learned the Location either.
      if (f.created && (!response! || response.status !== 201 || clientGone(ctx))) await deps.tusUploads.abandon(f.created);
    }
    ctx.status = response.status;
    response.headers.forEach((value, name) => {
      if (name !== 'content-type' && name !== 'content-length') ctx.set(name, value);
    });
    const text = await response.text();
    if (text) {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = ctx.status >= 400 ? asJsonError(ctx.status, text) : text;
    } else if (ctx.status !== 204) {
      ctx.body = '';
      ctx.remove('Content-Type');
    }
  };
  const router = newRouter();
  router.options(['/api/tus', '/api/tus/:id'], handle); // CORS preflight carries no key
  // TUS's own methods only: anything else is the router's 405 or 501, like on every other path
  // (GET would be tus's download extension, which the service does not offer).
  const upload = requireKey(deps.apiKeys, 'x-api-key', 'upload'); // a creation may carry data
  router.post('/api/tus', upload, handle);
  router.patch('/api/tus/:id', upload, handle);
  for (const method of ['head', 'delete'] as const) router[method]('/api/tus/:id', auth, handle);
  return router;
}

// @tus/server writes some refusals itself, before any hook (a missing Tus-Resumable is 412
// "Tus-Resumable Required", a malformed header 400 "Invalid upload-length"): as plain text.
// Every error leaves as {error, message}, like every other route's.
function asJsonError(status: number, text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (parsed && typeof parsed === 'object' && typeof parsed.error === 'string') return text;
  } catch {
    /* plain text from the tus server */
  }
  const said = text.trim();
  const header = /^Invalid ([\w-]+(?: [\w-]+)*)$/i.exec(said);
  if (status === 400 && header) {
    return JSON.stringify({ error: 'invalid_tus_header', message: `The ${header[1].split(' ').join(', ')} header${header[1].includes(' ') ? 's are' : ' is'} not valid TUS 1.0.0.` });
  }
  if (status === 412) return JSON.stringify({ error: 'tus_version_required', message: 'Send Tus-Resumable: 1.0.0 with every TUS request but OPTIONS.' });
  return JSON.stringify({ error: TUS_CODES[status] ?? 'tus_error', message: said || 'The TUS request was refused.' });
}
