// Media work runs here, on worker threads, never on the HTTP event loop. A task that
// overstays (the job's time limit) is aborted; a worker that does not stop when asked is
// terminated and the tools it spawned are killed. A worker that dies on its own (an error no
// engine caught, a wasm trap) fails its task with a plain message and is replaced; the log gets
// the error's class only, as its text may quote the file. A task asks the pool for its memory
// (the estimate from its probe) before its heavy work, and waits until the instance's memory
// budget has room for it; what it holds is freed when it ends, however it ends.
import { MessagePort, Worker } from 'node:worker_threads';
import type { EngineRunOptions, MediaEngine } from '../domain/media-engine.ts';
import type { Logger } from '../log.ts';
import { MemoryBudget, type Reservation } from './memory-budget.ts';
import { TaskError } from './task-error.ts';
import type { EngineName, Task, TaskResult } from '../domain/media-tasks.ts';

export { TaskError } from './task-error.ts';

export type { EngineName, Task, TaskArgs, TaskResult } from '../domain/media-tasks.ts';

/** signal, onProgress, and `transfer`: objects in the args moved to the worker rather than copied. */
export type RunOptions = EngineRunOptions;


type FromWorker =
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'spawn'; id: number; pid: number }
  | { type: 'reaped'; id: number; pid: number }
  | { type: 'admit'; id: number; bytes: number }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'error'; id: number; code: string; message: string };

interface Pending {
  id: number;
  /** Typed at run(); past it, the pool only carries it across. */
  task: { engine: EngineName; args: unknown };
  opts: RunOptions;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  busy?: Pending;
  children: Set<number>;
  /** The memory the busy task holds. */
  memory?: Reservation;
}

const ABORT_GRACE_MS = 3000;

/** What the job of a task whose worker died says: stable, and nothing of the error's own text. */
export const WORKER_STOPPED = { code: 'worker_stopped', message: 'The worker stopped while processing this file. Nothing of it was kept; the file may be too large or damaged in a way the tools cannot handle.' };

/** The MediaEngine the service runs: every task on a worker thread. */
export class WorkerPool implements MediaEngine {
  readonly #entry: URL;
  readonly #workerData: unknown;
  readonly #size: number;
  readonly #log?: Logger;
  readonly #memory: MemoryBudget;
  /** Workers start on first use or warm(), so a CLI costs no threads. */
  readonly #slots: Slot[] = [];
  readonly #waiting: Pending[] = [];
  #nextId = 1;
  #closed = false;

  /** memoryBudget: bytes all tasks together may reserve (OBSCURA_MEDIA_MEMORY_BUDGET); default none. */
  constructor(opts: { size: number; entry: URL; workerData?: unknown; log?: Logger; memoryBudget?: number }) {
    this.#entry = opts.entry;
    this.#log = opts.log;
    this.#workerData = opts.workerData;
    this.#size = opts.size;
    this.#memory = new MemoryBudget(opts.memoryBudget ?? Infinity);
  }

  /** Memory held for a runner's own work, under the same budget as the tasks (MediaEngine.reserve). */
  reserve(bytes: number, signal?: AbortSignal): Promise<{ release(): void }> {
    return this.#memory.reserve(bytes, signal);
  }

