// The port between the domain and the media work: the runners and Jobs ask a MediaEngine for a
// task by name, typed by the worker's task map (media-tasks.ts: each task's args and result),
// and never know whether it runs on worker threads (queue/worker-pool.ts), or, in a test, on
// the event loop. An engine fails a task with an EngineError (a code and a user-facing message);
// what a job reports for it is decided here, in one place.
import type { Transferable } from 'node:worker_threads';
import type { EngineName, Task, TaskResult } from './media-tasks.ts';

export type { EngineName, Task, TaskArgs, TaskResult } from './media-tasks.ts';

export interface EngineRunOptions {
  /** Fires to stop the task (the job's time limit, a shutdown, a lost lease). */
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
  /** Objects in the args moved to the engine rather than copied (a MessagePort, an ArrayBuffer). */
  transfer?: Transferable[];
}

export interface MediaEngine {
  /** Runs one task (an engine name and its args); resolves with that task's result, or rejects with an EngineError. */
  run<E extends EngineName>(task: Task<E>, opts?: EngineRunOptions): Promise<TaskResult<E>>;
  /**
   * Holds `bytes` of the instance's media memory for work a runner does itself (a program it
   * runs with a passphrase that must not leave its thread), waiting for room as a task does.
   */
  reserve(bytes: number, signal?: AbortSignal): Promise<{ release(): void }>;
}

/** A task that failed: its code (media/errors.ts, or the pool's own) and a message fit for the user. */
export class EngineError extends Error {
  override name = 'EngineError';
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** A job's (or one file's) error as the job reports it. */
export interface JobFailure {
  error: string;
  message: string;
}

/**
 * The one mapping of an engine's failure to a job's error: an EngineError keeps its code and
 * message (they are the engines' own user-facing words); anything else is not the engine's
 * answer but a bug on our side, reported as `internal_error` with `onOurSide`, never its text.
 */
export function jobFailure(err: unknown, onOurSide: string): JobFailure {
  return engineFailure(err) ?? { error: 'internal_error', message: onOurSide };
}

/** The engine's own answer in a failure, or undefined when the failure is not the engine's. */
export function engineFailure(err: unknown): JobFailure | undefined {
  return err instanceof EngineError ? { error: err.code, message: err.message } : undefined;
}
