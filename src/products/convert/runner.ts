// Convert: every file of the session to the asked format. Each file is decrypted once: an
// image sharp decodes into one buffer moved to the worker, anything else into the job's
// memory-backed scratch folder; converted on a worker, and the output sealed back into the
// store. Some files failing makes the job partial, all of them failed.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ConvertOptions } from '../../media/convert/options.ts';
import type { MediaLimits } from '../../media/limits.ts';
import { decodesFromMemory } from '../../media/convert/backends/sharp.ts';
import { SNIFF_BYTES, sniff } from '../../media/probe.ts';
import type { UploadRow } from '../../domain/ports.ts';
import { AppError } from '../../domain/errors.ts';
import { jobFailure } from '../../domain/media-engine.ts';
import { readInput } from '../../domain/input-bytes.ts';
import { fromScratch } from '../../domain/scratch-io.ts';
import type { JobContext, Runner, RunOutcome } from '../../domain/jobs.ts';
import type { Uploads } from '../../domain/uploads.ts';
import { outputName } from '../../domain/output-name.ts';
import { readHead, refuseOverLimits } from './limits.ts';

export interface FileFailure {
  storage_uid: string;
  name: string;
  error: string;
  message: string;
}

/** What a conversion keeps for its results: the files that failed. */
export interface ConvertReport {
  failures: FileFailure[];
}

export function convertRunner(deps: { uploads: Uploads; limits: MediaLimits; cpuBudgetMs?: number }): Runner<ConvertOptions> {
  return {
    product: 'convert',
    sessionTypes: ['convert'],

    async admit(options, inputs, ctx) {
      // each file's first MiB, read once: formats outside the allow-list are refused now, not
      // after a wait in the queue, and every limit, on the file and on the output the options
      // make of it, is checked before any work
      for (const [i, input] of inputs.entries()) {
        const head = await readHead(deps.uploads, input);
        const kind = sniff(head.subarray(0, SNIFF_BYTES));
        if (kind && 'allowed' in kind && kind.allowed === false) {
          throw new AppError('unsupported_media', `File ${i + 1} (${deps.uploads.nameOf(input)}) is ${kind.known}, which cannot be converted. Images and videos only.`);
        }
        await refuseOverLimits(deps, { input, index: i, head }, options, ctx);
      }
      return options;
    },

    async run(ctx: JobContext<ConvertOptions>): Promise<RunOutcome> {
      const { options } = ctx;
      const n = ctx.inputs.length;
      const failures: FileFailure[] = [];
      const used = new Set<string>();
      let done = 0;
      const redacted = { faces: 0, text: 0 };
      for (const [i, input] of ctx.inputs.entries()) {
        const label = `file ${i + 1} of ${n}`;
        ctx.progress(i / n, `Converting ${label}.`);
        const name = ctx.uploads.nameOf(input);
        try {
          await ctx.scratch.with(async (dir) => {
            const inPath = path.join(dir, 'input');
            const outDir = path.join(dir, 'out');
            await mkdir(outDir, { mode: 0o700 });
            const bytes = await readInput(ctx.uploads, input, inPath, decodesFromMemory);
            // the worker's "done" (f = 1) is not written: the next file's start, or the job's end, follows at once
            const r = await ctx.engine.run(
              { engine: 'convert', args: { input: bytes, outDir, options, limits: deps.limits, cpuBudgetMs: deps.cpuBudgetMs } },
              { signal: ctx.signal, onProgress: (f) => f < 1 && ctx.progress((i + f) / n, `Converting ${label}.`), transfer: typeof bytes === 'string' ? undefined : [bytes.buffer] },
            );
            redacted.faces += r.redacted?.faces ?? 0;
            redacted.text += r.redacted?.text ?? 0;
            await ctx.addAsset({
              category: 'result',
              name,
              outputName: outputName(name, r.extension, used),
              mimeType: r.mime,
              source: fromScratch(r.path),
              extra: { width: r.width, height: r.height, notes: r.notes, storage_uid: input.id },
            });
          });
          done++;
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          failures.push(failureOf(input, name, err));
        }
      }
      const report: ConvertReport = { failures };
      const r = redactionSummary(redacted, options);
      if (done === n) return { state: 'completed', message: `Converted ${n} file${n === 1 ? '' : 's'}.${r}`, report };
      const why = failures.map((f) => `${labelOf(ctx.inputs, f.storage_uid)}: ${f.message}`).join(' ');
      if (done === 0) return { state: 'failed', message: `No file could be converted. ${why}`, error: failures[0].error, report };
      return { state: 'partial', message: `Converted ${done} of ${n} files; ${failures.length} failed.${r} ${why}`, error: failures[0].error, report };
    },
  };
}

/** " 3 regions redacted (2 faces, 1 text region)." when redact was asked for; "" otherwise. */
function redactionSummary(count: { faces: number; text: number }, options: ConvertOptions): string {
  const targets = options.redact ?? [];
  if (!targets.length) return '';
  const parts: string[] = [];
  if (targets.includes('faces')) parts.push(`${count.faces} face${count.faces === 1 ? '' : 's'}`);
  if (targets.includes('text')) parts.push(`${count.text} text region${count.text === 1 ? '' : 's'}`);
  const n = count.faces + count.text;
  return ` ${n} region${n === 1 ? '' : 's'} redacted (${parts.join(', ')}).`;
}

function failureOf(input: UploadRow, name: string, err: unknown): FileFailure {
  return { storage_uid: input.id, name, ...jobFailure(err, 'The file could not be converted because of an error on our side.') };
}

function labelOf(inputs: UploadRow[], id: string): string {
  const i = inputs.findIndex((u) => u.id === id);
  return `File ${i + 1}`;
}
