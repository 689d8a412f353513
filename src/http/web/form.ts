// Form bodies of the web pages. Small forms are url-encoded; product forms are multipart and
// carry files, read as a stream: each file goes into the encrypted store as it arrives, never
// whole into memory and never in the clear onto disk. The CSRF token must come first: a file
// before a valid token is refused without a byte of it stored.
import busboy from 'busboy';
import { AppError } from '../../domain/errors.ts';
import type { Ctx } from '../context.ts';

export type Fields = Record<string, string[]>;

const FORM_MAX = 16 * 1024;

export function csrfRefused(): AppError {
  return new AppError('csrf_failed');
}

/** A url-encoded form, CSRF checked. */
export async function readForm(ctx: Ctx, csrfValid: (presented: unknown) => boolean): Promise<Fields> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(ctx.get('content-type'))) {
    throw new AppError('expected_form');
  }
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > FORM_MAX) throw new AppError('body_too_large', `The form is over ${FORM_MAX} bytes.`);
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req) {
    total += (chunk as Buffer).length;
    if (total > FORM_MAX) throw new AppError('body_too_large', `The form is over ${FORM_MAX} bytes.`);
    parts.push(chunk as Buffer);
  }
  const fields: Fields = {};
  for (const [k, v] of new URLSearchParams(Buffer.concat(parts).toString('utf8'))) (fields[k] ??= []).push(v);
  if (!csrfValid(fields.csrf?.[0])) throw csrfRefused();
  return fields;
}

export interface MultipartLimits {
  files: number;
  /** Whole body, checked against Content-Length before a byte is read. */
  bodyMax: number;
}

/**
 * A multipart form: fields are collected into `fields` (kept even when the form fails, so the
 * page can show them again); each file is handed to `onFile` in turn (a file input
 * left empty is skipped). The first failure stops the storing; the rest of the body is read and
 * dropped, so the browser gets the page that says what went wrong.
 */
export async function readMultipart(
  ctx: Ctx,
  csrfValid: (presented: unknown) => boolean,
  limits: MultipartLimits,
  onFile: (field: string, name: string, bytes: AsyncIterable<Buffer>) => Promise<void>,
  fields: Fields = {},
): Promise<Fields> {
  if (!/^multipart\/form-data\b/i.test(ctx.get('content-type'))) throw new AppError('expected_multipart', 'Send this form from its page.');
  const cl = ctx.get('content-length');
  if (!/^\d{1,16}$/.test(cl)) throw new AppError('length_required', 'The form must be sent with a Content-Length.');
  if (Number(cl) > limits.bodyMax) {
    ctx.set('Connection', 'close');
    throw new AppError('file_too_large', `The files are ${Number(cl)} bytes together; a form takes at most ${limits.bodyMax} bytes.`, { max_upload_bytes: limits.bodyMax });
  }
  let failure: unknown;
  let trusted = false;
  let chain = Promise.resolve();
  const fail = (err: unknown) => {
    failure ??= err;
  };
  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { files: limits.files, fields: 64, parts: limits.files + 64, fieldSize: 8 * 1024, fieldNameSize: 64 } });
  } catch {
    throw new AppError('invalid_multipart', 'The form body is not valid multipart.');
  }
  bb.on('field', (name, value, info) => {
    if (name === 'csrf' && !trusted && Object.keys(fields).length === 0) trusted = csrfValid(value);
    if (!trusted) return fail(csrfRefused());
    if (info.valueTruncated) fail(new AppError('field_too_long', `The field ${name.slice(0, 64)} is too long.`));
    (fields[name] ??= []).push(value);
  });
  bb.on('file', (field, stream, info) => {
    if (!trusted) fail(csrfRefused());
    const name = info.filename;
    if (failure !== undefined || !name) {
      stream.resume();
      return;
    }
    chain = chain.then(async () => {
      if (failure !== undefined) return void stream.resume();
      try {
        // an iterator that leaves the part alone when the store stops early: destroying it would
        // stall the parser, and the rest of the part must still be read past
        await onFile(field, name, stream.iterator({ destroyOnReturn: false }));
      } catch (err) {
        fail(err);
      }
      stream.resume(); // whatever the store did not take is read and dropped
    });
  });
  bb.on('filesLimit', () => fail(new AppError('too_many_files', `A form takes at most ${limits.files} files.`)));
  bb.on('fieldsLimit', () => fail(new AppError('too_many_fields', 'The form has too many fields.')));
  bb.on('partsLimit', () => fail(new AppError('too_many_fields', 'The form has too many parts.')));
  await new Promise<void>((resolve, reject) => {
    bb.on('close', resolve);
    bb.on('error', (err) => reject(clientGoneOr(err)));
    ctx.req.on('error', reject);
    ctx.req.pipe(bb);
  });
  await chain;
  if (failure !== undefined) throw failure;
  return fields;
}

function clientGoneOr(err: unknown): unknown {
  return /Unexpected end of form|Malformed/i.test(String((err as Error)?.message))
    ? new AppError('invalid_multipart', 'The form body was cut short or is not valid multipart.')
    : err;
}
