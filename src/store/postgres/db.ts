// PostgreSQL for every row when several instances share them: one pg.Pool, the numbered
// migrations applied under an advisory lock, and the typed errors of the ports.
import pg from 'pg';
import { DuplicateError } from '../../domain/ports.ts';
import { AccountAddresses } from '../account-addresses.ts';
import { otherMasterKey, type MasterKey } from '../master-key.ts';
import { refuseNewerSchema } from '../schema-version.ts';
import { migrations } from './migrations.ts';

export interface PgDb {
  pool: pg.Pool;
  close(): Promise<void>;
}

/** Anything that runs a query: the pool, or one client inside a transaction. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export type Param = string | number | boolean | null | Buffer;

const INT8 = 20;
const UNIQUE_VIOLATION = '23505';

/**
 * BIGINT (the millisecond timestamps, sizes) comes back from pg as a string, since it may not
 * fit a double; ours always do. Given to this pool's clients only, not set globally.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8 && format !== 'binary') return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** `masterKey` seals the rows a migration finds in the clear (see Migration.rewrite). */
export async function openPostgres(url: string, options: { max?: number; masterKey?: MasterKey } = {}): Promise<PgDb> {
  const pool = new pg.Pool({ connectionString: url, types, max: options.max ?? 10 });
  // An idle client whose connection drops (a restart, a failover) must not take the process down;
  // the next query gets a fresh connection or a clear error.
  pool.on('error', () => {});
  try {
    await migrate(pool, options.masterKey);
  } catch (err) {
    await pool.end();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return { pool, close: () => (closed ??= pool.end()) };
}

/**
 * Applies the numbered migrations not yet applied, in one transaction under an advisory lock:
 * instances starting at once wait for the first, then find nothing left to do. A database from
 * a newer release is refused.
 */
export async function migrate(pool: pg.Pool, masterKey?: MasterKey): Promise<number> {
  return tx(pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock(hashtext('obscura:schema_migrations'))");
    await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const done = new Set((await c.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    refuseNewerSchema(done, migrations);
    let applied = 0;
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await c.query(m.sql);
      if (m.rewrite) {
        if (masterKey) await sameKey(c, masterKey);
        await m.rewrite(c, masterKey && new AccountAddresses(masterKey));
      }
      if (m.then) await c.query(m.then);
      await c.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [m.version, Date.now()]);
      applied++;
    }
    return applied;
  });
}

/** Rows are never sealed under another key than the database's (services.ts records its check value). */
async function sameKey(c: pg.PoolClient, masterKey: MasterKey): Promise<void> {
  const { rows } = await c.query<{ value: string }>("SELECT value FROM settings WHERE name = 'master_key_check'");
  if (rows[0] && rows[0].value !== masterKey.check) throw otherMasterKey();
}

/** Runs fn on one client inside a transaction; commits what it returns, rolls back what it throws. */
export async function tx<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw toPortError(err);
  } finally {
    client.release();
  }
}

/** The port's typed error for a database error, or the error itself. */
export function toPortError(err: unknown): unknown {
  const e = err as { code?: string; constraint?: string; table?: string } | null;
  if (e?.code === UNIQUE_VIOLATION) {
    return new DuplicateError(`duplicate row (${e.constraint ?? e.table ?? 'unique'})`, { cause: err });
  }
  return err;
}

/** Runs one statement and returns its rows and count, with the port's errors. */
export async function query<R extends pg.QueryResultRow>(db: Queryable, sql: string, params: Param[] = []): Promise<{ rows: R[]; count: number }> {
  try {
    const r = await db.query<R>(sql, params);
    return { rows: r.rows, count: r.rowCount ?? 0 };
  } catch (err) {
    throw toPortError(err);
  }
}
