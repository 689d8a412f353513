import type { ClaimedJob, JobRepository, JobRow, JobState, Product } from '../../domain/ports.ts';
import { jobAssignments, jobInsert, toJob, type JobFields, type JobRecord } from '../rows.ts';
import { query, type PgDb } from './db.ts';

const param = (n: number) => `$${n}`;

export class PostgresJobs implements JobRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(j: JobRow): Promise<void> {
    const { sql, values } = jobInsert(j, param);
    await query(this.db.pool, sql, values);
  }

  async insertIfFirst(j: JobRow): Promise<boolean> {
    // The partial unique index jobs_one_per_session decides: a session that has had a job makes
    // this insert do nothing (two racing requests: one row, one false). Any other uniqueness
    // (the id) still throws DuplicateError.
    const { sql, values } = jobInsert(j, param);
    const { count } = await query(this.db.pool, `${sql} ON CONFLICT (session_id) WHERE holds_session DO NOTHING`, values);
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

  async claim(owner: string, leaseMs: number, now: number): Promise<ClaimedJob | undefined> {
    // One statement, safe with several instances claiming at once: each locks the oldest
    // claimable row no one else holds (SKIP LOCKED), so no two get the same job and none waits on
    // another. The outer WHERE checks again the row as it is once locked; `was` is its state
    // then (processing: a lease that ran out, so a takeover).
    const { rows } = await query<JobRecord & { was: JobState }>(
      this.db.pool,
      `WITH next AS (
           SELECT id, state AS was FROM jobs WHERE state IN ('queued', 'processing') AND (state = 'queued' OR lease_until < $3)
             ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED
         )
       UPDATE jobs SET state = 'processing', lease_owner = $1, lease_until = $2, started_at = $3, attempts = attempts + 1
         FROM next
         WHERE jobs.id = next.id AND (jobs.state = 'queued' OR (jobs.state = 'processing' AND jobs.lease_until < $3))
         RETURNING jobs.*, next.was`,
      [owner, now + leaseMs, now],
    );
    const r = rows[0];
    if (!r) return undefined;
    const { was, ...record } = r;
    return { ...toJob(record as JobRecord), takenOver: was === 'processing' };
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
    const { sets, values } = jobAssignments(fields, param, 3);
    const { count } = await query(
      this.db.pool,
      `UPDATE jobs SET ${[...sets, 'lease_owner = NULL', 'lease_until = NULL'].join(', ')} WHERE id = $1 AND lease_owner = $2`,
      [jobId, owner, ...values],
    );
    return count > 0;
  }

  async update(id: string, fields: JobFields): Promise<void> {
    const { sets, values } = jobAssignments(fields, param, 2);
    if (!sets.length) return;
    await query(this.db.pool, `UPDATE jobs SET ${sets.join(', ')} WHERE id = $1`, [id, ...values]);
  }

  async activeCounts(): Promise<{ product: Product; state: JobState; count: number }[]> {
    const { rows } = await query<{ product: Product; state: JobState; count: string }>(
      this.db.pool,
      "SELECT product, state, COUNT(*) AS count FROM jobs WHERE state IN ('queued', 'processing') GROUP BY product, state ORDER BY product, state",
    );
    return rows.map((r) => ({ product: r.product, state: r.state, count: Number(r.count) }));
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
