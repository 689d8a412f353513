// @tus/server's Locker over the domain's Locker port, so that tus requests for one upload are
// serialised across every instance (PostgresLocker), or in this process (LocalLocker).
//
// Mirrors MemoryLocker's contract: lock(signal, requestRelease) waits for the upload, asking
// whoever holds it in this process to let go (requestRelease, which tus turns into cancelling that
// request after its drain delay); past acquireLockTimeout, or when the request's signal aborts
// first, it fails with ERRORS.ERR_LOCK_TIMEOUT. A held lock is released by unlock(), or when the
// request's signal aborts (the request ended, or was cancelled and its drain time ran out), so a
// handler that never unlocks cannot keep the upload locked.
//
// The holder is asked to let go wherever it is: in this process at once, and on another
// instance through the port's requestRelease (a NOTIFY on PostgreSQL), repeated while the waiter
// waits, since the holder may change meanwhile. A holder whose lock was lost (its database
// session dropped) is asked to let go too: another request may be writing the upload now.
import { ERRORS, type Lock, type Locker as TusLockerInterface, type RequestRelease } from '@tus/utils';
import type { Locker } from '../../domain/ports.ts';

/** A waiter's first request through the port: time enough for its lock call to reach the database. */
const FIRST_ASK_MS = 50;

export interface TusLockerOptions {
  /** How long lock() waits before failing with ERR_LOCK_TIMEOUT; MemoryLocker's default, 30 s. */
  acquireLockTimeout?: number;
  /** Prefix of the port's keys, so tus uploads do not share keys with other users of the Locker. */
  keyPrefix?: string;
  /** How often a waiter asks again for the upload, through the port. */
  askEveryMs?: number;
}

interface Upload {
  /** requestRelease of the request holding the upload in this process, while one does. */
  holder?: RequestRelease;
  /** Locks of this process waiting for the upload. */
  waiting: number;
}

export class TusLocker implements TusLockerInterface {
  readonly locker: Locker;
  readonly timeout: number;
  readonly keyPrefix: string;
  readonly askEveryMs: number;
  /** Uploads this process holds or waits for. */
  readonly uploads = new Map<string, Upload>();

  constructor(locker: Locker, options: TusLockerOptions = {}) {
    this.locker = locker;
    this.timeout = options.acquireLockTimeout ?? 30_000;
    this.keyPrefix = options.keyPrefix ?? 'tus:';
    this.askEveryMs = options.askEveryMs ?? 1000;
  }

  newLock(id: string): Lock {
    return new PortLock(this, id);
  }

  upload(id: string): Upload {
    let u = this.uploads.get(id);
    if (!u) this.uploads.set(id, (u = { waiting: 0 }));
    return u;
  }

  forget(id: string): void {
    const u = this.uploads.get(id);
    if (u && !u.holder && u.waiting === 0) this.uploads.delete(id);
  }
}

class PortLock implements Lock {
  readonly #owner: TusLocker;
  readonly #id: string;
  /** Ends the port's run: the upload is free once `#running` settles. */
  #release: (() => void) | undefined;
  #running: Promise<void> | undefined;

  constructor(owner: TusLocker, id: string) {
    this.#owner = owner;
    this.#id = id;
  }

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    if (this.#running) throw new Error(`lock on ${this.#id} taken twice`);
    if (signal.aborted) throw ERRORS.ERR_LOCK_TIMEOUT;
    const owner = this.#owner;
    const id = this.#id;
    const upload = owner.upload(id);
    upload.waiting++;

    let waiting = true;
    let abandoned = false;
    let acquired!: () => void;
    const gotIt = new Promise<void>((resolve) => (acquired = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));

    const key = `${owner.keyPrefix}${id}`;
    // tus is asked at most once per hold, however many waiters (here and elsewhere) ask
    let asked = false;
    const askOnce: RequestRelease = () => {
      if (asked) return;
      asked = true;
      askToRelease(requestRelease);
    };
    const running = owner.locker.run(key, async (hold) => {
      if (abandoned) return; // timed out or aborted while waiting: give the upload straight back
      waiting = false;
      upload.waiting--;
      upload.holder = askOnce;
      hold.onReleaseRequest(askOnce);
      hold.lost.addEventListener('abort', askOnce, { once: true });
      acquired();
      // others of this process already queued behind us: ask us, as MemoryLocker's waiters do
      if (upload.waiting > 0) askOnce();
      try {
        await released;
      } finally {
        hold.lost.removeEventListener('abort', askOnce);
        if (upload.holder === askOnce) upload.holder = undefined;
        owner.forget(id);
      }
    });

    // The holder in this process, if any, is asked to let go at once; one on another instance
    // through the port, once this waits in the database (the holder heeds only a waiting request).
    if (upload.holder) upload.holder();
    let again: NodeJS.Timeout | undefined;
    const askAround = () => {
      void owner.locker.requestRelease(key).catch(() => {});
      again = setTimeout(askAround, owner.askEveryMs);
    };
    again = setTimeout(askAround, FIRST_ASK_MS);

    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const failed = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(ERRORS.ERR_LOCK_TIMEOUT), owner.timeout);
      onAbort = () => reject(ERRORS.ERR_LOCK_TIMEOUT);
      signal.addEventListener('abort', onAbort, { once: true });
      // the port failing before the lock was taken (a database error) fails this lock
      running.catch(reject);
    });
    try {
      await Promise.race([gotIt, failed]);
    } catch (err) {
      abandoned = true;
      release();
      if (waiting) {
        waiting = false;
        upload.waiting--;
        owner.forget(id);
      }
      running.catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
      clearTimeout(again);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      failed.catch(() => {});
    }

    this.#release = release;
    this.#running = running.catch(() => {});
    // the request ended (or was cancelled and its drain time ran out) without unlocking
    signal.addEventListener('abort', release, { once: true });
    void this.#running.then(() => signal.removeEventListener('abort', release));
  }

  /** Releases the upload and resolves once it is free; a second call does nothing. */
  async unlock(): Promise<void> {
    this.#release?.();
    await this.#running;
  }
}

function askToRelease(requestRelease: RequestRelease): void {
  Promise.resolve()
    .then(requestRelease)
    .catch(() => {});
}
