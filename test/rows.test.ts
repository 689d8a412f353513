import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from './helpers/test.ts';
import { tempDir } from './helpers/service.ts';
import { migrate, openDb } from '../src/store/sqlite/db.ts';
import { migrations } from '../src/store/sqlite/migrations.ts';
import { SqliteJobs } from '../src/store/sqlite/jobs.ts';
import { MasterKey } from '../src/store/master-key.ts';

test('numbered migrations apply once, in order, and survive a reopen', (t) => {
  const file = path.join(tempDir(), 'obscura.db');
  const db = openDb(file);
  const versions = (db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[]).map((r) => r.version);
  t.deepEqual(versions, migrations.map((m) => m.version));
  t.deepEqual(versions, [...versions].sort((a, b) => a - b));
  t.is(migrate(db), 0);
  db.close();
  const again = openDb(file);
  t.is(migrate(again), 0);
  t.is((again.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode, 'wal');
  t.is((again.prepare('PRAGMA secure_delete').get() as { secure_delete: number }).secure_delete, 1);
  again.close();
});

test('migration 4 settles the duplicate active jobs the old race left, then one active job per session holds in the database', async (t) => {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  for (const m of migrations.filter((m) => m.version < 4)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, 0)').run(m.version);
  }
  db.exec("INSERT INTO accounts VALUES ('acc', 'a@example.org', 0, NULL, 0)");
  db.exec("INSERT INTO sessions VALUES ('s1', 'acc', 'hide', 0, 9e15), ('s2', 'acc', 'convert', 0, 9e15)");
  const job = db.prepare("INSERT INTO jobs (id, account_id, session_id, product, state, sealed, expiry_ms, created_at) VALUES (?, 'acc', ?, 'hide', ?, x'00', 1, ?)");
  job.run('old', 's1', 'queued', 1);
  job.run('older', 's1', 'processing', 0);
  job.run('new', 's1', 'queued', 2);
  job.run('done', 's1', 'completed', 3);
  job.run('alone', 's2', 'queued', 1);
  t.is(migrate(db, new MasterKey(randomBytes(32))), migrations.length - 3); // the key: migration 10 seals the account's address
  const states = Object.fromEntries((db.prepare('SELECT id, state, error FROM jobs').all() as { id: string; state: string; error: string | null }[]).map((r) => [r.id, `${r.state}${r.error ? `:${r.error}` : ''}`]));
  t.deepEqual(states, { old: 'failed:superseded', older: 'failed:superseded', new: 'queued', done: 'completed', alone: 'queued' });
  const jobs = new SqliteJobs(db);
  const row = { ...(await jobs.byId('new'))!, id: 'another', state: 'queued' as const };
  t.false(await jobs.insertIfFirst(row), 's1 has its active job');
  t.is((await jobs.activeForSession('s1'))?.id, 'new');
  await jobs.update('new', { state: 'completed' });
  // migration 11: the session's several jobs of old stay; its active one holds it, ended or not
  t.false(await jobs.insertIfFirst(row), 'a session holds one job, ever');
  t.deepEqual((db.prepare("SELECT id FROM jobs WHERE session_id = 's1' AND holds_session = 1").all() as { id: string }[]).map((r) => r.id), ['new']);
  t.is((db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE session_id = 's1'").get() as { n: number }).n, 4, 'no row of old is lost');
  t.throws(() => job.run('twin', 's2', 'processing', 5), { message: /UNIQUE/ });
  t.throws(() => job.run('twin', 's2', 'completed', 5), { message: /UNIQUE/ }, 'a finished second job neither');
  db.exec("INSERT INTO sessions VALUES ('s3', 'acc', 'convert', 0, 9e15)");
  t.true(await jobs.insertIfFirst({ ...row, id: 'first', sessionId: 's3' }));
});

test('migration 10 rebuilds accounts with every column and index it had, but the plain address', (t) => {
  // SQLite cannot drop a UNIQUE column, so migration 10 copies the table: a column or index that
  // an earlier migration adds to accounts must be named in its rebuild too, or it would be lost
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  for (const m of migrations.filter((m) => m.version < 10)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, 0)').run(m.version);
  }
  const columns = () => (db.prepare('PRAGMA table_info(accounts)').all() as { name: string; type: string; notnull: number }[]).map((c) => `${c.name} ${c.type}${c.notnull ? ' NOT NULL' : ''}`).sort();
  const indexes = () => (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'accounts' AND sql IS NOT NULL").all() as { sql: string }[]).map((i) => i.sql).sort();
  const before = { columns: columns(), indexes: indexes() };
  migrate(db);
  t.deepEqual(columns(), [...before.columns.filter((c) => !c.startsWith('email ')), 'email_lookup BLOB NOT NULL', 'email_sealed BLOB NOT NULL'].sort());
  t.deepEqual(indexes(), before.indexes);
  t.deepEqual((db.prepare('PRAGMA index_list(accounts)').all() as { unique: number; origin: string }[]).filter((i) => i.unique && i.origin === 'u').length, 1, 'one unique rule: the address HMAC');
});
