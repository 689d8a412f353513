// One SQLite file for every row, opened with the pragmas this service relies on.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DuplicateError } from '../../domain/ports.ts';
import { AccountAddresses } from '../account-addresses.ts';
import { otherMasterKey, type MasterKey } from '../master-key.ts';
import { refuseNewerSchema } from '../schema-version.ts';
import { migrations } from './migrations.ts';

export type Db = DatabaseSync;

/** `masterKey` seals the rows a migration finds in the clear (see Migration.rewrite). */
export function openDb(file: string, opts: { masterKey?: MasterKey } = {}): Db {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL'); // a 2xx means the row is on disk
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA secure_delete = ON'); // deleted wrapped keys are overwritten, not just unlinked
  db.exec('PRAGMA busy_timeout = 5000');
  try {
    migrate(db, opts.masterKey);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Applies the numbered migrations not yet applied, each in its own transaction; refuses a database from a newer release. */
export function migrate(db: Db, masterKey?: MasterKey): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const done = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  refuseNewerSchema(done, migrations);
  let applied = 0;
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    // the pragma is a no-op inside a transaction, so it is set before
    const foreignKeys = (db.prepare('PRAGMA foreign_keys').get() as { foreign_keys: number }).foreign_keys;
    if (m.rebuildsTables) db.exec('PRAGMA foreign_keys = OFF');
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(m.sql);
      if (m.rewrite) {
        if (masterKey) sameKey(db, masterKey);
        m.rewrite(db, masterKey && new AccountAddresses(masterKey));
      }
      if (m.then) db.exec(m.then);
      if (m.rebuildsTables && db.prepare('PRAGMA foreign_key_check').all().length) throw new Error(`migration ${m.version} would leave rows that refer to nothing`);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(m.version, Date.now());
      db.exec('COMMIT');
      applied++;
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    } finally {
      if (m.rebuildsTables) db.exec(`PRAGMA foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
    }
  }
  // what a migration rewrote (plain addresses) must not linger in the log's older frames
  if (applied) db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  return applied;
}

/** Rows are never sealed under another key than the database's (services.ts records its check value). */
function sameKey(db: Db, masterKey: MasterKey): void {
  const seen = db.prepare("SELECT value FROM settings WHERE name = 'master_key_check'").get() as { value: string } | undefined;
  if (seen && seen.value !== masterKey.check) throw otherMasterKey();
}

/** Runs fn in one write transaction. */
export function tx<T>(db: Db, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = fn();
    db.exec('COMMIT');
    return out;
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}

const SQLITE_CONSTRAINT_UNIQUE = 2067;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;

/** Runs a repository call; a row that breaks a uniqueness rule becomes the port's DuplicateError. */
export async function unique<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const code = (err as { errcode?: number }).errcode;
    if (code === SQLITE_CONSTRAINT_UNIQUE || code === SQLITE_CONSTRAINT_PRIMARYKEY) throw new DuplicateError(String((err as Error).message), { cause: err });
    throw err;
  }
}
