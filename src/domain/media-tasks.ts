// Every task a MediaEngine runs, declared once: its engine name, its args and its result. The
// port owns it (media-engine.ts); the worker pool's run() and the worker's dispatch table
// (queue/engines.ts), which implement it, are both typed by this map,
// so a call site states neither the args' shape nor the result type, and an engine missing
// from the table, or one that takes or gives something else, is a type error.
//
// Args and results are the media functions' own types wherever the engine passes them
// straight through; the per-task hooks (signal, progress, spawn/reap) are the worker's
// (EngineContext), never args. Only types are imported: nothing here loads media code.
import type { MessagePort } from 'node:worker_threads';
import type { analyseFile } from '../media/analyse/index.ts';
import type { convert } from '../media/convert/index.ts';
import type { checkLimits } from '../media/convert/output-limits.ts';
import type { probe } from '../media/probe.ts';
import type { hideInImage, readSecrets, revealFromImage, StegoImageFormat } from '../media/stego/image.ts';
import type { hideInVideo, revealFromVideo, StegoVideoFormat } from '../media/stego/video.ts';

/** What the worker gives every engine, besides its args. */
export interface EngineContext {
  signal: AbortSignal;
  onProgress: (fraction: number) => void;
  onSpawn: (pid: number) => void;
  onReap: (pid: number) => void;
  /** Waits for `bytes` of the instance's memory budget (the estimate from the probe); the tools started after run within them. */
  admit?: (bytes: number) => Promise<void>;
}

type Hooks = keyof EngineContext;
type Result<F extends (...a: never[]) => unknown> = Awaited<ReturnType<F>>;

export interface Tasks {
  /** `input`: a file in scratch, or the file's bytes (moved to the worker: pass their ArrayBuffer in RunOptions.transfer). */
  convert: {
    args: { input: string | Uint8Array; outDir: Parameters<typeof convert>[1]; options: Parameters<typeof convert>[2] } & Omit<Parameters<typeof convert>[3], Hooks>;
    result: Result<typeof convert>;
  };
  /** A convert job's limits, at its start: the header is read with no limit, then held to every limit, input and output. */
  convertCheck: {
    args: { input: string | Uint8Array; options: Parameters<typeof checkLimits>[1]; limits: Parameters<typeof checkLimits>[2] };
    result: ReturnType<typeof checkLimits>;
  };
  /** `keys`: the worker's end of handOverKeys() (media/stego/key-handoff.ts), transferred. */
  hide: {
    args: {
      cover: string;
      secrets: Parameters<typeof readSecrets>[0];
      keys: MessagePort;
      /** A decoy's files and the worker's end of its passphrase's keys. */
      decoy?: { secrets: Parameters<typeof readSecrets>[0]; keys: MessagePort };
      outDir: string;
      format: StegoImageFormat | StegoVideoFormat;
      limits: Parameters<typeof probe>[1];
    };
    result: Result<typeof hideInImage> | Result<typeof hideInVideo>;
  };
  /** `keys`: as for hide; the passphrase itself never crosses to the worker. */
  reveal: {
    args: { file: string; keys: MessagePort; outDir: string; limits: Parameters<typeof probe>[1] };
    result: Result<typeof revealFromImage> | Result<typeof revealFromVideo>;
  };
  analyse: {
    args: { input: Parameters<typeof analyseFile>[0]; limits: Parameters<typeof analyseFile>[1] } & Omit<Parameters<typeof analyseFile>[2], Hooks | 'limits'>;
    result: Result<typeof analyseFile>;
  };
  probe: {
    args: { input: Parameters<typeof probe>[0]; limits: Parameters<typeof probe>[1] };
    result: Result<typeof probe>;
  };
}

export type EngineName = keyof Tasks;
export type TaskArgs<E extends EngineName> = Tasks[E]['args'];
export type TaskResult<E extends EngineName> = Tasks[E]['result'];

/** One task for the pool: an engine and its args, matched. */
export type Task<E extends EngineName = EngineName> = { [K in E]: { engine: K; args: TaskArgs<K> } }[E];

/** The worker's dispatch table: one entry for every task, taking its args and giving its result. */
export type Engines = { [E in EngineName]: (args: TaskArgs<E>, ctx: EngineContext) => Promise<TaskResult<E>> };
