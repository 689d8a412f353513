// "This job changed" inside one process: the embedded engine is one process by construction,
// so an EventEmitter is every instance there is.
import { EventEmitter } from 'node:events';
import type { JobEvents } from '../../domain/ports.ts';

export class LocalJobEvents implements JobEvents {
  readonly #emitter = new EventEmitter();

  constructor() {
    // many long polls may wait on one job: no leak warning at 10 listeners
    this.#emitter.setMaxListeners(0);
  }

  async publish(jobId: string): Promise<void> {
    this.#emitter.emit(jobId);
  }

  async subscribe(jobId: string, fn: () => void): Promise<() => void> {
    // a subscriber that throws neither reaches the publisher nor keeps the others from hearing
    const listener = (): void => {
      try {
        fn();
      } catch {
        // the subscriber's own failure; nothing the publisher can do about it
      }
    };
    this.#emitter.on(jobId, listener);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#emitter.off(jobId, listener);
    };
  }

  /** How many subscriptions are live (for tests and metrics). */
  get size(): number {
    return this.#emitter.eventNames().reduce((n, e) => n + this.#emitter.listenerCount(e), 0);
  }
}
