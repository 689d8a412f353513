import type { Readable } from 'node:stream';
import { AppError } from '../domain/errors.ts';
import { safeName } from '../domain/uploads.ts';
import type { Ctx } from './context.ts';

/**
 * Sends a stored file: one byte range when asked (206, or 416 when it cannot be met),
 * else the whole file; always as an attachment, with the name encoded per RFC 6266/5987.
 */
export function sendFile(
  ctx: Ctx,
  file: { size: number; mimeType: string; name: string },
  read: (range?: { start: number; end: number }) => Readable,
): void {
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Content-Disposition', contentDisposition(safeName(file.name)));
  ctx.type = file.mimeType;
  const header = ctx.get('range');
  const range = header ? parseRange(header, file.size) : undefined;
  if (range === 'unsatisfiable') {
    ctx.set('Content-Range', `bytes */${file.size}`);
    throw new AppError('range_not_satisfiable', `The range ${header.slice(0, 60)} is outside the file's ${file.size} bytes.`);
  }
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end - 1}/${file.size}`);
    ctx.length = range.end - range.start;
    ctx.body = read(range);
    ctx.type = file.mimeType;
    return;
  }
  ctx.status = 200;
  ctx.length = file.size;
  ctx.body = read();
  ctx.type = file.mimeType;
}

/** One `bytes=` range; several ranges are answered with the whole file (allowed by RFC 9110). */
function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size : Math.min(size, Number(m[2]) + 1);
  if (start >= size || end <= start) return 'unsatisfiable';
  return { start, end };
}

function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
