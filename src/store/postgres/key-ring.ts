import type { KeyRing } from '../../domain/ports.ts';
import { query, type PgDb } from './db.ts';

export class PostgresKeyRing implements KeyRing {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async put(objectId: string, wrapped: Buffer): Promise<void> {
    await query(this.db.pool, 'INSERT INTO blob_keys (object_id, wrapped, created_at) VALUES ($1, $2, $3)', [objectId, wrapped, Date.now()]);
  }

  async get(objectId: string): Promise<Buffer | undefined> {
    const { rows } = await query<{ wrapped: Buffer }>(this.db.pool, 'SELECT wrapped FROM blob_keys WHERE object_id = $1', [objectId]);
    return rows[0]?.wrapped;
  }

  async delete(objectId: string): Promise<boolean> {
    return (await query(this.db.pool, 'DELETE FROM blob_keys WHERE object_id = $1', [objectId])).count > 0;
  }
}
