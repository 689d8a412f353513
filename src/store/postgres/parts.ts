import type { PartIndex, StoredPart } from '../../domain/ports.ts';
import { query, type PgDb } from './db.ts';

interface Row {
  no: number;
  bytes: number;
  object_key: string | null;
  body: Buffer | null;
  complete: boolean;
}

export class PostgresPartIndex implements PartIndex {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async list(objectId: string): Promise<StoredPart[]> {
    const { rows } = await query<Row>(this.db.pool, 'SELECT no, bytes, object_key, body, complete FROM blob_parts WHERE object_id = $1 ORDER BY no', [objectId]);
    return rows.map((r) => ({
      no: r.no,
      bytes: r.bytes,
      ...(r.object_key !== null ? { objectKey: r.object_key } : {}),
      ...(r.body !== null ? { body: r.body } : {}),
      complete: r.complete,
    }));
  }

  async add(objectId: string, p: StoredPart): Promise<void> {
    await query(this.db.pool, 'INSERT INTO blob_parts (object_id, no, bytes, object_key, body, complete, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      objectId,
      p.no,
      p.bytes,
      p.objectKey ?? null,
      p.body ?? null,
      p.complete,
      Date.now(),
    ]);
  }

  async complete(objectId: string, no: number, bytes: number): Promise<void> {
    await query(this.db.pool, 'UPDATE blob_parts SET bytes = $1, complete = TRUE WHERE object_id = $2 AND no = $3', [bytes, objectId, no]);
  }

  async withdraw(objectId: string, no: number): Promise<void> {
    await query(this.db.pool, 'UPDATE blob_parts SET complete = FALSE WHERE object_id = $1 AND no = $2', [objectId, no]);
  }

  async remove(objectId: string, no?: number): Promise<void> {
    if (no === undefined) await query(this.db.pool, 'DELETE FROM blob_parts WHERE object_id = $1', [objectId]);
    else await query(this.db.pool, 'DELETE FROM blob_parts WHERE object_id = $1 AND no = $2', [objectId, no]);
  }
}
