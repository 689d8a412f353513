import type { UploadRepository, UploadRow, UploadState, UploadVia } from '../../domain/ports.ts';
import { toUpload, type UploadRecord } from '../rows.ts';
import type { Db } from './db.ts';

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
    const r = this.db.prepare('SELECT * FROM uploads WHERE id = ?').get(id) as UploadRecord | undefined;
    return r && toUpload(r);
  }

  async byClientRef(sessionId: string, clientRef: Buffer): Promise<UploadRow | undefined> {
    const r = this.db.prepare('SELECT * FROM uploads WHERE session_id = ? AND client_ref = ?').get(sessionId, clientRef) as UploadRecord | undefined;
    return r && toUpload(r);
  }

  async liveInSession(sessionId: string): Promise<UploadRow[]> {
    return (
      this.db
        .prepare("SELECT * FROM uploads WHERE session_id = ? AND state IN ('uploading', 'completed') ORDER BY created_at, rowid")
        .all(sessionId) as unknown as UploadRecord[]
    ).map(toUpload);
  }

  async attach(id: string, sessionId: string, step: number): Promise<boolean> {
    return Number(this.db.prepare('UPDATE uploads SET session_id = ?, step = ? WHERE id = ? AND session_id IS NULL').run(sessionId, step, id).changes) > 0;
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
    return (this.db.prepare('SELECT * FROM uploads WHERE via = ? AND state = ? ORDER BY created_at, rowid').all(via, state) as unknown as UploadRecord[]).map(toUpload);
  }

  async expiredBefore(at: number, limit: number): Promise<UploadRow[]> {
    return (
      this.db
        .prepare("SELECT * FROM uploads WHERE state IN ('uploading', 'completed') AND expires_at <= ? ORDER BY expires_at LIMIT ?")
        .all(at, limit) as unknown as UploadRecord[]
    ).map(toUpload);
  }

  async delete(id: string): Promise<void> {
    this.db.prepare('DELETE FROM uploads WHERE id = ?').run(id);
  }
}
