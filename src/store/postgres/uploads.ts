import type { UploadRepository, UploadRow, UploadState, UploadVia } from '../../domain/ports.ts';
import { toUpload, type UploadRecord } from '../rows.ts';
import { query, type PgDb } from './db.ts';

export class PostgresUploads implements UploadRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(u: UploadRow): Promise<void> {
    await query(
      this.db.pool,
      `INSERT INTO uploads (id, account_id, session_id, via, step, size, sealed, client_ref, state, created_at, expires_at, completed_at, ended_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [u.id, u.accountId, u.sessionId, u.via, u.step, u.size, u.sealed, u.clientRef, u.state, u.createdAt, u.expiresAt, u.completedAt, u.endedAt],
    );
  }

  async byId(id: string): Promise<UploadRow | undefined> {
    const { rows } = await query<UploadRecord>(this.db.pool, 'SELECT * FROM uploads WHERE id = $1', [id]);
    return rows[0] && toUpload(rows[0]);
  }

  async byClientRef(sessionId: string, clientRef: Buffer): Promise<UploadRow | undefined> {
    const { rows } = await query<UploadRecord>(this.db.pool, 'SELECT * FROM uploads WHERE session_id = $1 AND client_ref = $2', [sessionId, clientRef]);
    return rows[0] && toUpload(rows[0]);
  }

  async liveInSession(sessionId: string): Promise<UploadRow[]> {
    const { rows } = await query<UploadRecord>(
      this.db.pool,
      "SELECT * FROM uploads WHERE session_id = $1 AND state IN ('uploading', 'completed') ORDER BY created_at, seq",
      [sessionId],
    );
    return rows.map(toUpload);
  }

  async attach(id: string, sessionId: string, step: number): Promise<boolean> {
    const { count } = await query(this.db.pool, 'UPDATE uploads SET session_id = $1, step = $2 WHERE id = $3 AND session_id IS NULL', [sessionId, step, id]);
    return count === 1;
  }

  async setState(id: string, state: UploadState, at: number): Promise<void> {
    const column = state === 'completed' ? 'completed_at' : state === 'uploading' ? undefined : 'ended_at';
    if (column) await query(this.db.pool, `UPDATE uploads SET state = $1, ${column} = $2 WHERE id = $3`, [state, at, id]);
    else await query(this.db.pool, 'UPDATE uploads SET state = $1 WHERE id = $2', [state, id]);
  }

  async complete(id: string, size: number, at: number): Promise<void> {
    await query(this.db.pool, "UPDATE uploads SET size = $1, state = 'completed', completed_at = $2 WHERE id = $3", [size, at, id]);
  }

  async byViaState(via: UploadVia, state: UploadState): Promise<UploadRow[]> {
    const { rows } = await query<UploadRecord>(this.db.pool, 'SELECT * FROM uploads WHERE via = $1 AND state = $2 ORDER BY created_at, seq', [via, state]);
    return rows.map(toUpload);
  }

  async expiredBefore(at: number, limit: number): Promise<UploadRow[]> {
    const { rows } = await query<UploadRecord>(
      this.db.pool,
      "SELECT * FROM uploads WHERE state IN ('uploading', 'completed') AND expires_at <= $1 ORDER BY expires_at LIMIT $2",
      [at, limit],
    );
    return rows.map(toUpload);
  }

  async delete(id: string): Promise<void> {
    await query(this.db.pool, 'DELETE FROM uploads WHERE id = $1', [id]);
  }
}
