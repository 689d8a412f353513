// Numbered, append-only. A shipped migration is never edited; add the next number.
import type { DatabaseSync } from 'node:sqlite';
import type { AccountAddresses } from '../account-addresses.ts';

export interface Migration {
  version: number;
  sql: string;
  /**
   * Rows rewritten in code after `sql`, where SQL alone cannot do it: sealing needs keys from the
   * master key. A database opened without them (tests of other seams) may only meet rows that
   * need nothing; otherwise the migration stops and says so.
   */
  rewrite?: (db: DatabaseSync, addresses: AccountAddresses | undefined) => void;
  /** SQL run after `rewrite`. */
  then?: string;
  /** Rebuilds a table that others refer to: runs with foreign keys off and checks them before it commits (SQLite's own procedure). */
  rebuildsTables?: true;
}

export const migrations: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        verified_at INTEGER,
        deactivated_at INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        prefix TEXT NOT NULL,
        last4 TEXT NOT NULL,
        digest BLOB NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX api_keys_account ON api_keys(account_id);
      CREATE TABLE blob_keys (
        object_id TEXT PRIMARY KEY,
        wrapped BLOB NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        type TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_account ON sessions(account_id);
      CREATE INDEX sessions_expiry ON sessions(expires_at);
      CREATE TABLE uploads (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        session_id TEXT REFERENCES sessions(id),
        via TEXT NOT NULL,
        step INTEGER NOT NULL,
        size INTEGER,
        sealed BLOB NOT NULL,
        client_ref BLOB,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        completed_at INTEGER,
        ended_at INTEGER
      );
      CREATE INDEX uploads_session ON uploads(session_id);
      CREATE UNIQUE INDEX uploads_client_ref ON uploads(session_id, client_ref) WHERE client_ref IS NOT NULL;
      CREATE INDEX uploads_live_expiry ON uploads(expires_at) WHERE state IN ('uploading', 'completed');
    `,
  },
  {
    version: 3,
    sql: `
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        session_id TEXT NOT NULL REFERENCES sessions(id),
        product TEXT NOT NULL,
        state TEXT NOT NULL,
        progress INTEGER NOT NULL DEFAULT 0,
        progress_message TEXT NOT NULL DEFAULT '',
        error TEXT,
        sealed BLOB NOT NULL,
        expiry_ms INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        expires_at INTEGER,
        results_state TEXT NOT NULL DEFAULT 'none'
      );
      CREATE INDEX jobs_session ON jobs(session_id, created_at);
      CREATE INDEX jobs_active ON jobs(state, created_at) WHERE state IN ('queued', 'processing');
      CREATE INDEX jobs_expiry ON jobs(expires_at) WHERE results_state = 'available';
      CREATE TABLE assets (
        id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL REFERENCES jobs(id),
        account_id TEXT NOT NULL REFERENCES accounts(id),
        category TEXT NOT NULL,
        position INTEGER NOT NULL,
        sealed BLOB NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX assets_job ON assets(job_id, position);
    `,
  },
  {
    version: 4,
    // One active job per session, held by the database rather than by a check-then-insert
    // that two requests can both pass. Rows the old race left are settled first: the latest
    // active job of a session keeps running, older ones fail.
    sql: `
      UPDATE jobs SET state = 'failed', error = 'superseded', progress_message = 'A later job on the same session replaced this one.'
        WHERE state IN ('queued', 'processing')
          AND id NOT IN (
            SELECT id FROM (
              SELECT id, ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY created_at DESC, rowid DESC) AS n
                FROM jobs WHERE state IN ('queued', 'processing')
            ) WHERE n = 1
          );
      CREATE UNIQUE INDEX jobs_one_active ON jobs(session_id) WHERE state IN ('queued', 'processing');
    `,
  },
  {
    version: 5,
    // The web pages: a password for people (argon2id, PHC string), signed-in sessions and the
    // single-use links sent by mail. Tokens are kept as HMACs only.
    sql: `
      ALTER TABLE accounts ADD COLUMN password_hash TEXT;
      CREATE TABLE web_sessions (
        digest BLOB PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        created_at INTEGER NOT NULL,
        seen_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX web_sessions_account ON web_sessions(account_id);
      CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);
      CREATE TABLE mail_tokens (
        digest BLOB PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        purpose TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      );
      CREATE INDEX mail_tokens_expiry ON mail_tokens(expires_at);
    `,
  },
  {
    version: 6,
    // Job leases, so that several instances can share one queue: a claimed job is held by one
    // owner until lease_until (ms), renewed while it runs; a job whose lease ran out is claimed
    // again. jobs_claim walks the claimable rows in claim order (created_at then rowid, which every SQLite index carries).
    // A job already processing here was started by a process that had no lease (before this
    // migration, hence stopped): it gets a lease that ran out long ago, so the next claim retakes it.
    sql: `
      ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
      ALTER TABLE jobs ADD COLUMN lease_until INTEGER;
      CREATE INDEX jobs_claim ON jobs(created_at) WHERE state IN ('queued', 'processing');
      UPDATE jobs SET lease_until = 0 WHERE state = 'processing';
    `,
  },
  {
    version: 7,
    // Rate counters shared by every instance (an account's requests, job starts and bytes): a
    // fixed window per key. The embedded engine counts in memory and leaves this table empty;
    // it exists in both so that the two schemas stay one numbered list.
    sql: `
      CREATE TABLE rate_counters (
        key TEXT PRIMARY KEY,
        window_start INTEGER NOT NULL,
        window_ms INTEGER NOT NULL,
        used INTEGER NOT NULL
      );
    `,
  },
  {
    version: 8,
    // The index of the object store's parts (S3 blobs, README "Many instances"): where each part
    // of an object is, how long it is, and the ciphertext itself while the object is small. The
    // file store leaves it empty; it exists in both so that the schemas stay one numbered list.
    sql: `
      CREATE TABLE blob_parts (
        object_id TEXT NOT NULL,
        no INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        object_key TEXT,
        body BLOB,
        complete INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (object_id, no)
      );
    `,
  },
  {
    version: 9,
    // The account surface (issue 22): a web session records the network it was opened on and
    // how (password, API key, mailed link), so the account page can list them and revoking a key
    // ends the sessions it opened. Mail links get looked up per account (a newer sign-up voids
    // the older links), and unverified accounts by age (the sweep deletes them). Sessions opened
    // before are ended: which key opened them is unknown, so revoking it could not end them.
    sql: `
      DELETE FROM web_sessions;
      ALTER TABLE web_sessions ADD COLUMN network TEXT NOT NULL DEFAULT 'clearnet';
      ALTER TABLE web_sessions ADD COLUMN method TEXT NOT NULL DEFAULT 'password';
      ALTER TABLE web_sessions ADD COLUMN key_id TEXT;
      CREATE INDEX web_sessions_key ON web_sessions(key_id) WHERE key_id IS NOT NULL;
      CREATE INDEX mail_tokens_account ON mail_tokens(account_id, purpose);
      CREATE INDEX accounts_unverified ON accounts(created_at) WHERE verified_at IS NULL;
    `,
  },
  {
    version: 10,
    // E-mail addresses out of the clear (README, Threat model): each account keeps an HMAC of its
    // address (the look-up, and the one-account-per-address rule in place of UNIQUE COLLATE NOCASE)
    // and the address sealed to its row; the plain column goes. SQLite cannot drop a UNIQUE
    // column, so the table is rebuilt; secure_delete zeroes the pages of the old one.
    sql: `
      ALTER TABLE accounts ADD COLUMN email_lookup BLOB;
      ALTER TABLE accounts ADD COLUMN email_sealed BLOB;
    `,
    rewrite: sealAddresses,
    then: `
      CREATE TABLE accounts_sealed (
        id TEXT PRIMARY KEY,
        email_lookup BLOB NOT NULL UNIQUE,
        email_sealed BLOB NOT NULL,
        verified_at INTEGER,
        deactivated_at INTEGER,
        created_at INTEGER NOT NULL,
        password_hash TEXT
      );
      INSERT INTO accounts_sealed (id, email_lookup, email_sealed, verified_at, deactivated_at, created_at, password_hash)
        SELECT id, email_lookup, email_sealed, verified_at, deactivated_at, created_at, password_hash FROM accounts;
      DROP TABLE accounts;
      ALTER TABLE accounts_sealed RENAME TO accounts;
      CREATE INDEX accounts_unverified ON accounts(created_at) WHERE verified_at IS NULL;
    `,
    rebuildsTables: true,
  },
  {
    version: 11,
    // A session holds one job, ever (issue 25): a second start is refused, by the database
    // under a race. Sessions of older releases may hold several jobs; the one that holds the
    // session is its active job, else its latest, and the rest stay as they are (NULL is
    // outside the index). A new row takes the default, so it must be the session's first.
    // jobs_one_active (migration 4) goes: the holder is the session's active job, so the new
    // index covers it, and beside it a racing insert could fail on the index that
    // ON CONFLICT does not arbitrate instead of doing nothing.
    sql: `
      ALTER TABLE jobs ADD COLUMN holds_session INTEGER DEFAULT 1;
      UPDATE jobs SET holds_session = NULL
        WHERE id NOT IN (
          SELECT id FROM (
            SELECT id, ROW_NUMBER() OVER (
              PARTITION BY session_id ORDER BY state IN ('queued', 'processing') DESC, created_at DESC, rowid DESC
            ) AS n FROM jobs
          ) WHERE n = 1
        );
      CREATE UNIQUE INDEX jobs_one_per_session ON jobs(session_id) WHERE holds_session = 1;
      DROP INDEX jobs_one_active;
    `,
  },
];

/** Migration 10's rows: each plain address becomes its HMAC and its sealed form. */
function sealAddresses(db: DatabaseSync, addresses: AccountAddresses | undefined): void {
  const rows = db.prepare('SELECT id, email FROM accounts').all() as { id: string; email: string }[];
  if (!rows.length) return;
  if (!addresses) throw new Error(`migration 10 seals the e-mail addresses of ${rows.length} accounts and needs the master key: open the database with the service or the command line`);
  const set = db.prepare('UPDATE accounts SET email_lookup = ?, email_sealed = ? WHERE id = ?');
  for (const r of rows) set.run(addresses.lookup(r.email), addresses.seal(r.id, r.email), r.id);
}
