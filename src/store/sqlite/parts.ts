import type { PartIndex, StoredPart } from '../../domain/ports.ts';
import { PART_COLUMNS, toPart, type PartRecord } from '../rows.ts';
import type { Db } from './db.ts';

export class SqlitePartIndex implements PartIndex {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async list(objectId: string): Promise<StoredPart[]> {
    const rows = this.db.prepare(`SELECT ${PART_COLUMNS} FROM blob_parts WHERE object_id = ? ORDER BY no`).all(objectId) as unknown as PartRecord[];
    return rows.map(toPart);
  }

  async add(objectId: string, p: StoredPart): Promise<void> {
    this.db
      .prepare('INSERT INTO blob_parts (object_id, no, bytes, object_key, body, complete, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(objectId, p.no, p.bytes, p.objectKey ?? null, p.body ?? null, p.complete ? 1 : 0, Date.now());
  }

  async complete(objectId: string, no: number, objectKey: string, bytes: number): Promise<boolean> {
    return Number(this.db.prepare('UPDATE blob_parts SET bytes = ?, complete = 1 WHERE object_id = ? AND no = ? AND object_key = ?').run(bytes, objectId, no, objectKey).changes) === 1;
  }

  async withdraw(objectId: string, no: number, objectKey: string): Promise<void> {
    this.db.prepare('UPDATE blob_parts SET complete = 0 WHERE object_id = ? AND no = ? AND object_key = ?').run(objectId, no, objectKey);
  }

  async remove(objectId: string, part?: { no: number; objectKey?: string }): Promise<void> {
    if (!part) this.db.prepare('DELETE FROM blob_parts WHERE object_id = ?').run(objectId);
    else if (part.objectKey === undefined) this.db.prepare('DELETE FROM blob_parts WHERE object_id = ? AND no = ?').run(objectId, part.no);
    else this.db.prepare('DELETE FROM blob_parts WHERE object_id = ? AND no = ? AND object_key = ?').run(objectId, part.no, part.objectKey);
  }
}
