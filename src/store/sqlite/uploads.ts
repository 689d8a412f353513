import type { UploadRepository, UploadRow, UploadState, UploadVia } from '../../domain/ports.ts';
import type { Db } from './db.ts';

interface Row {
  id: string;
  account_id: string;
  session_id: string | null;
  via: string;
  step: number;
  size: number;
  sealed: Uint8Array;
  client_ref: Uint8Array | null;
  state: string;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
  ended_at: number | null;
}

const toUpload = (r: Row): UploadRow => ({
  id: r.id,
  accountId: r.account_id,
  sessionId: r.session_id,
  via: r.via as UploadVia,
  step: r.step,
  size: r.size,
  sealed: Buffer.from(r.sealed),
  clientRef: r.client_ref ? Buffer.from(r.client_ref) : null,
  state: r.state as UploadState,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  completedAt: r.completed_at,
  endedAt: r.ended_at,
});

export class SqliteUploads implements UploadRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async insert(u: UploadRow): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO uploads (id, account_id, session_id, via, step, size, sealed, client_ref, state, created_at, expires_at, completed_at, ended_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(u.id, u.accountId, u.sessionId, u.via, u.step, u.size, u.sealed, u.clientRef, u.state, u.createdAt, u.expiresAt, u.completedAt, u.endedAt);
  }

  async byId(id: string): Promise<UploadRow | undefined> {
    const r = this.db.prepare('SELECT * FROM uploads WHERE id = ?').get(id) as Row | undefined;
    return r && toUpload(r);
  }

  async byClientRef(sessionId: string, clientRef: Buffer): Promise<UploadRow | undefined> {
    const r = this.db.prepare('SELECT * FROM uploads WHERE session_id = ? AND client_ref = ?').get(sessionId, clientRef) as Row | undefined;
    return r && toUpload(r);
  }

  async liveInSession(sessionId: string): Promise<UploadRow[]> {
    return (
      this.db
        .prepare("SELECT * FROM uploads WHERE session_id = ? AND state IN ('uploading', 'completed') ORDER BY created_at, rowid")
        .all(sessionId) as unknown as Row[]
    ).map(toUpload);
  }

  async attach(id: string, sessionId: string, step: number): Promise<void> {
    this.db.prepare('UPDATE uploads SET session_id = ?, step = ? WHERE id = ?').run(sessionId, step, id);
  }

  async setState(id: string, state: UploadState, at: number): Promise<void> {
    const column = state === 'completed' ? 'completed_at' : state === 'uploading' ? undefined : 'ended_at';
    if (column) this.db.prepare(`UPDATE uploads SET state = ?, ${column} = ? WHERE id = ?`).run(state, at, id);
    else this.db.prepare('UPDATE uploads SET state = ? WHERE id = ?').run(state, id);
  }

  async complete(id: string, size: number, at: number): Promise<void> {
    this.db.prepare("UPDATE uploads SET size = ?, state = 'completed', completed_at = ? WHERE id = ?").run(size, at, id);
  }

  async byViaState(via: UploadVia, state: UploadState): Promise<UploadRow[]> {
    return (this.db.prepare('SELECT * FROM uploads WHERE via = ? AND state = ? ORDER BY created_at, rowid').all(via, state) as unknown as Row[]).map(toUpload);
  }

  async expiredBefore(at: number, limit: number): Promise<UploadRow[]> {
    return (
      this.db
        .prepare("SELECT * FROM uploads WHERE state IN ('uploading', 'completed') AND expires_at <= ? ORDER BY expires_at LIMIT ?")
        .all(at, limit) as unknown as Row[]
    ).map(toUpload);
  }

  async delete(id: string): Promise<void> {
    this.db.prepare('DELETE FROM uploads WHERE id = ?').run(id);
  }
}