  /** Memory the running tasks hold, and the budget. */
  get memory(): { held: number; total: number } {
    return { held: this.#memory.held, total: this.#memory.total };
  }

  get size(): number {
    return this.#size;
  }

  /** Workers running a task now. */
  get busy(): number {
    return this.#slots.filter((s) => s.busy).length;
  }

  /** Runs a task (domain/media-tasks.ts: an engine and its args) on a worker; resolves with that engine's result. */
  run<E extends EngineName>(task: Task<E>, opts: RunOptions = {}): Promise<TaskResult<E>> {
    if (this.#closed || opts.signal?.aborted) {
      closeTransfer(opts);
      return Promise.reject(new TaskError('aborted', this.#closed ? 'The service is shutting down.' : 'The task was cancelled.'));
    }
    return new Promise<TaskResult<E>>((resolve, reject) => {
      this.#waiting.push({ id: this.#nextId++, task, opts, resolve: resolve as (v: unknown) => void, reject });
      this.#pump();
    });
  }

  /** Starts every worker now (the service does at boot), so no job waits for one to load. */
  warm(): void {
    while (!this.#closed && this.#slots.length < this.#size) this.#slots.push(this.#spawn());
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const p of this.#waiting.splice(0)) {
      closeTransfer(p.opts);
      p.reject(new TaskError('aborted', 'The service is shutting down.'));
    }
    await Promise.all(this.#slots.map((s) => this.#kill(s)));
  }

  #spawn(): Slot {
    const worker = new Worker(this.#entry, { workerData: this.#workerData });
    const slot: Slot = { worker, children: new Set() };
    worker.on('message', (m: FromWorker) => this.#onMessage(slot, m));
    worker.on('error', (err) => this.#onDeath(slot, { error_class: err?.name || err?.constructor?.name || typeof err }));
    worker.on('exit', (code) => this.#onDeath(slot, { exit_code: code }));
    worker.unref();
    return slot;
  }

  #pump(): void {
    while (this.#waiting.length > this.#slots.filter((s) => !s.busy).length && this.#slots.length < this.#size) {
      this.#slots.push(this.#spawn());
    }
    for (const slot of this.#slots) {
      if (slot.busy || !this.#waiting.length) continue;
      const p = this.#waiting.shift()!;
      if (p.opts.signal?.aborted) {
        closeTransfer(p.opts);
        p.reject(new TaskError('aborted', 'The task was cancelled.'));
        continue;
      }
      slot.busy = p;
      p.opts.signal?.addEventListener('abort', () => this.#abort(slot, p), { once: true });
      slot.worker.postMessage({ type: 'run', id: p.id, engine: p.task.engine, args: p.task.args }, p.opts.transfer);
    }
  }

  #onMessage(slot: Slot, m: FromWorker): void {
    const p = slot.busy;
    if (m.type === 'spawn') slot.children.add(m.pid);
    else if (m.type === 'reaped') slot.children.delete(m.pid);
    if (!p || p.id !== m.id) return;
    if (m.type === 'progress') p.opts.onProgress?.(m.fraction);
    else if (m.type === 'admit') void this.#admit(slot, p, m.bytes);
    else if (m.type === 'done' || m.type === 'error') {
      this.#free(slot);
      slot.busy = undefined;
      if (m.type === 'done') p.resolve(m.result);
      else p.reject(new TaskError(m.code, m.message));
      this.#pump();
    }
  }

  /**
   * A task asks for its memory: what it held before is given back first (a task waiting while
   * holding some could wait for another that waits for it), then it waits for room.
   */
  async #admit(slot: Slot, p: Pending, bytes: number): Promise<void> {
    this.#free(slot);
    try {
      const r = await this.#memory.reserve(bytes, p.opts.signal);
      if (slot.busy !== p) return r.release(); // it ended while waiting
      slot.memory = r;
      slot.worker.postMessage({ type: 'admitted', id: p.id });
    } catch (err) {
      const e = err instanceof TaskError ? err : new TaskError('engine_failed', 'The memory for this task could not be reserved.');
      if (slot.busy === p) slot.worker.postMessage({ type: 'refused', id: p.id, code: e.code, message: e.message });
    }
  }

  #free(slot: Slot): void {
    slot.memory?.release();
    slot.memory = undefined;
  }

  #abort(slot: Slot, p: Pending): void {
    if (slot.busy !== p) return;
    slot.worker.postMessage({ type: 'abort', id: p.id });
    setTimeout(() => {
      if (slot.busy === p) {
        // it did not stop when asked: replace the worker
        this.#free(slot);
        slot.busy = undefined;
        p.reject(new TaskError('aborted', 'The task was stopped.'));
        void this.#replace(slot);
      }
    }, ABORT_GRACE_MS).unref();
  }

  async #replace(slot: Slot): Promise<void> {
    // out of the slots at once: a task queued meanwhile must not be posted to the dead worker
    const i = this.#slots.indexOf(slot);
    if (i >= 0 && !this.#closed) this.#slots[i] = this.#spawn();
    else if (i >= 0) this.#slots.splice(i, 1);
    this.#pump();
    await this.#kill(slot);
  }

  async #kill(slot: Slot): Promise<void> {
    this.#free(slot);
    for (const pid of slot.children) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    slot.children.clear();
    slot.worker.removeAllListeners('exit');
    slot.worker.removeAllListeners('error');
    await slot.worker.terminate();
  }

  #onDeath(slot: Slot, why: { error_class: string } | { exit_code: number }): void {
    const p = slot.busy;
    this.#free(slot);
    slot.busy = undefined;
    this.#log?.error({ ...why, engine: p?.task.engine }, 'media worker stopped');
    if (p) p.reject(new TaskError(WORKER_STOPPED.code, WORKER_STOPPED.message));
    if (!this.#closed) void this.#replace(slot);
  }
}

/** Ports meant for a task that never ran are closed, so nothing waits on them. */
function closeTransfer(opts: RunOptions): void {
  for (const t of opts.transfer ?? []) if (t instanceof MessagePort) t.close();
}
