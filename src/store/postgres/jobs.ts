import type { JobRepository, JobRow, JobState } from '../../domain/ports.ts';
import { JOB_COLUMNS, toJob, type JobRecord } from '../rows.ts';
import { query, type Param, type PgDb } from './db.ts';

const INSERT = `INSERT INTO jobs (id, account_id, session_id, product, state, progress, progress_message, error, sealed, expiry_ms, attempts,
  created_at, started_at, finished_at, expires_at, results_state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`;

const values = (j: JobRow): Param[] => [
  j.id,
  j.accountId,
  j.sessionId,
  j.product,
  j.state,
  j.progress,
  j.progressMessage,
  j.error,
  j.sealed,
  j.expiryMs,
  j.attempts,
  j.createdAt,
  j.startedAt,
  j.finishedAt,
  j.expiresAt,
  j.resultsState,
];

type JobFields = Partial<Omit<JobRow, 'id' | 'accountId' | 'sessionId' | 'product' | 'createdAt'>>;

/** `col = $n` for each field given, in order, with its parameters; an unknown field throws. */
function assignments(fields: JobFields): { sets: string[]; params: Param[] } {
  const sets: string[] = [];
  const params: Param[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const col = JOB_COLUMNS[k];
    if (!col) throw new Error(`not an updatable job field: ${k}`);
    params.push(v as Param);
    sets.push(`${col} = $${params.length}`);
  }
  return { sets, params };
}

export class PostgresJobs implements JobRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(j: JobRow): Promise<void> {
    await query(this.db.pool, INSERT, values(j));
  }

  async insertIfIdle(j: JobRow): Promise<boolean> {
    // The partial unique index jobs_one_active decides: a session that already has a queued or
    // running job makes this insert do nothing (two racing requests: one row, one false). Any
    // other uniqueness (the id) still throws DuplicateError.
    const { count } = await query(this.db.pool, `${INSERT} ON CONFLICT (session_id) WHERE state IN ('queued', 'processing') DO NOTHING`, values(j));
    return count === 1;
  }

  async activeForSession(sessionId: string): Promise<JobRow | undefined> {
    const { rows } = await query<JobRecord>(this.db.pool, "SELECT * FROM jobs WHERE session_id = $1 AND state IN ('queued', 'processing')", [sessionId]);
    return rows[0] && toJob(rows[0]);
  }

  async byId(id: string): Promise<JobRow | undefined> {
    const { rows } = await query<JobRecord>(this.db.pool, 'SELECT * FROM jobs WHERE id = $1', [id]);
    return rows[0] && toJob(rows[0]);
  }

  async latestForSession(sessionId: string): Promise<JobRow | undefined> {
    const { rows } = await query<JobRecord>(this.db.pool, 'SELECT * FROM jobs WHERE session_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1', [sessionId]);
    return rows[0] && toJob(rows[0]);
  }

  async forSession(sessionId: string): Promise<JobRow[]> {
    const { rows } = await query<JobRecord>(this.db.pool, 'SELECT * FROM jobs WHERE session_id = $1 ORDER BY created_at, seq', [sessionId]);
    return rows.map(toJob);
  }

  async claim(owner: string, leaseMs: number, now: number): Promise<JobRow | undefined> {
    // One statement, safe with several instances claiming at once: each locks the oldest
    // claimable row no one else holds (SKIP LOCKED), so no two get the same job and none waits on
    // another. The outer WHERE checks again the row as it is once locked.
    const { rows } = await query<JobRecord>(
      this.db.pool,
      `UPDATE jobs SET state = 'processing', lease_owner = $1, lease_until = $2, started_at = $3, attempts = attempts + 1
         WHERE id = (
             SELECT id FROM jobs WHERE state IN ('queued', 'processing') AND (state = 'queued' OR lease_until < $3)
               ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED
           )
           AND (state = 'queued' OR (state = 'processing' AND lease_until < $3))
         RETURNING *`,
      [owner, now + leaseMs, now],
    );
    return rows[0] && toJob(rows[0]);
  }

  async renew(jobId: string, owner: string, leaseMs: number, now: number): Promise<boolean> {
    const { count } = await query(
      this.db.pool,
      "UPDATE jobs SET lease_until = $1 WHERE id = $2 AND state = 'processing' AND lease_owner = $3",
      [now + leaseMs, jobId, owner],
    );
    return count > 0;
  }

  async finish(jobId: string, owner: string, fields: JobFields): Promise<boolean> {
    const { sets, params } = assignments(fields);
    params.push(jobId, owner);
    const { count } = await query(
      this.db.pool,
      `UPDATE jobs SET ${[...sets, 'lease_owner = NULL', 'lease_until = NULL'].join(', ')}
         WHERE id = $${params.length - 1} AND lease_owner = $${params.length}`,
      params,
    );
    return count > 0;
  }

  async update(id: string, fields: JobFields): Promise<void> {
    const { sets, params } = assignments(fields);
    if (!sets.length) return;
    params.push(id);
    await query(this.db.pool, `UPDATE jobs SET ${sets.join(', ')} WHERE id = $${params.length}`, params);
  }

  async inState(state: JobState): Promise<JobRow[]> {
    const { rows } = await query<JobRecord>(this.db.pool, 'SELECT * FROM jobs WHERE state = $1 ORDER BY created_at, seq', [state]);
    return rows.map(toJob);
  }

  async resultsExpiredBefore(at: number, limit: number): Promise<JobRow[]> {
    const { rows } = await query<JobRecord>(
      this.db.pool,
      "SELECT * FROM jobs WHERE results_state = 'available' AND expires_at <= $1 ORDER BY expires_at LIMIT $2",
      [at, limit],
    );
    return rows.map(toJob);
  }
}
