// Upgrades: today's service started on the data of every schema this repository shipped, on both
// engines, finds the data there and serves it; a second start migrates nothing; a database from a
// newer release is refused.
//
// How the old data is made (see helpers/old-release.ts):
// - SQLite, every schema 1..9 and the 1..8+10 that main shipped for minutes: the old commit's own
//   code (git archive of its src and test helpers, run on today's node_modules) starts its service
//   and, through its own HTTP API, makes a verified account with a key, a second key it revokes,
//   an upload session with a file waiting in it, from schema 3 on a finished convert job, and from
//   schema 5 on a web password.
// - PostgreSQL, schemas 6..10 (the commits an operator could point at PostgreSQL with
//   OBSCURA_DATABASE_URL): the same, with it set.
// - PostgreSQL, schemas 1..5: no release ran PostgreSQL then. The database gets the first N of
//   today's PostgreSQL migrations, and the rows the old code wrote to its SQLite file are copied in
//   by SQL, with the blob folder as the old code left it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { migrations as pgMigrations } from '../src/store/postgres/migrations.ts';
import { migrate as migratePostgres } from '../src/store/postgres/db.ts';
import { migrate as migrateSqlite } from '../src/store/sqlite/db.ts';
import { migrations as sqliteMigrations } from '../src/store/sqlite/migrations.ts';
import { filesContaining } from './helpers/files.ts';
import { copyToPostgres, RELEASES, writeWithRelease, type OldRows, type Release } from './helpers/old-release.ts';
import { startPostgres, type Postgres } from './helpers/postgres.ts';
import { startService, tempDir, type RunningService } from './helpers/service.ts';
import { test } from './helpers/test.ts';
import { WebClient } from './helpers/web-client.ts';
import type { ExecutionContext } from 'ava';

const LATEST = Math.max(...sqliteMigrations.map((m) => m.version));
const sha = (b: ArrayBuffer) => createHash('sha256').update(new Uint8Array(b)).digest('hex');

// The releases are read from git history; a shallow clone (a CI's `--depth 1`) lacks them. There
// the release tests are skipped, and their titles say so: a full clone runs them all.
const shallow = spawnSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: path.resolve(import.meta.dirname, '..'), encoding: 'utf8' }).stdout.trim() === 'true';
const fromHistory = shallow ? test.skip : test.serial;
const whyNot = shallow ? ' (skipped: a shallow clone has no earlier releases; git fetch --unshallow)' : '';

let cluster: Postgres | undefined;
const postgres = async () => (cluster ??= await startPostgres());
test.after.always(async () => cluster?.stop());

test('every schema before the latest is covered by a release below, on both engines', (t) => {
  t.is(Math.max(...pgMigrations.map((m) => m.version)), LATEST, 'the two engines carry one numbered list');
  const covered = new Set(RELEASES.map((r) => r.schema.join(',')));
  for (let n = 1; n < LATEST; n++) {
    t.true(covered.has(Array.from({ length: n }, (_, i) => i + 1).join(',')), `schema 1..${n} has a release in helpers/old-release.ts`);
  }
});

