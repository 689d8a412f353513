import { AppError } from '../domain/errors.ts';
import type { Ctx } from './context.ts';

/**
 * Reads a small JSON body. Empty body -> undefined. Refuses bodies over `limit` as they
 * arrive, and bodies that are not JSON, each with its own code.
 */
export async function readJson(ctx: Ctx, limit = 64 * 1024): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) {
    ctx.set('Connection', 'close');
    throw new AppError('body_too_large', `The JSON body is over ${limit} bytes.`);
  }
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req) {
    total += (chunk as Buffer).length;
    if (total > limit) {
      ctx.set('Connection', 'close');
      throw new AppError('body_too_large', `The JSON body is over ${limit} bytes.`);
    }
    parts.push(chunk as Buffer);
  }
  if (total === 0) return undefined;
  // Lenient about the label (curl -d sends form-urlencoded), strict about the content.
  const type = ctx.get('content-type');
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    if (type && !/json/i.test(type)) throw new AppError('expected_json');
    throw new AppError('invalid_json');
  }
}

/** A JSON object body (or an empty one), else 422. */
export async function readObject(ctx: Ctx, limit?: number): Promise<Record<string, unknown>> {
  const body = await readJson(ctx, limit);
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_body');
  }
  return body as Record<string, unknown>;
}
