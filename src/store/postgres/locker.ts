// Mutual exclusion by key across every instance on one PostgreSQL: a session-level advisory lock
// on a client checked out from the pool for as long as the work runs. A waiter's request that the
// holder let go travels as a NOTIFY (the same bus as job events, on its own channel), heard by the
// instance holding the key, which heeds it while the database shows a session waiting.
import type pg from 'pg';
import type { LockHold, Locker } from '../../domain/ports.ts';
import { Holds, KeyedLock } from '../locker.ts';
import { toPortError } from './db.ts';

/** Publish and subscribe by key across instances (PostgresJobEvents on another channel). */
export interface ReleaseBus {
  publish(key: string): Promise<void>;
  subscribe(key: string, fn: () => void): Promise<() => void>;
}

export class PostgresLocker implements Locker {
  readonly #pool: pg.Pool;
  readonly #bus: ReleaseBus | undefined;
  /**
   * Callers of one process queue here first, so that a key held by this process takes one pool
   * client, not one per waiter (a busy upload could otherwise drain the pool).
   */
  readonly #local = new KeyedLock();
  readonly #holds = new Holds();

  /** Without a bus, a release request reaches holders in this process only. */
  constructor(pool: pg.Pool, bus?: ReleaseBus) {
    this.#pool = pool;
    this.#bus = bus;
  }

  run<T>(key: string, fn: (hold: LockHold) => Promise<T>): Promise<T> {
    return this.#local.run(key, () => this.#exclusive(key, fn));
  }

  async requestRelease(key: string): Promise<void> {
    if (this.#bus) await this.#bus.publish(key); // heard here too, by the listening connection
    else this.#holds.ask(key);
  }

  async #exclusive<T>(key: string, fn: (hold: LockHold) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    // A client whose lock state is unknown (a failed lock or unlock) is destroyed rather than
    // returned to the pool: its session ending drops any advisory lock it still holds.
    let broken: Error | undefined;
    let held: ReturnType<Holds['open']> | undefined;
    // The connection may drop while fn runs (a restart, a failover): the database then drops the
    // lock with the session, and the holder is told (hold.lost) so that it stops writing as the
    // key's owner. A checked-out client's error has no other listener: it must not take the
    // process down; the unlock then fails and the client is thrown away.
    const onError = (err: Error): void => {
      broken = err;
      held?.lose(err);
    };
    const onEnd = (): void => {
      broken ??= new Error('the connection holding the lock ended');
      held?.lose(broken);
    };
    client.on('error', onError);
    client.on('end', onEnd);
    let unsubscribe: (() => void) | undefined;
    try {
      try {
        await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
      } catch (err) {
        broken = err as Error;
        throw toPortError(err);
      }
      held = this.#holds.open(key);
      if (broken) held.lose(broken);
      try {
        unsubscribe = await this.#bus?.subscribe(key, () => void this.#heed(key));
        return await fn(held.hold);
      } finally {
        unsubscribe?.();
        held.end();
        try {
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
        } catch (err) {
          broken = err as Error;
        }
      }
    } finally {
      client.off('error', onError);
      client.off('end', onEnd);
      client.release(broken ?? false);
    }
  }

  /**
   * A request is passed on to the holder only while a session really waits for the key: one
   * that arrives late (its waiter got the key since, perhaps this very holder) is dropped, so
   * a holder is never asked to let go for nobody. Waiters of this process queue in #local, not
   * in the database, and are the holder's own business (TusLocker asks it directly).
   */
  async #heed(key: string): Promise<void> {
    try {
      const { rows } = await this.#pool.query<{ waits: boolean }>(
        `SELECT EXISTS (
           SELECT 1 FROM pg_locks, (SELECT hashtextextended($1, 0) AS h) k
            WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND classid = ((k.h >> 32) & 4294967295)::oid AND objid = (k.h & 4294967295)::oid
         ) AS waits`,
        [key],
      );
      if (rows[0]?.waits) this.#holds.ask(key);
    } catch {
      // the database is away: the waiter asks again
    }
  }

  /** Keys this process is working on or waiting for. */
  get size(): number {
    return this.#local.size;
  }
}