/** What a user of the old release sees after the upgrade: the account, its keys, its upload and its job's results. */
async function servesOldRows(t: ExecutionContext, svc: RunningService, old: OldRows): Promise<void> {
  const account = await svc.api('GET', '/api/account', old.key);
  t.is(account.status, 200, 'the key made by the old release authenticates');
  t.is(account.body.email?.toLowerCase(), old.email.toLowerCase(), 'the account shows its address');
  t.true(account.body.verified);
  t.is((await svc.api('GET', '/api/account', old.revoked)).status, 401, 'the key the old release revoked stays refused');

  if (old.password) {
    const person = new WebClient(svc.url.clearnet);
    t.is((await person.signIn(old.email, old.password)).status, 303, 'the web password set by the old release signs in');
    const page = await person.get('/account');
    t.is(page.status, 200);
    t.true(page.body.toLowerCase().includes(old.email.toLowerCase()), 'the account page shows the address');
    t.is((await new WebClient(svc.url.clearnet).signIn(old.email, 'not the password at all')).status, 401);
  }

  if (old.job) {
    const view = await svc.api('GET', `/api/convert/job/${old.job.uid}`, old.key);
    t.is(view.status, 200);
    t.is(view.body.status, 'completed', 'the finished job is still finished');
    const results = await svc.api('GET', `/api/convert/job/${old.job.uid}/results`, old.key);
    t.is(results.status, 200);
    t.is(results.body.result_files.length, old.job.files.length);
    for (const [i, f] of results.body.result_files.entries()) {
      const r = await fetch(`${svc.url.clearnet}${f.download_path}`, { headers: { 'X-Api-Key': old.key } });
      t.is(r.status, 200, 'its result downloads');
      t.is(sha(await r.arrayBuffer()), old.job.files[i]!.sha256, 'the same bytes as the old release served');
      t.is(f.mime_type, old.job.files[i]!.mime_type);
    }
    // the link the old release handed out still leads to the file
    const before = await fetch(`${svc.url.clearnet}${old.job.files[0]!.download_path}`, { headers: { 'X-Api-Key': old.key } });
    t.is(before.status, 200, "the old release's download path still works");
    await before.arrayBuffer();
  }

  if (old.waiting) {
    const files = await svc.api('GET', `/api/convert/session/${old.waiting.uid}/files`, old.key);
    t.is(files.status, 200);
    t.like(files.body.files?.[0], { name: old.waiting.name, size: old.waiting.size, status: 'completed' }, 'the upload waits in its session');
    // today's code runs a job on it: the upload's blob opens, the upgraded tables take a new job
    const start = await svc.api('POST', '/api/convert/job', old.key, { upload_uid: old.waiting.uid, image_format: 'png' });
    t.is(start.status, 201, JSON.stringify(start.body));
    let view: any;
    for (const until = Date.now() + 90_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      view = (await svc.api('GET', `/api/convert/job/${old.waiting.uid}`, old.key)).body;
      if (['completed', 'failed', 'partial'].includes(view.status)) break;
    }
    t.is(view.status, 'completed', JSON.stringify(view));
    const results = (await svc.api('GET', `/api/convert/job/${old.waiting.uid}/results`, old.key)).body;
    const r = await fetch(`${svc.url.clearnet}${results.result_files[0].download_path}`, { headers: { 'X-Api-Key': old.key } });
    t.is(r.status, 200);
    t.is(Buffer.from(await r.arrayBuffer()).subarray(1, 4).toString(), 'PNG', 'the new job made from the old upload downloads');
  }

  // and a new key on the old account works
  const fresh = (await svc.services.apiKeys.issue(old.email)).key;
  t.is((await svc.api('GET', '/api/account', fresh)).status, 200);
}

/** Tables, columns and indexes of a SQLite file, in an order that does not depend on how they came to be. */
function sqliteSchema(file: string): unknown {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    return {
      tables: Object.fromEntries(
        tables.map((name) => [
          name,
          (db.prepare(`PRAGMA table_info(${name})`).all() as Record<string, unknown>[]).map(({ cid: _, ...c }) => c).sort((a, b) => String(a.name).localeCompare(String(b.name))),
        ]),
      ),
      indexes: (db.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all() as Record<string, string | null>[]).map((i) => ({ ...i, sql: i.sql?.replace(/\s+/g, ' ') ?? null })),
    };
  } finally {
    db.close();
  }
}

async function postgresSchema(url: string): Promise<unknown> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const cols = await c.query(
      "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name",
    );
    const idx = await c.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname");
    return { columns: cols.rows, indexes: idx.rows };
  } finally {
    await c.end();
  }
}

async function versionsIn(engine: { sqlite?: string; url?: string }): Promise<{ version: number; applied_at: number }[]> {
  if (engine.sqlite) {
    const db = new DatabaseSync(engine.sqlite, { readOnly: true });
    try {
      return db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all() as { version: number; applied_at: number }[];
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: engine.url });
  await c.connect();
  try {
    return (await c.query('SELECT version, applied_at::float8 AS applied_at FROM schema_migrations ORDER BY version')).rows;
  } finally {
    await c.end();
  }
}

