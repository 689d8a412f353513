// The CPU time one file's conversion may use (OBSCURA_CONVERT_CPU_BUDGET), over every tool
// and every sharp pipeline it runs. Tools (ffmpeg, heif-enc, cjxl, ...) are measured from
// /proc while they run and killed once over (runTool). sharp cannot be measured: libvips works
// on threads it shares with every other job of the process. Its work is bounded instead by
// sharp's own timeout, in wall time, set to the remaining budget divided by the threads libvips
// may keep busy, and charged as the smaller of two upper bounds of its CPU: that wall time
// times those threads, and the whole process's CPU time over the same span. libvips checks its
// timeout between tiles and frames, not inside the last frame's encode (AVIF, WebP), which
// runs to its end (bounded by OBSCURA_MAX_PIXELS); a file found over the budget then fails all
// the same.
import sharp, { type Sharp } from 'sharp';
import { MediaError } from '../errors.ts';
import { formatDuration } from '../probe.ts';
import type { CpuMeter } from '../tools.ts';

export class CpuBudget implements CpuMeter {
  readonly limitMs: number;
  #spentMs = 0;

  /** Infinity: no budget (direct calls of convert(), which set none). */
  constructor(limitMs = Infinity) {
    this.limitMs = limitMs;
  }

  remainingMs(): number {
    return Math.max(0, this.limitMs - this.#spentMs);
  }

  spend(ms: number): void {
    this.#spentMs += ms;
  }

  exceeded(): MediaError {
    return new MediaError(
      'cpu_budget_exceeded',
      `Converting this file needed more processing time than OBSCURA_CONVERT_CPU_BUDGET allows (${formatDuration(this.limitMs / 1000)} of CPU per file), so it was stopped. A smaller width or height, or a shorter video, needs less.`,
    );
  }

  /** Runs one sharp pipeline's output step within the budget, and books what it used. */
  async sharp<T>(pipeline: Sharp, write: (p: Sharp) => Promise<T>): Promise<T> {
    if (this.limitMs === Infinity) return write(pipeline);
    // libvips' worker threads, and the thread that writes behind them
    const threads = sharp.concurrency() + 1;
    const seconds = Math.min(3600, Math.max(1, Math.floor(this.remainingMs() / 1000 / threads)));
    const wallStart = performance.now();
    const cpuStart = process.cpuUsage();
    const book = () => {
      const cpu = process.cpuUsage(cpuStart);
      this.spend(Math.min((performance.now() - wallStart) * threads, (cpu.user + cpu.system) / 1000));
    };
    let result: T;
    try {
      result = await write(pipeline.timeout({ seconds }));
    } catch (e) {
      book();
      // sharp's own words for its timeout: "timeout: 64% complete"
      if (e instanceof Error && /^timeout: \d+% complete/.test(e.message)) throw this.exceeded();
      throw e;
    }
    book();
    if (this.#spentMs > this.limitMs) throw this.exceeded();
    return result;
  }
}
