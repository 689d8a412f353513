import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import { AppError } from '../../domain/errors.ts';
import type { Uploads } from '../../domain/uploads.ts';
import type { DirectUploads } from '../../domain/uploads-direct.ts';
import type { AppState } from '../context.ts';
import { fileView } from './session-views.ts';
import { requireKey } from '../middleware/auth.ts';
import { headerFileName } from '../header-name.ts';

// POST /api/upload: one whole file as the raw body. Content-Length is required (a body cut
// short must never pass for a whole file) and is checked against the cap before a byte is read.
export function directUploadRoutes(deps: { apiKeys: ApiKeys; uploads: Uploads; directUploads: DirectUploads }): Router<AppState> {
  const router = newRouter();
  router.post('/api/upload', requireKey(deps.apiKeys, 'x-api-key', 'upload'), async (ctx) => {
    try {
      const te = ctx.get('transfer-encoding');
      const cl = ctx.get('content-length');
      if (te || cl === '') {
        throw new AppError('length_required', 'Send the file with a Content-Length header; chunked bodies are not accepted here (use /api/tus to stream).');
      }
      if (!/^\d{1,16}$/.test(cl)) throw new AppError('invalid_content_length');
      const length = Number(cl);
      const cap = Math.min(deps.uploads.limits.directUploadMax, deps.uploads.limits.fileMax);
      if (length > cap) {
        throw new AppError('file_too_large', `The file is ${length} bytes; direct uploads take at most ${cap} bytes (use /api/tus for larger files).`, {
          max_upload_bytes: cap,
        });
      }
      const named = ctx.get('x-filename') ? headerFileName(ctx.get('x-filename')) : undefined;
      const file = await deps.directUploads.whole(
        ctx.state.account!,
        {
          uploadUid: ctx.get('x-upload-uid') || undefined,
          step: ctx.get('x-upload-step') || undefined,
          name: named?.name,
          nameIsPercentEncoded: named?.percentEncoded,
          clientUploadId: ctx.get('x-client-upload-id') || undefined,
          contentLength: length,
        },
        ctx.req,
      );
      ctx.status = 201;
      ctx.body = { file: fileView(file) };
    } catch (err) {
      // Whatever of the body is still coming is not wanted: close rather than drain it.
      if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
      throw err;
    }
  });
  return router;
}