/** Today's service on the old data: it serves; schema as a fresh database's; a second start and a second migrate change nothing. */
async function upgradeAndCheck(t: ExecutionContext, release: Release, dataDir: string, old: OldRows, url?: string): Promise<void> {
  const env: Record<string, string> = { OBSCURA_DATA_DIR: dataDir, ...(url ? { OBSCURA_DATABASE_URL: url } : {}) };
  const engine = url ? { url } : { sqlite: path.join(dataDir, 'obscura.db') };
  t.deepEqual(
    (await versionsIn(engine)).map((r) => r.version),
    release.schema,
    `the old release left schema ${release.schema.join(',')}`,
  );

  const spellings = [old.email, old.email.toLowerCase()];
  if (!url && !release.schema.includes(10)) {
    t.true(spellings.some((e) => filesContaining(dataDir, e).length > 0), 'the old release kept the address in the clear');
  }

  let svc = await startService(env);
  try {
    await servesOldRows(t, svc, old);
  } finally {
    await svc.close();
  }
  const applied = await versionsIn(engine);
  // the addresses the old release kept in the clear are sealed now, and gone from the files
  // (docs/operators.md, Threat model, threat 3: a seized disk); the blobs were always ciphertext
  for (const spelling of spellings) t.deepEqual(filesContaining(dataDir, spelling), [], `"${spelling}" on disk after the upgrade`);
  t.deepEqual(
    applied.map((r) => r.version),
    sqliteMigrations.map((m) => m.version),
    'every migration applied',
  );

  // the upgraded schema is the one a fresh database gets
  const freshDir = tempDir();
  if (url) {
    const freshUrl = await (await postgres()).database();
    await (await startService({ OBSCURA_DATA_DIR: freshDir, OBSCURA_DATABASE_URL: freshUrl })).close();
    t.deepEqual(await postgresSchema(url), await postgresSchema(freshUrl), 'the upgraded schema is the fresh one');
  } else {
    await (await startService({ OBSCURA_DATA_DIR: freshDir })).close();
    t.deepEqual(sqliteSchema(engine.sqlite!), sqliteSchema(path.join(freshDir, 'obscura.db')), 'the upgraded schema is the fresh one');
  }

  // migrating twice is a no-op: a second start applies nothing, and still serves
  svc = await startService(env);
  try {
    t.is((await svc.api('GET', '/api/account', old.key)).status, 200, 'the second start serves');
  } finally {
    await svc.close();
  }
  t.deepEqual(await versionsIn(engine), applied, 'the second start applied nothing');
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      t.is(await migratePostgres(pool), 0, 'migrate on an upgraded database does nothing');
    } finally {
      await pool.end();
    }
  } else {
    const db = new DatabaseSync(engine.sqlite!);
    try {
      t.is(migrateSqlite(db), 0, 'migrate on an upgraded database does nothing');
    } finally {
      db.close();
    }
  }
}

/** What each release could make: uploads from schema 2, jobs from 3, web passwords from 5. */
function expectRows(t: ExecutionContext, release: Release, old: OldRows): void {
  const n = release.schema.length;
  t.is(Boolean(old.waiting), n >= 2, 'an upload waits');
  t.is(Boolean(old.job), n >= 3, 'a job finished');
  t.is(Boolean(old.password), n >= 5, 'a web password');
}

const label = (r: Release) => `schema ${r.schema.length === r.schema.at(-1) ? `1..${r.schema.at(-1)}` : r.schema.join(',')} (${r.commit}, ${r.note})`;

for (const release of RELEASES) {
  fromHistory(`SQLite: data written by the release with ${label(release)} survives the upgrade and serves${whyNot}`, async (t) => {
    const dataDir = tempDir();
    const old = await writeWithRelease(release.commit, { OBSCURA_DATA_DIR: dataDir });
    expectRows(t, release, old);
    await upgradeAndCheck(t, release, dataDir, old);
  });
}

