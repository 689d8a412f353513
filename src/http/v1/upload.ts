// v1 resumable upload, as the v1 specification's tables say: create-media-url, then HEAD/PATCH/DELETE
// on /v1/upload/resumable/{key}. A PATCH is multipart with an `offset` field and a `file`
// part of at most 5 MiB; it is applied whole or not at all.
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import busboy from 'busboy';
import type { ApiKeys } from '../../domain/api-keys.ts';
import { AppError, type ErrorCode } from '../../domain/errors.ts';
import type { Uploads } from '../../domain/uploads.ts';
import type { MediaUrls } from '../../domain/uploads-v1.ts';
import { readObject } from '../body.ts';
import { urlFor, type AppState, type Ctx } from '../context.ts';
import { requireKey } from '../middleware/auth.ts';
import { validate } from '../schemas/validate.ts';
import { FileMetadata } from '../schemas/v1.ts';
import { v1Statuses } from './errors.ts';

const TUS_VERSION = '1.0.0';
const MULTIPART_SLACK = 64 * 1024; // boundaries and part headers around the chunk

export function v1UploadRoutes(deps: { apiKeys: ApiKeys; uploads: Uploads; mediaUrls: MediaUrls; patchDoneStatus?: 200 | 204 }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'api_key');
  const limits = deps.uploads.limits;

  const resumableHeaders = (ctx: Ctx, offset: number, expiresAt: number) => {
    ctx.set('Upload-Offset', String(offset));
    ctx.set('Upload-Expires', new Date(expiresAt).toUTCString());
    ctx.set('Tus-Resumable', TUS_VERSION);
  };

  router.post('/v1/upload/create-media-url', v1Statuses(), auth, async (ctx) => {
    const body = validate(FileMetadata, await readObject(ctx));
    const { key, expiresAt } = await deps.mediaUrls.create(ctx.state.account!, { name: body.name, size: body.size });
    const location = urlFor(ctx, `/v1/upload/resumable/${key}`);
    ctx.status = 201;
    ctx.set('Location', location);
    ctx.set('Upload-Expires', new Date(expiresAt).toUTCString());
    ctx.set('Tus-Resumable', TUS_VERSION);
    ctx.body = { key, location, expires_at: new Date(expiresAt).toISOString() };
  });

  router.head('/v1/upload/resumable/:key', v1Statuses({ resumable: true }), auth, async (ctx) => {
    const s = await deps.mediaUrls.status(ctx.state.account!, ctx.params.key);
    resumableHeaders(ctx, s.offset, s.expiresAt);
    ctx.set('Upload-Length', String(s.size));
    ctx.status = 200;
  });

  router.patch('/v1/upload/resumable/:key', v1Statuses({ resumable: true }), requireKey(deps.apiKeys, 'api_key', 'upload'), async (ctx) => {
    try {
      // the media-url first: an unknown or expired key is refused before its body is read
      const before = await deps.mediaUrls.status(ctx.state.account!, ctx.params.key);
      const { offset, chunk } = await readChunk(ctx, limits.chunkMax, before.offset);
      const r = await deps.mediaUrls.append(ctx.state.account!, ctx.params.key, offset, chunk);
      resumableHeaders(ctx, r.offset, r.expiresAt);
      if (r.complete && (deps.patchDoneStatus ?? 204) === 204) {
        ctx.status = 204;
      } else {
        // more data expected, or the last chunk for old clients that want 200 on every chunk
        // (OBSCURA_V1_PATCH_DONE_STATUS=200)
        ctx.status = 200;
        ctx.body = { key: ctx.params.key, offset: r.offset };
      }
    } catch (err) {
      if (err instanceof AppError && typeof err.details?.upload_offset === 'number') ctx.set('Upload-Offset', String(err.details.upload_offset));
      ctx.set('Tus-Resumable', TUS_VERSION);
      if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
      throw err;
    }
  });

  router.delete('/v1/upload/resumable/:key', v1Statuses({ unlink: true }), auth, async (ctx) => {
    await deps.mediaUrls.delete(ctx.state.account!, ctx.params.key);
    ctx.set('Tus-Resumable', TUS_VERSION);
    ctx.status = 204;
  });

  return router;
}

