// A convert job's limits, checked when it is started: every file is probed from its header (on
// the worker pool, like all media work) and the output the options ask for is planned and held
// to the same settings as inputs. One file over a limit refuses the whole job with 422 before
// any work: the user asked for one set of options, and learns which file and which setting.
// A file that cannot be read is left to the run, which reports it with that file alone.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ConvertOptions } from '../../media/convert/options.ts';
import type { MediaLimits } from '../../media/limits.ts';
import { SNIFF_BYTES, sniff } from '../../media/probe.ts';
import { TaskError, type WorkerPool } from '../../queue/worker-pool.ts';
import type { UploadRow, Scratch } from '../ports.ts';
import { AppError } from '../errors.ts';
import type { Uploads } from '../uploads.ts';
import { toScratch } from './scratch-io.ts';

/** Formats whose header sits at the start and that hold one picture: their first MiB is enough. */
const HEAD_ONLY = new Set(['jpeg', 'bmp']);
const HEAD_BYTES = 1 << 20;
const REFUSED = new Set(['limit_exceeded', 'output_too_large', 'too_much_memory']);

export async function refuseOverLimits(
  deps: { uploads: Uploads; limits: MediaLimits },
  inputs: UploadRow[],
  options: ConvertOptions,
  ctx: { pool: WorkerPool; scratch: Scratch },
): Promise<void> {
  for (const [i, input] of inputs.entries()) {
    try {
      await ctx.scratch.with(async (dir) => {
        const file = path.join(dir, 'input');
        const check = () => ctx.pool.run({ engine: 'convertCheck', args: { input: file, options, limits: deps.limits } });
        if (input.size > HEAD_BYTES) {
          await toScratch(deps.uploads, input, file, { start: 0, end: HEAD_BYTES - 1 });
          const kind = sniff((await readFile(file)).subarray(0, SNIFF_BYTES));
          if (kind && 'format' in kind && HEAD_ONLY.has(kind.format)) {
            try {
              return await check();
            } catch (err) {
              if (err instanceof TaskError && REFUSED.has(err.code)) throw err;
              /* a header past the first MiB: the whole file, below */
            }
          }
        }
        await toScratch(deps.uploads, input, file);
        await check();
      });
    } catch (err) {
      if (!(err instanceof TaskError)) throw err;
      if (REFUSED.has(err.code)) throw new AppError('invalid', err.code, `File ${i + 1} (${deps.uploads.nameOf(input)}): ${err.message}`);
    }
  }
}
