// Rate counters every instance shares, one row per key: a take is one statement that starts a new
// window when the old one ended, and counts only when it fits, so two instances racing for the
// last unit of a window cannot both have it. Old windows are swept.
import type { RateCounters } from '../../domain/ports.ts';
import { query, type PgDb } from './db.ts';

export class PostgresRateCounters implements RateCounters {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async take(key: string, n: number, limit: number, windowMs: number, now: number): Promise<number | undefined> {
    if (n > limit) return (await this.used(key, windowMs, now)).msLeft || windowMs; // never fits, as in memory
    if (Math.random() < 0.01) void this.sweep(now).catch(() => {}); // now and then, the windows that ended
    const { rows } = await query<{ window_start: number }>(
      this.#db.pool,
      `INSERT INTO rate_counters AS c (key, window_start, window_ms, used) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key) DO UPDATE SET
           window_start = CASE WHEN c.window_start + $3 <= $2 THEN $2 ELSE c.window_start END,
           window_ms = $3,
           used = CASE WHEN c.window_start + $3 <= $2 THEN $4 ELSE c.used + $4 END
         WHERE c.window_start + $3 <= $2 OR c.used + $4 <= $5
       RETURNING window_start`,
      [key, now, windowMs, n, limit],
    );
    if (rows.length) return undefined;
    const { used, msLeft } = await this.used(key, windowMs, now);
    return used + n > limit ? Math.max(1, msLeft) : undefined;
  }

  async add(key: string, n: number, windowMs: number, now: number): Promise<void> {
    await query(
      this.#db.pool,
      `INSERT INTO rate_counters AS c (key, window_start, window_ms, used) VALUES ($1, $2, $3, GREATEST($4, 0))
         ON CONFLICT (key) DO UPDATE SET
           window_start = CASE WHEN c.window_start + $3 <= $2 THEN $2 ELSE c.window_start END,
           window_ms = $3,
           used = GREATEST(0, CASE WHEN c.window_start + $3 <= $2 THEN $4 ELSE c.used + $4 END)`,
      [key, now, windowMs, n],
    );
  }

  async used(key: string, windowMs: number, now: number): Promise<{ used: number; msLeft: number }> {
    const { rows } = await query<{ window_start: number; used: number }>(this.#db.pool, 'SELECT window_start, used FROM rate_counters WHERE key = $1', [key]);
    const r = rows[0];
    return r && now - r.window_start < windowMs ? { used: r.used, msLeft: r.window_start + windowMs - now } : { used: 0, msLeft: 0 };
  }

  /** Drops windows that ended before `now`. */
  async sweep(now: number): Promise<number> {
    return (await query(this.#db.pool, 'DELETE FROM rate_counters WHERE window_start + window_ms <= $1', [now])).count;
  }
}
