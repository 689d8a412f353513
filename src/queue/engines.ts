// The engines a worker thread runs, by name: the dispatch table, typed by the task map
// (domain/media-tasks.ts). Each takes plain data (paths in the job's scratch folder, options, limits, a
// port for a passphrase's keys) and returns plain data; bytes stay in scratch, but for a
// convert's input, which may come as bytes moved (not copied) from the main thread. Media
// code is loaded on first use (or by preload()), so a worker starts fast.
import type { EngineContext, Engines } from '../domain/media-tasks.ts';

export const engines: Engines = {
  async convert(a, ctx) {
    const { convert } = await import('../media/convert/index.ts');
    return convert(bytesOrPath(a.input), a.outDir, a.options, { limits: a.limits, cpuBudgetMs: a.cpuBudgetMs, signal: ctx.signal, onProgress: ctx.onProgress, onSpawn: ctx.onSpawn, onReap: ctx.onReap, admit: ctx.admit });
  },
  async convertCheck(a, ctx) {
    const { probeDetailed } = await import('../media/probe.ts');
    const { UNBOUNDED, checkLimits } = await import('../media/convert/output-limits.ts');
    checkLimits(await probeDetailed(bytesOrPath(a.input), UNBOUNDED, { signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap }), a.options, a.limits);
  },
  async hide(a, ctx) {
    const { keysFrom } = await import('../media/stego/key-handoff.ts');
    const passphrase = keysFrom(a.keys);
    const decoyPassphrase = a.decoy && keysFrom(a.decoy.keys);
    try {
      const keys = passphrase.sealing();
      keys.catch(() => {}); // awaited when the cover is decoded; a failure before that must not go unhandled
      const decoyKeys = decoyPassphrase?.sealing();
      decoyKeys?.catch(() => {});
      const { hideInImage, readSecrets } = await import('../media/stego/image.ts');
      const sctx = { limits: a.limits, signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap, admit: ctx.admit };
      const decoy = a.decoy && decoyKeys ? { secrets: await readSecrets(a.decoy.secrets), keys: decoyKeys } : undefined;
      if (a.format === 'mkv' || a.format === 'webm') {
        const { hideInVideo } = await import('../media/stego/video.ts');
        return await hideInVideo(a.cover, await readSecrets(a.secrets), keys, a.outDir, a.format, sctx, decoy);
      }
      return await hideInImage(a.cover, await readSecrets(a.secrets), keys, a.outDir, a.format, sctx, decoy);
    } finally {
      passphrase.close();
      decoyPassphrase?.close();
    }
  },
  async reveal(a, ctx) {
    const { keysFrom } = await import('../media/stego/key-handoff.ts');
    const passphrase = keysFrom(a.keys);
    try {
      const { readHead, sniff } = await import('../media/probe.ts');
      const kind = sniff((await readHead(a.file)).head);
      const sctx = { limits: a.limits, signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap, admit: ctx.admit };
      if (kind && 'kind' in kind && kind.kind === 'video') {
        const { revealFromVideo } = await import('../media/stego/video.ts');
        return await revealFromVideo(a.file, passphrase, a.outDir, sctx);
      }
      const { revealFromImage } = await import('../media/stego/image.ts');
      return await revealFromImage(a.file, passphrase, a.outDir, sctx);
    } finally {
      passphrase.close();
    }
  },
  async analyse(a, ctx) {
    const { input, limits, ...options } = a;
    const { analyseFile } = await import('../media/analyse/index.ts');
    return analyseFile(input, limits, { ...options, signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap, admit: ctx.admit });
  },
  async probe(a, ctx) {
    const { probe } = await import('../media/probe.ts');
    return probe(a.input, a.limits, { signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap });
  },
};

/** A path as it is; bytes (a Buffer arrives as a plain Uint8Array) as a Buffer over the same memory. */
function bytesOrPath(input: string | Uint8Array): string | Buffer {
  return typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
}

/**
 * Loads the engines' modules (sharp, the codecs, the stego and analyse code) and starts the
 * reveal's walk helper ahead of the first task, so a job does not wait for them: a worker
 * starts at boot and preloads while idle.
 */
export async function preload(): Promise<void> {
  await Promise.all([import('../media/convert/index.ts'), import('../media/stego/image.ts'), import('../media/stego/video.ts'), import('../media/analyse/index.ts')]);
  (await import('../media/stego/walk-helper.ts')).startWalkHelper();
}
