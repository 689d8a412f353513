import type { SessionRepository, SessionRow, SessionType } from '../../domain/ports.ts';
import type { Db } from './db.ts';

interface Row {
  id: string;
  account_id: string;
  type: string;
  created_at: number;
  expires_at: number;
}

const toSession = (r: Row): SessionRow => ({
  id: r.id,
  accountId: r.account_id,
  type: r.type as SessionType,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

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
    const r = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Row | undefined;
    return r && toSession(r);
  }

  async expiredBefore(at: number, limit: number): Promise<SessionRow[]> {
    return (this.db.prepare('SELECT * FROM sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ?').all(at, limit) as unknown as Row[]).map(toSession);
  }

  async end(id: string, at: number): Promise<void> {
    this.db.prepare('UPDATE sessions SET expires_at = ? WHERE id = ? AND expires_at > ?').run(at, id, at);
  }

  async delete(id: string): Promise<void> {
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }
}
