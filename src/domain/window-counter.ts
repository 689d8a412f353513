// Fixed-window counters by key, in memory only, with a bounded number of keys: whoever makes
// up new keys (circuits, destinations) can push out the oldest windows but never grow the map.
// A window starts at a key's first use, so nothing here depends on the wall clock's minute.

export interface WindowCounterOptions {
  limit: number;
  windowMs: number;
  /** Most keys held at once; past it, expired windows are swept, then the oldest dropped. */
  maxKeys?: number;
  now?: () => number;
}

interface Window {
  start: number;
  used: number;
}

export class WindowCounter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();

  constructor(opts: WindowCounterOptions) {
    this.limit = opts.limit;
    this.windowMs = opts.windowMs;
    this.#maxKeys = opts.maxKeys ?? 100_000;
    this.#now = opts.now ?? Date.now;
  }

  /** Counts `n` against the key if it fits; otherwise counts nothing and gives the ms until the window ends. */
  take(key: string, n = 1): number | undefined {
    const w = this.#window(key);
    if (w.used + n > this.limit) return this.#left(w);
    w.used += n;
    return undefined;
  }

  /** Counts `n` (negative: gives back) whatever the limit: for amounts known only afterwards. */
  add(key: string, n: number): void {
    const w = this.#window(key);
    w.used = Math.max(0, w.used + n);
  }

  /** What the key used in its current window. */
  used(key: string): number {
    const w = this.#windows.get(key);
    return w && this.#now() - w.start < this.windowMs ? w.used : 0;
  }

  /** Ms until the key's current window ends (0 if it has none). */
  msLeft(key: string): number {
    const w = this.#windows.get(key);
    return w ? Math.max(0, this.#left(w)) : 0;
  }

  get size(): number {
    return this.#windows.size;
  }

  #left(w: Window): number {
    return w.start + this.windowMs - this.#now();
  }

  #window(key: string): Window {
    const now = this.#now();
    let w = this.#windows.get(key);
    if (w && now - w.start < this.windowMs) return w;
    // a new window goes to the end of the map, so the map stays in order of window start
    if (w) this.#windows.delete(key);
    else if (this.#windows.size >= this.#maxKeys) this.#makeRoom(now);
    w = { start: now, used: 0 };
    this.#windows.set(key, w);
    return w;
  }

  #makeRoom(now: number): void {
    for (const [k, w] of this.#windows) {
      if (now - w.start < this.windowMs) break; // in order of start: the rest are younger
      this.#windows.delete(k);
    }
    while (this.#windows.size >= this.#maxKeys) this.#windows.delete(this.#windows.keys().next().value!);
  }
}
