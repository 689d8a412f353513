// The same numbered migrations as store/sqlite/migrations.ts, in PostgreSQL's SQL. Numbered,
// append-only: a shipped migration is never edited; add the next number to both backends.
//
// Where the dialects differ: BYTEA for blobs; BIGINT for the millisecond timestamps and byte
// sizes; e-mail unique and looked up case-insensitively through lower(email) (SQLite's COLLATE
// NOCASE; the cluster's C ctype folds ASCII only, as NOCASE does); and a `seq` identity column
// on the tables whose reads break ties by insertion order, which SQLite gets from its rowid.
import type pg from 'pg';
import type { AccountAddresses } from '../account-addresses.ts';

export interface Migration {
  version: number;
  sql: string;
  /**
   * Rows rewritten in code after `sql`, in the same transaction, where SQL alone cannot do it:
   * sealing needs keys from the master key. A database opened without them may only meet rows
   * that need nothing; otherwise the migration stops and says so.
   */
  rewrite?: (client: pg.PoolClient, addresses: AccountAddresses | undefined) => Promise<void>;
  /** SQL run after `rewrite`. */
  then?: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        verified_at BIGINT,
        deactivated_at BIGINT,
        created_at BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        prefix TEXT NOT NULL,
        last4 TEXT NOT NULL,
        digest BYTEA NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        revoked_at BIGINT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX api_keys_account ON api_keys(account_id);
      CREATE TABLE blob_keys (
        object_id TEXT PRIMARY KEY,
        wrapped BYTEA NOT NULL,
        created_at BIGINT NOT NULL
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
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX sessions_account ON sessions(account_id);
      CREATE INDEX sessions_expiry ON sessions(expires_at);
      CREATE TABLE uploads (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        session_id TEXT REFERENCES sessions(id),
        via TEXT NOT NULL,
        step INTEGER NOT NULL,
        size BIGINT,
        sealed BYTEA NOT NULL,
        client_ref BYTEA,
        state TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        completed_at BIGINT,
        ended_at BIGINT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY
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
        sealed BYTEA NOT NULL,
        expiry_ms BIGINT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT,
        expires_at BIGINT,
        results_state TEXT NOT NULL DEFAULT 'none',
        seq BIGINT GENERATED ALWAYS AS IDENTITY
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
        sealed BYTEA NOT NULL,
        mime_type TEXT NOT NULL,
        size BIGINT NOT NULL,
        state TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY
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
              SELECT id, ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY created_at DESC, seq DESC) AS n
                FROM jobs WHERE state IN ('queued', 'processing')
            ) AS ranked WHERE n = 1
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
        digest BYTEA PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        created_at BIGINT NOT NULL,
        seen_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX web_sessions_account ON web_sessions(account_id);
      CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);
      CREATE TABLE mail_tokens (
        digest BYTEA PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        purpose TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE INDEX mail_tokens_expiry ON mail_tokens(expires_at);
    `,
  },
  {
    version: 6,
    // Job leases, so that several instances can share one queue: a claimed job is held by one
    // owner until lease_until (ms), renewed while it runs; a job whose lease ran out is claimed
    // again. jobs_claim walks the claimable rows in claim order (created_at then seq).
    // A job already processing here was started by a process that had no lease (before this
    // migration, hence stopped): it gets a lease that ran out long ago, so the next claim retakes it.
    sql: `
      ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
      ALTER TABLE jobs ADD COLUMN lease_until BIGINT;
      CREATE INDEX jobs_claim ON jobs(created_at, seq) WHERE state IN ('queued', 'processing');
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
        window_start BIGINT NOT NULL,
        window_ms BIGINT NOT NULL,
        used BIGINT NOT NULL
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
        bytes BIGINT NOT NULL,
        object_key TEXT,
        body BYTEA,
        complete BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
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
    // address (the look-up, and the one-account-per-address rule in place of lower(email)) and the
    // address sealed to its row; the plain column is emptied, then dropped (with its index).
    sql: `
      ALTER TABLE accounts ADD COLUMN email_lookup BYTEA, ADD COLUMN email_sealed BYTEA, ALTER COLUMN email DROP NOT NULL;
    `,
    rewrite: sealAddresses,
    then: `
      ALTER TABLE accounts DROP COLUMN email, ALTER COLUMN email_lookup SET NOT NULL, ALTER COLUMN email_sealed SET NOT NULL;
      CREATE UNIQUE INDEX accounts_email_lookup ON accounts (email_lookup);
    `,
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
      ALTER TABLE jobs ADD COLUMN holds_session BOOLEAN DEFAULT true;
      UPDATE jobs SET holds_session = NULL
        WHERE id NOT IN (
          SELECT id FROM (
            SELECT id, ROW_NUMBER() OVER (
              PARTITION BY session_id ORDER BY state IN ('queued', 'processing') DESC, created_at DESC, seq DESC
            ) AS n FROM jobs
          ) AS ranked WHERE n = 1
        );
      CREATE UNIQUE INDEX jobs_one_per_session ON jobs(session_id) WHERE holds_session;
      DROP INDEX jobs_one_active;
    `,
  },
];

/** Migration 10's rows: each plain address becomes its HMAC and its sealed form, and the plain one NULL. */
async function sealAddresses(client: pg.PoolClient, addresses: AccountAddresses | undefined): Promise<void> {
  const { rows } = await client.query<{ id: string; email: string }>('SELECT id, email FROM accounts WHERE email IS NOT NULL');
  if (!rows.length) return;
  if (!addresses) throw new Error(`migration 10 seals the e-mail addresses of ${rows.length} accounts and needs the master key: open the database with the service or the command line`);
  for (const r of rows) {
    await client.query('UPDATE accounts SET email_lookup = $1, email_sealed = $2, email = NULL WHERE id = $3', [addresses.lookup(r.email), addresses.seal(r.id, r.email), r.id]);
  }
}
