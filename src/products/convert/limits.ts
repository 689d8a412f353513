// A convert job's limits, checked when it is started: every file is probed from its header (on
// the worker pool, like all media work) and the output the options ask for is planned and held
// to the same settings as inputs. One file over a limit refuses the whole job with 422 before
// any work: the user asked for one set of options, and learns which file and which setting.
// A file that cannot be read is left to the run, which reports it with that file alone.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConvertOptions } from '../../media/convert/options.ts';
import type { MediaLimits } from '../../media/limits.ts';
import { SNIFF_BYTES, probesInMemory, sniff } from '../../media/probe.ts';
import type { UploadRow, Scratch } from '../../domain/ports.ts';
import { AppError, errorCode } from '../../domain/errors.ts';
import { engineFailure, type MediaEngine } from '../../domain/media-engine.ts';
import type { Uploads } from '../../domain/uploads.ts';
import { toMemory } from '../../domain/input-bytes.ts';
import { toScratch } from '../../domain/scratch-io.ts';

/** Formats whose header sits at the start and that hold one picture: their first MiB is enough. */
const HEAD_ONLY = new Set(['jpeg', 'bmp']);
const HEAD_BYTES = 1 << 20;
const REFUSED = new Set(['limit_exceeded', 'output_too_large', 'too_much_memory']);

/** A file's first MiB (the whole file, when smaller), in one buffer of its own. */
export function readHead(uploads: Uploads, input: UploadRow): Promise<Buffer<ArrayBuffer>> {
  return toMemory(uploads, input, { start: 0, end: HEAD_BYTES });
}

/**
 * Refuses the job (422) when the file, or the output the options make of it, is over a limit.
 * `head` (readHead's, moved to the worker: not usable after) holds the header of most images,
 * which are probed from it with no scratch copy; any other file is copied into scratch whole.
 */
export async function refuseOverLimits(
  deps: { uploads: Uploads; limits: MediaLimits },
  file: { input: UploadRow; index: number; head: Buffer<ArrayBuffer> },
  options: ConvertOptions,
  ctx: { engine: MediaEngine; scratch: Scratch },
): Promise<void> {
  const { input, head } = file;
  const check = (bytes: string | Buffer<ArrayBuffer>) =>
    ctx.engine.run({ engine: 'convertCheck', args: { input: bytes, options, limits: deps.limits } }, { transfer: typeof bytes === 'string' ? undefined : [bytes.buffer] });
  try {
    const whole = head.length >= input.size;
    const kind = sniff(head.subarray(0, SNIFF_BYTES));
    if (probesInMemory(kind) && (whole || HEAD_ONLY.has((kind as { format: string }).format))) {
      try {
        return await check(head);
      } catch (err) {
        if (whole || REFUSED.has(engineFailure(err)?.error ?? '')) throw err;
        /* a header past the first MiB: the whole file, below */
      }
    }
    await ctx.scratch.with(async (dir) => {
      const path = join(dir, 'input');
      if (whole) await writeFile(path, head, { mode: 0o600 });
      else await toScratch(deps.uploads, input, path);
      await check(path);
    });
  } catch (err) {
    const f = engineFailure(err);
    if (!f) throw err;
    if (REFUSED.has(f.error)) throw new AppError(errorCode(f.error), `File ${file.index + 1} (${deps.uploads.nameOf(input)}): ${f.message}`);
  }
}
