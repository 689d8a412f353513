import { AppError } from '../../domain/errors.ts';
import { TERMINAL, type AssetPrivate, type Jobs } from '../../domain/jobs.ts';
import type { AssetRow, JobRow } from '../../domain/ports.ts';
import { urlFor, type Ctx } from '../context.ts';

/** A result file as clients read it; URLs on the network the request came in on. */
export function resultFile(ctx: Ctx, a: AssetRow & AssetPrivate, downloadBase: string): Record<string, unknown> {
  const path = `${downloadBase}/${a.id}`;
  return {
    asset_id: a.id,
    name: a.name,
    output_name: a.outputName,
    mime_type: a.mimeType,
    file_size: a.size,
    ...(a.extra?.width ? { width: a.extra.width, height: a.extra.height } : {}),
    notes: (a.extra?.notes as string[] | undefined) ?? [],
    download_path: path,
    download_url: urlFor(ctx, path),
  };
}

/** A time as the wire gives it: ISO 8601, or null when it has not come. */
export const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** A job as clients poll it (REST and MCP): the wire's names, and how long to wait while it runs. */
export function jobView(job: JobRow): Record<string, unknown> {
  return {
    job_uid: job.id,
    job_type: job.product,
    status: job.state,
    progress: job.progress,
    progress_message: job.progressMessage,
    error: job.error,
    ...(TERMINAL.includes(job.state) ? {} : { retry_after: job.state === 'queued' ? 2 : 1 }),
    created_at: iso(job.createdAt),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
    expires_at: iso(job.expiresAt),
  };
}

/** A just-started job, the same for every product (REST and MCP). */
export function startView(job: JobRow): Record<string, unknown> {
  return { job_uid: job.id, job_type: job.product, status: job.state, upload_uid: job.sessionId };
}

/** The answer to a job start, the same for every product: 201 and the job's first state. */
export function answerStart(ctx: Ctx, job: JobRow): void {
  ctx.status = 201;
  ctx.body = startView(job);
}

const MAX_WAIT_S = 30;

/**
 * The answer to a poll: the job's view, with Retry-After while it runs. `?wait=N` (seconds, at
 * most 30) holds the answer until the job changes state: one request instead of many, which
 * matters over Tor and I2P, where every round trip costs a second or more.
 */
export async function answerPoll(ctx: Ctx, jobs: Jobs, job: JobRow): Promise<void> {
  const raw = ctx.query.wait;
  if (raw !== undefined && (typeof raw !== 'string' || !/^\d{1,2}$/.test(raw) || Number(raw) > MAX_WAIT_S)) {
    throw new AppError('invalid_wait', `wait must be a whole number of seconds from 0 to ${MAX_WAIT_S}.`);
  }
  const ms = Number(raw ?? 0) * 1000;
  const gone = new AbortController();
  const onClose = () => gone.abort();
  ctx.res.once('close', onClose); // the response's close: the client went away (the request's fires once it is read)
  try {
    const view = jobView(await jobs.settle(job, ms, gone.signal));
    if (view.retry_after) ctx.set('Retry-After', String(view.retry_after));
    ctx.body = view;
  } finally {
    ctx.res.off('close', onClose);
  }
}
