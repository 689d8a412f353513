import type { SessionRepository, SessionRow } from '../../domain/ports.ts';
import { toSession, type SessionRecord } from '../rows.ts';
import { query, type PgDb } from './db.ts';

export class PostgresSessions implements SessionRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(s: SessionRow): Promise<void> {
    await query(this.db.pool, 'INSERT INTO sessions (id, account_id, type, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      s.id,
      s.accountId,
      s.type,
      s.createdAt,
      s.expiresAt,
    ]);
  }

  async byId(id: string): Promise<SessionRow | undefined> {
    const { rows } = await query<SessionRecord>(this.db.pool, 'SELECT * FROM sessions WHERE id = $1', [id]);
    return rows[0] && toSession(rows[0]);
  }

  async expiredBefore(at: number, limit: number): Promise<SessionRow[]> {
    // the longest expired first, along the sessions_expiry index (as SQLite's plan reads them)
    const { rows } = await query<SessionRecord>(this.db.pool, 'SELECT * FROM sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2', [at, limit]);
    return rows.map(toSession);
  }

  async end(id: string, at: number): Promise<void> {
    await query(this.db.pool, 'UPDATE sessions SET expires_at = $1 WHERE id = $2 AND expires_at > $1', [at, id]);
  }

  async delete(id: string): Promise<void> {
    await query(this.db.pool, 'DELETE FROM sessions WHERE id = $1', [id]);
  }
}
