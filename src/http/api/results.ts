import type { AssetPrivate } from '../../domain/jobs.ts';
import type { AssetRow, JobRow } from '../../store/repositories.ts';
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

/** The answer to a job start, the same for every product: 201 and the job's first state. */
export function answerStart(ctx: Ctx, job: JobRow): void {
  ctx.status = 201;
  ctx.body = { job_uid: job.id, job_type: job.product, status: job.state, upload_uid: job.sessionId };
}

/** The answer to a poll: the job's view, with Retry-After while it runs. */
export function answerPoll(ctx: Ctx, view: Record<string, unknown>): void {
  if (view.retry_after) ctx.set('Retry-After', String(view.retry_after));
  ctx.body = view;
}