/** Parses the multipart PATCH body into memory (at most chunkMax + 1 bytes of file). */
async function readChunk(ctx: Ctx, chunkMax: number, current: number): Promise<{ offset: number; chunk: Buffer }> {
  const bad = (code: ErrorCode, message: string) =>
    new AppError(code, `${message} The upload is at offset ${current}.`, { upload_offset: current });
  const type = ctx.get('content-type');
  if (!/^multipart\/form-data\b/i.test(type)) throw bad('expected_multipart', 'The body must be multipart/form-data with the fields offset and file.');
  const declared = ctx.get('content-length');
  if (declared && Number(declared) > chunkMax + MULTIPART_SLACK) {
    throw bad('chunk_too_large', `The body of ${declared} bytes is over the chunk limit of ${chunkMax} bytes.`);
  }

  const form = await new Promise<{ offsets: string[]; files: Buffer[]; tooLarge: boolean; other: string[]; overflow: boolean }>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: ctx.req.headers,
        limits: { fileSize: chunkMax + 1, files: 3, fields: 6, parts: 8, fieldSize: 64, headerPairs: 16 },
      });
    } catch {
      reject(bad('malformed_multipart', 'The multipart body could not be parsed.'));
      return;
    }
    const out = { offsets: [] as string[], files: [] as Buffer[], tooLarge: false, other: [] as string[], overflow: false };
    bb.on('field', (name, value, info) => {
      // busboy gives undefined, not a string, for a charset it cannot decode (charset=x-unknown)
      if (name === 'offset') out.offsets.push(info.valueTruncated ? '∞' : typeof value === 'string' ? value : '');
      else out.other.push(name);
    });
    bb.on('file', (name, stream) => {
      // a body cut inside a file part errors the part's stream too: unheard, that error would
      // end the process; busboy's own 'error' below gives the answer
      stream.on('error', () => {});
      if (name !== 'file') {
        out.other.push(name);
        stream.resume();
        return;
      }
      const parts: Buffer[] = [];
      stream.on('data', (c: Buffer) => parts.push(c));
      stream.on('limit', () => (out.tooLarge = true));
      stream.on('end', () => out.files.push(Buffer.concat(parts)));
    });
    for (const ev of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) bb.on(ev, () => (out.overflow = true));
    bb.on('error', () => reject(bad('malformed_multipart', 'The multipart body could not be parsed.')));
    bb.on('close', () => resolve(out));
    ctx.req.on('error', () => reject(bad('body_incomplete', 'The body ended early.')));
    ctx.req.pipe(bb);
  });

  if (form.overflow) throw bad('too_many_parts', 'The body has too many parts; send exactly one offset field and one file part.');
  if (form.other.length) throw bad('unexpected_part', `Unexpected part${form.other.length > 1 ? 's' : ''}: ${form.other.slice(0, 4).join(', ')}; send only offset and file.`);
  if (form.offsets.length === 0) throw bad('missing_offset', 'The offset field is missing.');
  if (form.offsets.length > 1) throw bad('repeated_offset', 'The offset field appears more than once.');
  if (form.files.length === 0) throw bad('missing_file', 'The file part is missing.');
  if (form.files.length > 1) throw bad('repeated_file', 'The file part appears more than once.');
  if (form.tooLarge || form.files[0].length > chunkMax) throw bad('chunk_too_large', `The chunk is over the limit of ${chunkMax} bytes.`);
  const raw = form.offsets[0].trim();
  if (/^-\d+$/.test(raw)) throw bad('invalid_offset', `offset ${raw} is negative.`);
  if (!/^\d+$/.test(raw)) throw bad('invalid_offset', 'offset must be a whole number of bytes.');
  if (raw.length > 16 || !Number.isSafeInteger(Number(raw))) throw bad('invalid_offset', 'offset is out of range.');
  return { offset: Number(raw), chunk: form.files[0] };
}
