// This process's share of the work: whenever one of its slots is free it claims a job (from the
// queue port, whichever engine holds it) and runs it. It looks when told something was queued,
// and every second, so jobs queued by another instance or freed by a lapsed lease are found.
export class JobPump<T> {
  readonly #concurrency: number;
  readonly #claim: () => Promise<T | undefined>;
  readonly #run: (item: T) => Promise<void>;
  readonly #running = new Set<Promise<void>>();
  #started = false;
  #stopped = false;
  #claiming = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: { concurrency: number; claim: () => Promise<T | undefined>; run: (item: T) => Promise<void>; pollMs?: number }) {
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
    if (this.#claiming) {
      this.#again = true; // asked while a claim is under way: look once more after it
      return;
    }
    this.#claiming = true;
    void this.#fill().finally(() => {
      this.#claiming = false;
      if (this.#again) {
        this.#again = false;
        this.notify();
      }
    });
  }

  async #fill(): Promise<void> {
    while (!this.#stopped && this.#running.size < this.#concurrency) {
      let item: T | undefined;
      try {
        item = await this.#claim();
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
