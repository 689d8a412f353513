import path from 'node:path';
import { test } from './helpers/test.ts';
import { tempDir } from './helpers/service.ts';
import { migrate, openDb } from '../src/store/sqlite/db.ts';
import { migrations } from '../src/store/sqlite/migrations.ts';

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