for (const release of RELEASES) {
  fromHistory(`PostgreSQL: data written ${release.postgres ? 'by' : 'as'} the release with ${label(release)} survives the upgrade and serves${whyNot}`, async (t) => {
    const dataDir = tempDir();
    const url = await (await postgres()).database();
    let old: OldRows;
    if (release.postgres) {
      old = await writeWithRelease(release.commit, { OBSCURA_DATA_DIR: dataDir, OBSCURA_DATABASE_URL: url });
    } else {
      // no release ran PostgreSQL at this schema: the old code's rows, copied into today's first N migrations
      old = await writeWithRelease(release.commit, { OBSCURA_DATA_DIR: dataDir });
      await migrateFirst(url, release.schema.length);
      await copyToPostgres(path.join(dataDir, 'obscura.db'), url);
      // the rows live in PostgreSQL now; the data folder keeps the blobs and the master key
      for (const f of ['obscura.db', 'obscura.db-wal', 'obscura.db-shm']) rmSync(path.join(dataDir, f), { force: true });
    }
    expectRows(t, release, old);
    await upgradeAndCheck(t, release, dataDir, old, url);
  });
}

/** The first n PostgreSQL migrations, as today's list has them (none of these rewrites rows). */
async function migrateFirst(url: string, n: number): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    for (const m of pgMigrations.slice(0, n)) {
      if (m.rewrite) throw new Error(`migration ${m.version} rewrites rows: write its schema with the release's own code`);
      await c.query(m.sql);
      await c.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [m.version, Date.now()]);
    }
    await c.query('COMMIT');
  } finally {
    await c.end();
  }
}

// A database a newer release upgraded: this release must not run on it (its rows may mean what
// this code does not know) and must say why, before it writes anything.
/** The reason the service gave for not starting ('started' when it did start, closed again at once). */
const startFails = (env: Record<string, string>): Promise<string> =>
  startService(env).then(
    async (svc) => {
      await svc.close();
      return 'started';
    },
    (err: Error) => err.message,
  );

const NEWER = new RegExp(`schema version ${LATEST + 1}, newer than this release knows \\(${LATEST}\\).*Downgrades are not supported`);

test.serial('SQLite: a database from a newer release is refused at start, with the reason, and left as it was', async (t) => {
  const dataDir = tempDir();
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  await svc.account('later@example.org');
  await svc.close();
  const file = path.join(dataDir, 'obscura.db');
  const db = new DatabaseSync(file);
  db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(LATEST + 1, Date.now());
  db.close();
  const before = await versionsIn({ sqlite: file });
  t.regex(await startFails({ OBSCURA_DATA_DIR: dataDir }), NEWER);
  t.deepEqual(await versionsIn({ sqlite: file }), before);

  // what the operator sees: the process stops with the reason and the configuration error status
  const run = spawnSync(process.execPath, ['src/main.ts'], {
    env: { ...process.env, OBSCURA_DATA_DIR: dataDir, OBSCURA_CLEARNET_LISTEN: '127.0.0.1:0', OBSCURA_ONION_LISTEN: 'off', OBSCURA_I2P_LISTEN: 'off', OBSCURA_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.is(run.status, 78, 'exits with EX_CONFIG');
  t.regex(run.stderr, NEWER);
  t.deepEqual(await versionsIn({ sqlite: file }), before);
});

test.serial('PostgreSQL: a database from a newer release is refused at start, with the reason, and left as it was', async (t) => {
  const dataDir = tempDir();
  const url = await (await postgres()).database();
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir, OBSCURA_DATABASE_URL: url });
  await svc.account('later@example.org');
  await svc.close();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [LATEST + 1, Date.now()]);
  await c.end();
  const before = await versionsIn({ url });
  t.regex(await startFails({ OBSCURA_DATA_DIR: dataDir, OBSCURA_DATABASE_URL: url }), NEWER);
  t.deepEqual(await versionsIn({ url }), before);
});
