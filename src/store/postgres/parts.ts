import type { PartIndex, StoredPart } from '../../domain/ports.ts';
import { PART_COLUMNS, toPart, type PartRecord } from '../rows.ts';
import { query, type PgDb } from './db.ts';

export class PostgresPartIndex implements PartIndex {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async list(objectId: string): Promise<StoredPart[]> {
    const { rows } = await query<PartRecord>(this.db.pool, `SELECT ${PART_COLUMNS} FROM blob_parts WHERE object_id = $1 ORDER BY no`, [objectId]);
    return rows.map(toPart);
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

  async complete(objectId: string, no: number, objectKey: string, bytes: number): Promise<boolean> {
    return (await query(this.db.pool, 'UPDATE blob_parts SET bytes = $1, complete = TRUE WHERE object_id = $2 AND no = $3 AND object_key = $4', [bytes, objectId, no, objectKey])).count === 1;
  }

  async withdraw(objectId: string, no: number, objectKey: string): Promise<void> {
    await query(this.db.pool, 'UPDATE blob_parts SET complete = FALSE WHERE object_id = $1 AND no = $2 AND object_key = $3', [objectId, no, objectKey]);
  }

  async remove(objectId: string, part?: { no: number; objectKey?: string }): Promise<void> {
    if (!part) await query(this.db.pool, 'DELETE FROM blob_parts WHERE object_id = $1', [objectId]);
    else if (part.objectKey === undefined) await query(this.db.pool, 'DELETE FROM blob_parts WHERE object_id = $1 AND no = $2', [objectId, part.no]);
    else await query(this.db.pool, 'DELETE FROM blob_parts WHERE object_id = $1 AND no = $2 AND object_key = $3', [objectId, part.no, part.objectKey]);
  }
}
