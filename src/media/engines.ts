// The engines a worker thread can run, by name. Each takes plain data (paths in the job's
// scratch folder, options, limits) and returns plain data; bytes stay in scratch.
import type { MessagePort } from 'node:worker_threads';
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
  /** OBSCURA_CONVERT_CPU_BUDGET, in ms. */
  cpuBudgetMs?: number;
}

export const engines: Record<string, (args: unknown, ctx: EngineContext) => Promise<unknown>> = {
  async convert(args, ctx) {
    const a = args as ConvertArgs;
    const { convert } = await import('./convert/index.ts');
    return convert(a.input, a.outDir, a.options, { limits: a.limits, cpuBudgetMs: a.cpuBudgetMs, signal: ctx.signal, onProgress: ctx.onProgress, onSpawn: ctx.onSpawn, onReap: ctx.onReap });
  },
  /** A convert job's limits, at its start: the header is read with no limit, then held to every limit, input and output. */
  async convertCheck(args, ctx) {
    const a = args as { input: string; options: ConvertOptions; limits: MediaLimits };
    const { probeDetailed } = await import('./probe.ts');
    const { UNBOUNDED, checkLimits } = await import('./convert/output-limits.ts');
    checkLimits(await probeDetailed(a.input, UNBOUNDED, { signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap }), a.options, a.limits);
  },
  async hide(args, ctx) {
    const a = args as { cover: string; secrets: { path: string; name: string }[]; keys: MessagePort; outDir: string; format: 'png' | 'webp' | 'avif' | 'mkv' | 'webm'; limits: MediaLimits };
    const { receiveKeys } = await import('./stego/key-handoff.ts');
    const keys = receiveKeys(a.keys);
    keys.catch(() => {}); // awaited when the cover is decoded; a failure before that must not go unhandled
    const { hideInImage, readSecrets } = await import('./stego/image.ts');
    const sctx = { limits: a.limits, signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap };
    if (a.format === 'mkv' || a.format === 'webm') {
      const { hideInVideo } = await import('./stego/video.ts');
      return hideInVideo(a.cover, await readSecrets(a.secrets), keys, a.outDir, a.format, sctx);
    }
    return hideInImage(a.cover, await readSecrets(a.secrets), keys, a.outDir, a.format, sctx);
  },
  async reveal(args, ctx) {
    const a = args as { file: string; passphrase: string; outDir: string; limits: MediaLimits };
    const { readHead, sniff } = await import('./probe.ts');
    const kind = sniff((await readHead(a.file)).head);
    const sctx = { limits: a.limits, signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap };
    if (kind && 'kind' in kind && kind.kind === 'video') {
      const { revealFromVideo } = await import('./stego/video.ts');
      return revealFromVideo(a.file, a.passphrase, a.outDir, sctx);
    }
    const { revealFromImage } = await import('./stego/image.ts');
    return revealFromImage(a.file, a.passphrase, a.outDir, sctx);
  },
  async analyse(args, ctx) {
    const a = args as { input: string; outDir: string; depth: 'standard' | 'deep'; limits: MediaLimits; c2paTrustAnchors?: string; faces?: { enabled: boolean; sensitivity: number }; text?: { enabled: boolean } };
    const { analyseFile } = await import('./analyse/index.ts');
    return analyseFile(a.input, a.limits, { depth: a.depth, outDir: a.outDir, c2paTrustAnchors: a.c2paTrustAnchors, faces: a.faces, text: a.text, signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap });
  },
  async probe(args, ctx) {
    const a = args as { input: string; limits: MediaLimits };
    const { probe } = await import('./probe.ts');
    return probe(a.input, a.limits, { signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap });
  },
};

/**
 * Loads the engines' modules (sharp, the codecs, the stego and analyse code) and starts the
 * reveal's walk helper ahead of the first task, so a job does not wait for them: a worker
 * starts at boot and preloads while idle.
 */
export async function preload(): Promise<void> {
  await Promise.all([import('./convert/index.ts'), import('./stego/image.ts'), import('./stego/video.ts'), import('./analyse/index.ts')]);
  (await import('./stego/walk-helper.ts')).startWalkHelper();
}
