import type { KeyRing } from '../../domain/ports.ts';
import type { Db } from './db.ts';

export class SqliteKeyRing implements KeyRing {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async put(objectId: string, wrapped: Buffer): Promise<void> {
    this.db.prepare('INSERT INTO blob_keys (object_id, wrapped, created_at) VALUES (?, ?, ?)').run(objectId, wrapped, Date.now());
  }

  async get(objectId: string): Promise<Buffer | undefined> {
    const r = this.db.prepare('SELECT wrapped FROM blob_keys WHERE object_id = ?').get(objectId) as { wrapped: Uint8Array } | undefined;
    return r && Buffer.from(r.wrapped);
  }

  async delete(objectId: string): Promise<boolean> {
    return Number(this.db.prepare('DELETE FROM blob_keys WHERE object_id = ?').run(objectId).changes) > 0;
  }
}
