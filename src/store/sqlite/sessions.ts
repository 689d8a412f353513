import type { SessionRepository, SessionRow } from '../../domain/ports.ts';
import { toSession, type SessionRecord } from '../rows.ts';
import type { Db } from './db.ts';

export class SqliteSessions implements SessionRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async insert(s: SessionRow): Promise<void> {
    this.db
      .prepare('INSERT INTO sessions (id, account_id, type, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(s.id, s.accountId, s.type, s.createdAt, s.expiresAt);
  }

  async byId(id: string): Promise<SessionRow | undefined> {
    const r = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRecord | undefined;
    return r && toSession(r);
  }

  async expiredBefore(at: number, limit: number): Promise<SessionRow[]> {
    return (this.db.prepare('SELECT * FROM sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ?').all(at, limit) as unknown as SessionRecord[]).map(toSession);
  }

  async end(id: string, at: number): Promise<void> {
    this.db.prepare('UPDATE sessions SET expires_at = ? WHERE id = ? AND expires_at > ?').run(at, id, at);
  }

  async delete(id: string): Promise<void> {
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }
}
