// Earlier releases, run from git history: each schema this repository ever shipped, the commit
// whose own code last wrote it, and that code run (in a child process, on today's node_modules)
// to fill a data folder or a PostgreSQL database as that release did.
import { execFileSync, spawn } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { tempDir } from './service.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Release {
  /** The migrations its database carries. */
  schema: number[];
  /** The last commit whose code wrote exactly that schema. */
  commit: string;
  /** Whether an operator could run that commit on PostgreSQL (OBSCURA_DATABASE_URL, from 6a58c2f). */
  postgres: boolean;
  note: string;
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/**
 * Every schema that was ever current on main (`git log --first-parent -- src/store/sqlite/migrations.ts`),
 * with the last commit before the next migration arrived. Schema 1..9 alone was never on main:
 * migrations 9 and 10 came from two branches merged within minutes, 10 first; its code is the
 * head of the branch that added 9. A new migration adds a row here: the commit that shipped the
 * schema before it.
 */
export const RELEASES: Release[] = [
  { schema: upTo(1), commit: 'c88201d', postgres: false, note: 'accounts and keys' },
  { schema: upTo(2), commit: 'baad596', postgres: false, note: 'uploads' },
  { schema: upTo(3), commit: '5a5d0d9', postgres: false, note: 'jobs' },
  { schema: upTo(4), commit: '37d4796', postgres: false, note: 'one active job per session' },
  { schema: upTo(5), commit: '8b930e1', postgres: false, note: 'web pages' },
  { schema: upTo(6), commit: '6a58c2f', postgres: true, note: 'job leases; OBSCURA_DATABASE_URL' },
  { schema: upTo(7), commit: '52054ad', postgres: true, note: 'shared rate counters' },
  { schema: upTo(8), commit: '6cf68ef', postgres: true, note: 'blob parts index' },
  { schema: upTo(9), commit: '66e6c8d', postgres: true, note: 'account surface (branch i22-account)' },
  { schema: [...upTo(8), 10], commit: '2678b9b', postgres: true, note: 'sealed addresses, before migration 9 was merged' },
  { schema: upTo(10), commit: 'df07091', postgres: true, note: 'sealed addresses; a session could hold several jobs' },
];

/** What the old release made, as its writer printed it. */
export interface OldRows {
  email: string;
  key: string;
  revoked: string;
  password?: string;
  waiting?: { uid: string; name: string; size: number };
  job?: { uid: string; job_uid: string; files: { download_path: string; mime_type: string; size: number; sha256: string }[] };
}

const trees = new Map<string, string>();

/** The commit's src and test helpers in a temporary folder, resolving packages from today's node_modules. */
export function oldTree(commit: string): string {
  let dir = trees.get(commit);
  if (dir) return dir;
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    throw new Error(`commit ${commit} is not in this clone: the upgrade tests run earlier releases from git history (git fetch --unshallow)`);
  }
  dir = tempDir('obscura-release-');
  const archive = execFileSync('git', ['archive', commit, 'package.json', 'src', 'test/helpers'], { cwd: ROOT, maxBuffer: 256 << 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  trees.set(commit, dir);
  return dir;
}

/** Runs the old release's own code on this data folder (and database) to write its rows. */
export function writeWithRelease(commit: string, env: Record<string, string>): Promise<OldRows> {
  const tree = oldTree(commit);
  const child = spawn(
    process.execPath,
    ['--import', path.join(ROOT, 'test/helpers/no-egress.ts'), path.join(ROOT, 'test/helpers/old-release-writer.ts'), tree, JSON.stringify({ OBSCURA_LOG_LEVEL: 'warn', ...env })],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`release ${commit} could not write its rows (${code}): ${err.slice(-2000)}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()!) as OldRows);
    });
  });
}

/**
 * Copies every row of an old release's SQLite database into a PostgreSQL database holding the
 * same migrations (made by today's migration list), for the schemas no release ran on PostgreSQL:
 * the rows are the old code's own (sealed columns, key digests, wrapped blob keys).
 */
export async function copyToPostgres(sqliteFile: string, url: string): Promise<void> {
  const lite = new DatabaseSync(sqliteFile, { readOnly: true });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (lite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'").all() as { name: string }[]).map((r) => r.name);
    // parents before children: rows refer to accounts, sessions and jobs
    const order = ['accounts', 'settings', 'blob_keys', 'api_keys', 'sessions', 'uploads', 'jobs', 'assets'];
    tables.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
    for (const table of tables) {
      const rows = lite.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
      for (const row of rows) {
        const cols = Object.keys(row);
        const values = cols.map((c) => (row[c] instanceof Uint8Array ? Buffer.from(row[c] as Uint8Array) : row[c]));
        await client.query(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, values);
      }
    }
  } finally {
    await client.end();
    lite.close();
  }
}
