import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { JobRow } from '../../domain/ports.ts';
import type { AnalysedFile } from '../../domain/runners/analyse.ts';
import { readObject } from '../body.ts';
import { urlFor, type AppState, type Ctx } from '../context.ts';
import { sendFile } from '../download.ts';
import { answerPoll, answerStart } from './results.ts';
import { requireKey } from '../middleware/auth.ts';
import { jobStartBodies } from '../schemas/jobs.ts';
import { validate } from '../schemas/validate.ts';

/**
 * The per-file items of an analyse job, as both interfaces answer them: assets become
 * download paths on the network the request came in on; tips are left out unless asked for.
 * The findings' and grade reasons' messages (catalogue ids, for the pages' languages) are left
 * out: the API says them in English, in label, tip and reason.
 */
export async function analyseItems(ctx: Ctx, results: JobResults, job: JobRow): Promise<Record<string, unknown>[]> {
  const { report, assets } = await results.of(job);
  return analyseItemsOf(ctx, report, assets);
}

/** The same items from a report and assets already read (results.of); the web report keeps the
 *  messages (`messages: true`) to say them in the page's language. */
export function analyseItemsOf(ctx: Ctx, report: Record<string, unknown>, assets: Awaited<ReturnType<JobResults['of']>>['assets'], opts: { messages?: boolean } = {}): Record<string, unknown>[] {
  const tips = report.tips !== false;
  const byId = new Map(assets.map((a) => [a.id, a]));
  return ((report.files as AnalysedFile[] | undefined) ?? []).map((f) => {
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
        const path = `/api/analyse/asset/${a.id}`;
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
    expires_at: job.expiresAt === null ? null : new Date(job.expiresAt).toISOString(),
    files: await analyseItems(ctx, results, job),
  };
}

// Analyse: start on an analyse session, poll by upload_uid, read the result by job_uid.
export function analyseRoutes(deps: { apiKeys: ApiKeys; jobs: Jobs; results: JobResults }): Router<AppState> {
  const router = newRouter();
  const auth = requireKey(deps.apiKeys, 'x-api-key');
  const { jobs, results } = deps;
  const { analyse } = jobStartBodies(jobs.limits.expiryMaxMs);

  router.post('/api/analyse/job', requireKey(deps.apiKeys, 'x-api-key', 'job'), async (ctx) => {
    const job = await jobs.create(ctx.state.account!, 'analyse', validate(analyse, await readObject(ctx)));
    answerStart(ctx, job);
  });

  router.get('/api/analyse/job/:uid', auth, async (ctx) => {
    await answerPoll(ctx, jobs, await jobs.latest(ctx.state.account!, ctx.params.uid, 'analyse'));
  });

  router.get('/api/analyse/result/:job', auth, async (ctx) => {
    ctx.body = await analyseResult(ctx, results, await jobs.byUid(ctx.state.account!, ctx.params.job, 'analyse'));
  });

  router.get('/api/analyse/asset/:asset', auth, async (ctx) => {
    const { asset, read } = await results.asset(ctx.state.account!, ctx.params.asset, 'analyse');
    sendFile(ctx, { size: asset.size, mimeType: asset.mimeType, name: `${asset.category}.${asset.mimeType === 'image/png' ? 'png' : 'jpg'}` }, read);
  });

  return router;
}
