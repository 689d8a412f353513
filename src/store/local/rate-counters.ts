// The embedded engine's rate counters: in memory (one process holds every request), bounded in
// keys: the oldest windows go first, so made-up keys can never grow the map.
import type { RateCounters } from '../../domain/ports.ts';

const MAX_KEYS = 100_000;

export class LocalRateCounters implements RateCounters {
  readonly #windows = new Map<string, { start: number; used: number }>();

  async take(key: string, n: number, limit: number, windowMs: number, now: number): Promise<number | undefined> {
    const w = this.#window(key, windowMs, now);
    if (w.used + n > limit) return w.start + windowMs - now;
    w.used += n;
    return undefined;
  }

  async add(key: string, n: number, windowMs: number, now: number): Promise<void> {
    const w = this.#window(key, windowMs, now);
    w.used = Math.max(0, w.used + n);
  }

  async used(key: string, windowMs: number, now: number): Promise<{ used: number; msLeft: number }> {
    const w = this.#windows.get(key);
    return w && now - w.start < windowMs ? { used: w.used, msLeft: w.start + windowMs - now } : { used: 0, msLeft: 0 };
  }

  #window(key: string, windowMs: number, now: number): { start: number; used: number } {
    let w = this.#windows.get(key);
    if (w && now - w.start < windowMs) return w;
    this.#windows.delete(key);
    if (this.#windows.size >= MAX_KEYS) this.#windows.delete(this.#windows.keys().next().value!);
    w = { start: now, used: 0 };
    this.#windows.set(key, w); // in order of window start
    return w;
  }
}
