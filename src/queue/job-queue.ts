// The queue seam. Jobs are rows (they survive a restart); this in-process queue claims
// the oldest queued row whenever a slot is free. A scale-out queue (Redis-backed, say)
// would implement the same three calls.
export interface JobQueue {
  /** Begins taking work. */
  start(): void;
  /** Something was enqueued: look for work now rather than on the next tick. */
  notify(): void;
  /** Stops taking work and waits for what is running. */
  stop(): Promise<void>;
}

export class LocalJobQueue<T> implements JobQueue {
  readonly #concurrency: number;
  readonly #claim: () => T | undefined;
  readonly #run: (item: T) => Promise<void>;
  readonly #running = new Set<Promise<void>>();
  #started = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: { concurrency: number; claim: () => T | undefined; run: (item: T) => Promise<void>; pollMs?: number }) {
    this.#concurrency = opts.concurrency;
    this.#claim = opts.claim;
    this.#run = opts.run;
    this.#timer = setInterval(() => this.notify(), opts.pollMs ?? 1000);
    this.#timer.unref();
  }

  start(): void {
    this.#started = true;
    this.notify();
  }

  notify(): void {
    if (!this.#started || this.#stopped) return;
    while (this.#running.size < this.#concurrency) {
      let item: T | undefined;
      try {
        item = this.#claim();
      } catch {
        return; // the row store is unavailable (shutting down); the next tick tries again
      }
      if (item === undefined) return;
      const p: Promise<void> = this.#run(item)
        .catch(() => {}) // the runner records its own failures
        .finally(() => {
          this.#running.delete(p);
          setImmediate(() => this.notify());
        });
      this.#running.add(p);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await Promise.all(this.#running);
  }

  get active(): number {
    return this.#running.size;
  }
}
