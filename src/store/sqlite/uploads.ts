import type { UploadRepository, UploadRow, UploadState, UploadVia } from '../repositories.ts';
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

  insert(u: UploadRow): void {
    this.db
      .prepare(
        `INSERT INTO uploads (id, account_id, session_id, via, step, size, sealed, client_ref, state, created_at, expires_at, completed_at, ended_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(u.id, u.accountId, u.sessionId, u.via, u.step, u.size, u.sealed, u.clientRef, u.state, u.createdAt, u.expiresAt, u.completedAt, u.endedAt);
  }

  byId(id: string): UploadRow | undefined {
    const r = this.db.prepare('SELECT * FROM uploads WHERE id = ?').get(id) as Row | undefined;
    return r && toUpload(r);
  }

  byClientRef(sessionId: string, clientRef: Buffer): UploadRow | undefined {
    const r = this.db.prepare('SELECT * FROM uploads WHERE session_id = ? AND client_ref = ?').get(sessionId, clientRef) as Row | undefined;
    return r && toUpload(r);
  }

  liveInSession(sessionId: string): UploadRow[] {
    return (
      this.db
        .prepare("SELECT * FROM uploads WHERE session_id = ? AND state IN ('uploading', 'completed') ORDER BY created_at, rowid")
        .all(sessionId) as unknown as Row[]
    ).map(toUpload);
  }

  attach(id: string, sessionId: string, step: number): void {
    this.db.prepare('UPDATE uploads SET session_id = ?, step = ? WHERE id = ?').run(sessionId, step, id);
  }

  setState(id: string, state: UploadState, at: number): void {
    const column = state === 'completed' ? 'completed_at' : state === 'uploading' ? undefined : 'ended_at';
    if (column) this.db.prepare(`UPDATE uploads SET state = ?, ${column} = ? WHERE id = ?`).run(state, at, id);
    else this.db.prepare('UPDATE uploads SET state = ? WHERE id = ?').run(state, id);
  }

  complete(id: string, size: number, at: number): void {
    this.db.prepare("UPDATE uploads SET size = ?, state = 'completed', completed_at = ? WHERE id = ?").run(size, at, id);
  }

  byViaState(via: UploadVia, state: UploadState): UploadRow[] {
    return (this.db.prepare('SELECT * FROM uploads WHERE via = ? AND state = ?').all(via, state) as unknown as Row[]).map(toUpload);
  }

  expiredBefore(at: number, limit: number): UploadRow[] {
    return (
      this.db
        .prepare("SELECT * FROM uploads WHERE state IN ('uploading', 'completed') AND expires_at <= ? LIMIT ?")
        .all(at, limit) as unknown as Row[]
    ).map(toUpload);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM uploads WHERE id = ?').run(id);
  }
}
