// A finished hide or reveal as clients read it (REST and MCP): its files, download URLs on the
// request's network.
import type { JobResults } from '../../domain/job-results.ts';
import type { JobRow } from '../../domain/ports.ts';
import type { Ctx } from '../../http/context.ts';
import { iso, resultFile } from '../../http/api/results.ts';
import type { RevealReport } from './runner.ts';

export const STEGO_DOWNLOAD = '/api/job/download';

/** A finished hide or reveal job's results, download URLs on the request's network (REST and MCP). */
export async function stegoResults(ctx: Ctx, results: JobResults, job: JobRow): Promise<Record<string, unknown>> {
  const { assets, report } = await results.of<RevealReport>(job);
  return {
    job_uid: job.id,
    job_type: job.product,
    status: job.state,
    message: job.progressMessage,
    expires_at: iso(job.expiresAt),
    // a reveal that found something says what hid it
    ...(report.hidden_with ? { hidden_with: report.hidden_with } : {}),
    result_files: assets.map((a) => resultFile(ctx, a, STEGO_DOWNLOAD)),
  };
}
