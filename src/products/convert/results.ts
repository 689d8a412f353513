// A finished conversion as clients read it (REST and MCP): its files, download URLs on the
// request's network, and the files that failed and why.
import type { JobResults } from '../../domain/job-results.ts';
import type { JobRow } from '../../domain/ports.ts';
import type { Ctx } from '../../http/context.ts';
import { iso, resultFile } from '../../http/api/results.ts';
import type { ConvertReport } from './runner.ts';

export const CONVERT_DOWNLOAD = '/api/convert/download';

export async function convertResults(ctx: Ctx, results: JobResults, job: JobRow): Promise<Record<string, unknown>> {
  const { report, assets } = await results.of<ConvertReport>(job);
  return {
    job_uid: job.id,
    status: job.state,
    expires_at: iso(job.expiresAt),
    result_files: assets.map((a) => resultFile(ctx, a, CONVERT_DOWNLOAD)),
    failed_files: (report.failures ?? []).map((f) => ({ name: f.name, error: f.error, message: f.message })),
  };
}
