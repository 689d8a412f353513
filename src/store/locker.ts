// Serialises work per key inside this process (the queue every Locker keeps first), and the
// holds of this process: whom to tell when a waiter asks for a key.
import type { LockHold } from '../domain/ports.ts';

export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.#tails.set(key, tail);
    try {
      await prev;
      return await fn();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  get size(): number {
    return this.#tails.size;
  }
}

/** The keys this process holds, each with what its holder asked to be told. */
export class Holds {
  readonly #held = new Map<string, { hold: LockHold; listeners: Set<() => void>; lost: AbortController }>();

  /** A new hold on the key (the caller holds the lock now); end() when it lets go. */
  open(key: string): { hold: LockHold; lose(reason?: unknown): void; end(): void } {
    const lost = new AbortController();
    const listeners = new Set<() => void>();
    const hold: LockHold = { lost: lost.signal, onReleaseRequest: (fn) => void listeners.add(fn) };
    const entry = { hold, listeners, lost };
    this.#held.set(key, entry);
    return {
      hold,
      lose: (reason) => lost.abort(reason),
      end: () => {
        if (this.#held.get(key) === entry) this.#held.delete(key);
      },
    };
  }

  /** Tells the holder of the key in this process, if any, that someone asks for it. */
  ask(key: string): void {
    for (const fn of [...(this.#held.get(key)?.listeners ?? [])]) {
      try {
        fn();
      } catch {
        // the holder's own failure
      }
    }
  }
}

/** Runs fn holding the key in this process: what the embedded engine and a store without a Locker use. */
export class ProcessLocker {
  readonly #queue = new KeyedLock();
  readonly #holds = new Holds();

  async run<T>(key: string, fn: (hold: LockHold) => Promise<T>): Promise<T> {
    return this.#queue.run(key, async () => {
      const h = this.#holds.open(key);
      try {
        return await fn(h.hold);
      } finally {
        h.end();
      }
    });
  }

  async requestRelease(key: string): Promise<void> {
    this.#holds.ask(key);
  }

  get size(): number {
    return this.#queue.size;
  }
}
