// Analyse: every step-1 file of the session goes through the analyse pipeline on the worker
// pool; maps and the display image become the job's assets (sealed, destroyed with the job).
// One file that fails does not sink the others: the job ends partial.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { MediaLimits } from '../../media/limits.ts';
import { finding, type Finding } from '../../media/analyse/detector.ts';
import { API_WORDS } from '../../media/analyse/api-words.ts';
import type { FileAnalysis } from '../../media/analyse/index.ts';
import { jobFailure } from '../../domain/media-engine.ts';
import { fromScratch, toScratch } from '../../domain/scratch-io.ts';
import type { JobContext, Runner, RunOutcome } from '../../domain/jobs.ts';
import type { Uploads } from '../../domain/uploads.ts';
import type { AnalyseJobOptions } from './start.ts';

/** One file's entry in the job report; asset ids are turned into URLs by the HTTP layer. */
export type AnalysedFile =
  | ({ name: string; ok: true; asset_ids: string[] } & Omit<FileAnalysis, 'assets' | 'timings_ms'>)
  | { name: string; ok: false; error: string; message: string };

/** What an analysis keeps for its result. */
export interface AnalyseReport {
  files: AnalysedFile[];
  tips: boolean;
}

/** A null count always comes with a finding saying why; the detectors say it themselves when
 *  they ran, and this says it for a detector that gave no finding (a check turned off). */
function notAskedFor(findings: Finding[], opts: AnalyseJobOptions): void {
  const said = (detector: string) => findings.some((f) => f.detector === detector);
  if (!opts.face_detection && !said('faces')) {
    findings.push(finding('faces', 'info', 'finding.faces.off', { off: API_WORDS.facesOff, count: API_WORDS.countNull }));
  }
  if (!said('text')) {
    findings.push(opts.text_detection ? finding('text', 'info', 'finding.text.no_answer') : finding('text', 'info', 'finding.text.off', { off: API_WORDS.textOff, count: API_WORDS.countNull }));
  }
}

export function analyseRunner(deps: { uploads: Uploads; limits: MediaLimits; c2paTrustAnchors?: string; ocrRecycleAfter?: number }): Runner<AnalyseJobOptions> {
  return {
    product: 'analyse',
    sessionTypes: ['analyse'],

    // every file is looked at on its own when the job runs: one that cannot be read fails alone
    async admit(options) {
      return options;
    },

    async run(ctx: JobContext<AnalyseJobOptions>): Promise<RunOutcome> {
      const opts = ctx.options;
      const inputs = ctx.inputs.filter((u) => u.step === 1);
      const files: AnalysedFile[] = [];
      for (const [i, upload] of inputs.entries()) {
        const name = ctx.uploads.nameOf(upload);
        ctx.progress(i / inputs.length, `Analysing file ${i + 1} of ${inputs.length}.`);
        try {
          const entry = await ctx.scratch.with(async (dir) => {
            const input = path.join(dir, 'input');
            const outDir = path.join(dir, 'out');
            await mkdir(outDir, { mode: 0o700 });
            await toScratch(ctx.uploads, upload, input);
            const r = await ctx.engine.run(
              {
                engine: 'analyse',
                args: {
                  input,
                  outDir,
                  depth: opts.forensic_depth,
                  limits: deps.limits,
                  c2paTrustAnchors: deps.c2paTrustAnchors,
                  faces: { enabled: opts.face_detection, sensitivity: opts.face_sensitivity },
                  text: { enabled: opts.text_detection, recycleAfter: deps.ocrRecycleAfter },
                },
              },
              { signal: ctx.signal },
            );
            const ids: string[] = [];
            for (const a of r.assets) {
              const row = await ctx.addAsset({ category: a.category, name, mimeType: a.mime, source: fromScratch(a.path) });
              ids.push(row.id);
            }
            const { assets: _a, timings_ms: _t, ...analysis } = r;
            notAskedFor(analysis.verdicts.findings, opts);
            return { name, ok: true as const, asset_ids: ids, ...analysis };
          });
          files.push(entry);
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          files.push({ name, ok: false, ...jobFailure(err, 'The analysis failed on our side.') });
        }
      }
      const failed = files.filter((f) => !f.ok).length;
      const n = files.length;
      if (failed === n) {
        const only = files[0] as { message: string; error: string };
        return { state: 'failed', message: n === 1 ? only.message : `None of the ${n} files could be analysed.`, error: n === 1 ? only.error : 'all_failed', report: { files, tips: opts.tips } satisfies AnalyseReport };
      }
      return {
        state: failed ? 'partial' : 'completed',
        message: failed ? `Analysed ${n - failed} of ${n} files; ${failed} could not be analysed.` : `Analysed ${n} file${n === 1 ? '' : 's'}.`,
        report: { files, tips: opts.tips } satisfies AnalyseReport,
      };
    },
  };
}
