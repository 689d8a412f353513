// The engines a worker thread can run, by name. Each takes plain data (paths in the job's
// scratch folder, options, limits) and returns plain data; bytes stay in scratch.
import type { MediaLimits } from './limits.ts';
import type { ConvertOptions } from './convert/options.ts';

export interface EngineContext {
  signal: AbortSignal;
  onProgress: (fraction: number) => void;
  onSpawn: (pid: number) => void;
  onReap: (pid: number) => void;
}

export type Engine = (args: never, ctx: EngineContext) => Promise<unknown>;

export interface ConvertArgs {
  input: string;
  outDir: string;
  options: ConvertOptions;
  limits: MediaLimits;
}

export const engines: Record<string, (args: unknown, ctx: EngineContext) => Promise<unknown>> = {
  async convert(args, ctx) {
    const a = args as ConvertArgs;
    const { convert } = await import('./convert/index.ts');
    return convert(a.input, a.outDir, a.options, { limits: a.limits, signal: ctx.signal, onProgress: ctx.onProgress, onSpawn: ctx.onSpawn, onReap: ctx.onReap });
  },
  async probe(args, ctx) {
    const a = args as { input: string; limits: MediaLimits };
    const { probe } = await import('./probe.ts');
    return probe(a.input, a.limits, { signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap });
  },
};
