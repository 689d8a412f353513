import type { ClaimedJob, JobRepository, JobRow, JobState, Product } from '../../domain/ports.ts';
import { jobAssignments, jobInsert, toJob, type JobFields, type JobRecord } from '../rows.ts';
import { tx, type Db } from './db.ts';

const SQLITE_CONSTRAINT_UNIQUE = 2067;

const param = () => '?';

export class SqliteJobs implements JobRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async insert(j: JobRow): Promise<void> {
    const { sql, values } = jobInsert(j, param);
    this.db.prepare(sql).run(...values);
  }

  async insertIfFirst(j: JobRow): Promise<boolean> {
    try {
      await this.insert(j);
      return true;
    } catch (err) {
      // the unique index jobs_one_per_session: the session has had a job
      if ((err as { errcode?: number }).errcode === SQLITE_CONSTRAINT_UNIQUE && /jobs\.session_id/.test(String(err))) return false;
      throw err;
    }
  }

  async activeForSession(sessionId: string): Promise<JobRow | undefined> {
    const r = this.db.prepare("SELECT * FROM jobs WHERE session_id = ? AND state IN ('queued', 'processing')").get(sessionId) as JobRecord | undefined;
    return r && toJob(r);
  }

  async byId(id: string): Promise<JobRow | undefined> {
    const r = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRecord | undefined;
    return r && toJob(r);
  }

  async latestForSession(sessionId: string): Promise<JobRow | undefined> {
    const r = this.db.prepare('SELECT * FROM jobs WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').get(sessionId) as JobRecord | undefined;
    return r && toJob(r);
  }

  async forSession(sessionId: string): Promise<JobRow[]> {
    return (this.db.prepare('SELECT * FROM jobs WHERE session_id = ? ORDER BY created_at, rowid').all(sessionId) as unknown as JobRecord[]).map(toJob);
  }

  async claim(owner: string, leaseMs: number, now: number): Promise<ClaimedJob | undefined> {
    // One write transaction (BEGIN IMMEDIATE): another process on the same file waits for it, so
    // no job is given twice. The state IN (...) term lets jobs_claim serve the scan in order.
    return tx(this.db, () => {
      const next = this.db
        .prepare(
          `SELECT id, state FROM jobs WHERE state IN ('queued', 'processing') AND (state = 'queued' OR lease_until < ?)
             ORDER BY created_at, rowid LIMIT 1`,
        )
        .get(now) as { id: string; state: JobState } | undefined;
      if (!next) return undefined;
      const r = this.db
        .prepare(
          `UPDATE jobs SET state = 'processing', lease_owner = ?, lease_until = ?, started_at = ?, attempts = attempts + 1
             WHERE id = ? RETURNING *`,
        )
        .get(owner, now + leaseMs, now, next.id) as unknown as JobRecord;
      return { ...toJob(r), takenOver: next.state === 'processing' };
    });
  }

  async renew(jobId: string, owner: string, leaseMs: number, now: number): Promise<boolean> {
    const r = this.db
      .prepare("UPDATE jobs SET lease_until = ? WHERE id = ? AND state = 'processing' AND lease_owner = ?")
      .run(now + leaseMs, jobId, owner);
    return Number(r.changes) > 0;
  }

  async finish(jobId: string, owner: string, fields: JobFields): Promise<boolean> {
    const { sets, values } = jobAssignments(fields, param);
    const r = this.db
      .prepare(`UPDATE jobs SET ${[...sets, 'lease_owner = NULL', 'lease_until = NULL'].join(', ')} WHERE id = ? AND lease_owner = ?`)
      .run(...values, jobId, owner);
    return Number(r.changes) > 0;
  }

  async update(id: string, fields: JobFields): Promise<void> {
    const { sets, values } = jobAssignments(fields, param);
    if (sets.length) this.db.prepare(`UPDATE jobs SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
  }

  async activeCounts(): Promise<{ product: Product; state: JobState; count: number }[]> {
    const rows = this.db
      .prepare("SELECT product, state, COUNT(*) AS count FROM jobs WHERE state IN ('queued', 'processing') GROUP BY product, state ORDER BY product, state")
      .all() as unknown as { product: Product; state: JobState; count: number }[];
    return rows.map((r) => ({ product: r.product, state: r.state, count: Number(r.count) }));
  }

  async inState(state: JobState): Promise<JobRow[]> {
    return (this.db.prepare('SELECT * FROM jobs WHERE state = ? ORDER BY created_at').all(state) as unknown as JobRecord[]).map(toJob);
  }

  async resultsExpiredBefore(at: number, limit: number): Promise<JobRow[]> {
    return (
      this.db.prepare("SELECT * FROM jobs WHERE results_state = 'available' AND expires_at <= ? ORDER BY expires_at LIMIT ?").all(at, limit) as unknown as JobRecord[]
    ).map(toJob);
  }
}
