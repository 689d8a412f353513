// Analyse: every step-1 file of the session goes through the analyse pipeline on the worker
// pool; maps and the display image become the job's assets (sealed, destroyed with the job).
// One file that fails does not sink the others: the job ends partial.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { MediaLimits } from '../../media/limits.ts';
import { finding, type Finding } from '../../media/analyse/detector.ts';
import { API_WORDS } from '../../media/analyse/api-words.ts';
import type { FileAnalysis } from '../../media/analyse/index.ts';
import { AppError } from '../errors.ts';
import { jobFailure } from '../media-engine.ts';
import { fromScratch, toScratch } from './scratch-io.ts';
import type { JobContext, Runner, RunOutcome } from '../jobs.ts';
import type { Uploads } from '../uploads.ts';

export interface AnalyseOptionsBody {
  /** Plain-language tips with each finding (v1's enableTips; on by default here). */
  tips: boolean;
  face_detection: boolean;
  text_detection: boolean;
  face_sensitivity: number;
  forensic_depth: 'standard' | 'deep';
}

/** One file's entry in the job report; asset ids are turned into URLs by the HTTP layer. */
export type AnalysedFile =
  | ({ name: string; ok: true; asset_ids: string[] } & Omit<FileAnalysis, 'assets' | 'timings_ms'>)
  | { name: string; ok: false; error: string; message: string };

const SENSITIVITY: Record<string, number> = { low: 0.3, medium: 0.5, high: 0.7 };

function bool(body: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = body[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw new AppError('invalid_option', `${key} must be true or false.`);
  return v;
}

/** Checks the start options of an analyse job; malformed options are a 422. Unknown keys never get
 *  here: the start's schema refuses them (http/schemas/validate.ts, strictBody). */
export function analyseOptions(body: Record<string, unknown>): AnalyseOptionsBody {
  const depth = body.forensic_depth ?? 'standard';
  if (depth !== 'standard' && depth !== 'deep') throw new AppError('invalid_option', 'forensic_depth must be "standard" or "deep".');
  let sensitivity = body.face_sensitivity ?? 0.5;
  if (typeof sensitivity === 'string' && sensitivity in SENSITIVITY) sensitivity = SENSITIVITY[sensitivity];
  if (typeof sensitivity !== 'number' || !(sensitivity >= 0 && sensitivity <= 1)) {
    throw new AppError('invalid_option', 'face_sensitivity must be a number from 0 to 1, or "low", "medium" or "high".');
  }
  return { tips: bool(body, 'tips', true), face_detection: bool(body, 'face_detection', true), text_detection: bool(body, 'text_detection', true), face_sensitivity: sensitivity, forensic_depth: depth };
}

/** A null count always comes with a finding saying why; the detectors say it themselves when
 *  they ran, and this says it for a detector that gave no finding (a check turned off). */
function notAskedFor(findings: Finding[], opts: AnalyseOptionsBody): void {
  const said = (detector: string) => findings.some((f) => f.detector === detector);
  if (!opts.face_detection && !said('faces')) {
    findings.push(finding('faces', 'info', 'finding.faces.off', { off: API_WORDS.facesOff, count: API_WORDS.countNull }));
  }
  if (!said('text')) {
    findings.push(opts.text_detection ? finding('text', 'info', 'finding.text.no_answer') : finding('text', 'info', 'finding.text.off', { off: API_WORDS.textOff, count: API_WORDS.countNull }));
  }
}

export function analyseRunner(deps: { uploads: Uploads; limits: MediaLimits; c2paTrustAnchors?: string; ocrRecycleAfter?: number }): Runner {
  return {
    product: 'analyse',
    sessionTypes: ['analyse'],

    async validate(body) {
      return { ...analyseOptions(body) };
    },

    async run(ctx: JobContext): Promise<RunOutcome> {
      const opts = ctx.options as unknown as AnalyseOptionsBody;
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
        return { state: 'failed', message: n === 1 ? only.message : `None of the ${n} files could be analysed.`, error: n === 1 ? only.error : 'all_failed', report: { files, tips: opts.tips } };
      }
      return {
        state: failed ? 'partial' : 'completed',
        message: failed ? `Analysed ${n - failed} of ${n} files; ${failed} could not be analysed.` : `Analysed ${n} file${n === 1 ? '' : 's'}.`,
        report: { files, tips: opts.tips },
      };
    },
  };
}
