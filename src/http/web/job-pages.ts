// A job's page: while it runs, its progress and a link to look again (no timed reload: a page
// that reloads itself moves a screen reader back to its top, WCAG 2.2.1); once it ends, its
// results: downloads for hide, reveal and convert, the report for analyse. Files are named by their place in the job (/job/<id>/file/<n>): the only identifier
// in a page's URL is the job's own.
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import { AppError } from '../../domain/errors.ts';
import { TERMINAL, type Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { JobRow } from '../../domain/ports.ts';
import { analyseItemsOf } from '../../products/analyse/results.ts';
import type { AnalyseReport } from '../../products/analyse/runner.ts';
import type { ConvertReport } from '../../products/convert/runner.ts';
import type { AppState, Ctx } from '../context.ts';
import { sendFile } from '../download.ts';
import { person } from './account-pages.ts';
import { failureText, jobText } from './job-words.ts';
import { render, wordsOf } from './respond.ts';
import type { Words } from './words.ts';
import { jobTitle, jobView, stegoResultView, convertResultView, type JobInfo, type ResultFile } from './views/job.ts';
import { analyseReportView } from './views/report.ts';

/** The job as its page shows it: its message in the page's words (the job keeps the API's English). */
function info(job: JobRow, words: Words, opts: { perFileListed?: boolean } = {}): JobInfo {
  return {
    id: job.id,
    product: job.product,
    state: job.state,
    progress: job.progress,
    message: job.state === 'failed' && !opts.perFileListed ? failureText(job.error, job.progressMessage, words, opts) : jobText(job.progressMessage, words, opts),
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
    expiresAt: job.expiresAt,
  };
}

export function jobPages(d: { jobs: Jobs; results: JobResults }): Router<AppState> {
  const router = newRouter();

  router.get('/job/:id', async (ctx) => {
    const account = person(ctx);
    if (!account) return;
    const job = await d.jobs.owned(account, ctx.params.id);
    const words = wordsOf(ctx);
    const title = jobTitle(job, words);
    if (!TERMINAL.includes(job.state)) return render(ctx, { title }, jobView({ job: info(job, words), words }));
    const { report, assets } = await d.results.of<AnalyseReport & ConvertReport>(job);
    const files: ResultFile[] = assets.map((a, n) => ({
      n,
      name: a.name,
      outputName: a.outputName,
      mimeType: a.mimeType,
      size: a.size,
      width: a.extra?.width as number | undefined,
      height: a.extra?.height as number | undefined,
      notes: ((a.extra?.notes as string[] | undefined) ?? []).map((n) => jobText(n, words)),
    }));
    if (job.product === 'analyse') {
      const place = new Map(assets.map((a, n) => [a.id, n]));
      // a file that could not be analysed: its reason by its code, in the page's words
      const items = analyseItemsOf(ctx, report, assets, { messages: true }).map((it) =>
        typeof it.message === 'string' ? { ...it, message: failureText(it.error as string | undefined, it.message, words) } : it,
      );
      return render(ctx, { title }, analyseReportView({ job: info(job, words), items, assetHref: (id) => `/job/${job.id}/file/${place.get(id) ?? -1}`, words }));
    }
    if (job.product === 'convert') {
      const failed = (report.failures ?? []).map((f) => ({ name: f.name, error: f.error, message: failureText(f.error, f.message, words) }));
      return render(ctx, { title }, convertResultView({ job: info(job, words, { perFileListed: failed.length > 0 }), files, failed, words }));
    }
    render(ctx, { title }, stegoResultView({ job: info(job, words), files, words }));
  });

  // Downloads (and the report's pictures): always attachments, under a safe name.
  router.get('/job/:id/file/:n', async (ctx) => {
    const account = person(ctx);
    if (!account) return;
    const job = await d.jobs.owned(account, ctx.params.id);
    const n = /^\d{1,4}$/.test(ctx.params.n) ? Number(ctx.params.n) : -1;
    // of() checked the job is the account's and its results have not expired
    const asset = (await d.results.of(job)).assets[n];
    if (!asset) throw new AppError('asset_not_found');
    const read = (range?: { start: number; end: number }) => d.results.bytes(asset, range);
    const name = job.product === 'analyse' ? `${asset.category}.${asset.mimeType === 'image/png' ? 'png' : 'jpg'}` : (asset.outputName ?? asset.name);
    sendFile(ctx as Ctx, { size: asset.size, mimeType: asset.mimeType, name }, read);
  });

  return router;
}
