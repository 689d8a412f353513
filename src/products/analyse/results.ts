// A finished analysis as clients read it: one item per file (REST, MCP, v1 and the web report).
import type { JobResults } from '../../domain/job-results.ts';
import type { JobRow } from '../../domain/ports.ts';
import { iso } from '../../http/api/results.ts';
import { urlFor, type Ctx } from '../../http/context.ts';
import type { AnalyseReport } from './runner.ts';

export const ANALYSE_ASSET = '/api/analyse/asset';

/**
 * The per-file items of an analyse job, as both interfaces answer them: assets become
 * download paths on the network the request came in on; tips are left out unless asked for.
 * The findings' and grade reasons' messages (catalogue ids, for the pages' languages) are left
 * out: the API says them in English, in label, tip and reason.
 */
export async function analyseItems(ctx: Ctx, results: JobResults, job: JobRow): Promise<Record<string, unknown>[]> {
  const { report, assets } = await results.of<AnalyseReport>(job);
  return analyseItemsOf(ctx, report, assets);
}

/** The same items from a report and assets already read (results.of); the web report keeps the
 *  messages (`messages: true`) to say them in the page's language. */
export function analyseItemsOf(ctx: Ctx, report: Partial<AnalyseReport>, assets: Awaited<ReturnType<JobResults['of']>>['assets'], opts: { messages?: boolean } = {}): Record<string, unknown>[] {
  const tips = report.tips !== false;
  const byId = new Map(assets.map((a) => [a.id, a]));
  return (report.files ?? []).map((f) => {
    if (!f.ok) return { name: f.name, error: f.error, message: f.message, grade: null };
    const { ok: _ok, asset_ids, verdicts, grade_reasons, ...rest } = f;
    const findings = verdicts.findings.map(({ tip, tipMessage, message, ...finding }) => ({
      ...finding,
      ...(tips && tip ? { tip } : {}),
      ...(opts.messages ? { message, ...(tips && tipMessage ? { tipMessage } : {}) } : {}),
    }));
    return {
      ...rest,
      grade_reasons: opts.messages ? grade_reasons : grade_reasons.map(({ points, reason }) => ({ points, reason })),
      verdicts: { ...verdicts, findings },
      assets: asset_ids.flatMap((id) => {
        const a = byId.get(id);
        if (!a) return [];
        const path = `${ANALYSE_ASSET}/${a.id}`;
        return [{ asset_id: a.id, category: a.category, mime_type: a.mimeType, file_size: a.size, download_path: path, download_url: urlFor(ctx, path) }];
      }),
    };
  });
}

/** A finished analyse job's result: one item per file (REST and MCP). */
export async function analyseResult(ctx: Ctx, results: JobResults, job: JobRow): Promise<Record<string, unknown>> {
  return {
    job_uid: job.id,
    status: job.state,
    message: job.progressMessage,
    expires_at: iso(job.expiresAt),
    files: await analyseItems(ctx, results, job),
  };
}
