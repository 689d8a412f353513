// Mutual exclusion by key across every instance on one PostgreSQL: a session-level advisory lock
// on a client checked out from the pool for as long as the work runs.
import type pg from 'pg';
import type { Locker } from '../../domain/ports.ts';
import { KeyedLock } from '../locker.ts';
import { toPortError } from './db.ts';

export class PostgresLocker implements Locker {
  readonly #pool: pg.Pool;
  /**
   * Callers of one process queue here first, so that a key held by this process takes one pool
   * client, not one per waiter (a busy upload could otherwise drain the pool).
   */
  readonly #local = new KeyedLock();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#local.run(key, () => this.#exclusive(key, fn));
  }

  async #exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    // A client whose lock state is unknown (a failed lock or unlock) is destroyed rather than
    // returned to the pool: its session ending drops any advisory lock it still holds.
    let broken: Error | undefined;
    // The connection may drop while fn runs (a restart, a failover): the database then drops the
    // lock with the session. That must not take the process down (a checked-out client's error
    // has no other listener); the unlock then fails and the client is thrown away.
    const onError = (err: Error): void => {
      broken = err;
    };
    client.on('error', onError);
    try {
      try {
        await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
      } catch (err) {
        broken = err as Error;
        throw toPortError(err);
      }
      try {
        return await fn();
      } finally {
        try {
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
        } catch (err) {
          broken = err as Error;
        }
      }
    } finally {
      client.off('error', onError);
      client.release(broken ?? false);
    }
  }

  /** Keys this process is working on or waiting for. */
  get size(): number {
    return this.#local.size;
  }
}
