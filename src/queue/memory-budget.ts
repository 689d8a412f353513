// The memory this instance's media work may hold at once (OBSCURA_MEDIA_MEMORY_BUDGET): each
// job reserves its estimate (media/memory.ts) before its heavy work, and waits, first come first
// served, while the jobs running hold too much for it to fit. A reservation larger than the
// whole budget could never fit and is refused at once (the media code refuses those before
// asking, with the figures; this is the backstop).
import { TaskError } from './task-error.ts';

export interface Reservation {
  readonly bytes: number;
  release(): void;
}

interface Waiter {
  bytes: number;
  grant: (r: Reservation) => void;
  fail: (e: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class MemoryBudget {
  readonly total: number;
  #held = 0;
  readonly #queue: Waiter[] = [];

  constructor(total: number) {
    this.total = total;
  }

  /** Bytes reserved now. */
  get held(): number {
    return this.#held;
  }

  /** Waits until `bytes` fit beside what is held, then holds them until release(). */
  reserve(bytes: number, signal?: AbortSignal): Promise<Reservation> {
    if (bytes > this.total) {
      return Promise.reject(new TaskError('too_much_memory', `This work needs about ${mib(bytes)} MiB of memory; OBSCURA_MEDIA_MEMORY_BUDGET allows ${mib(this.total)} MiB for all jobs together.`));
    }
    if (signal?.aborted) return Promise.reject(new TaskError('aborted', 'The task was cancelled.'));
    return new Promise<Reservation>((grant, fail) => {
      const w: Waiter = { bytes, grant, fail, signal };
      if (signal) {
        w.onAbort = () => {
          const i = this.#queue.indexOf(w);
          if (i < 0) return;
          this.#queue.splice(i, 1);
          fail(new TaskError('aborted', 'The task was cancelled.'));
          this.#admit(); // the ones behind it may fit now
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.#queue.push(w);
      this.#admit();
    });
  }

  #admit(): void {
    // first come first served: a large job is not starved by small ones that keep fitting
    while (this.#queue.length && this.#held + this.#queue[0].bytes <= this.total) {
      const w = this.#queue.shift()!;
      if (w.onAbort) w.signal!.removeEventListener('abort', w.onAbort);
      this.#held += w.bytes;
      let released = false;
      w.grant({
        bytes: w.bytes,
        release: () => {
          if (released) return;
          released = true;
          this.#held -= w.bytes;
          this.#admit();
        },
      });
    }
  }
}

const mib = (n: number) => Math.ceil(n / (1024 * 1024)).toLocaleString('en-US');
