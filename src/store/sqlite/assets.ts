import type { AssetRepository, AssetRow } from '../../domain/ports.ts';
import { toAsset, type AssetRecord } from '../rows.ts';
import type { Db } from './db.ts';

export class SqliteAssets implements AssetRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async insert(a: AssetRow): Promise<void> {
    this.db
      .prepare('INSERT INTO assets (id, job_id, account_id, category, position, sealed, mime_type, size, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(a.id, a.jobId, a.accountId, a.category, a.position, a.sealed, a.mimeType, a.size, a.state, a.createdAt);
  }

  async byId(id: string): Promise<AssetRow | undefined> {
    const r = this.db.prepare('SELECT * FROM assets WHERE id = ?').get(id) as AssetRecord | undefined;
    return r && toAsset(r);
  }

  async forJob(jobId: string): Promise<AssetRow[]> {
    return (this.db.prepare('SELECT * FROM assets WHERE job_id = ? ORDER BY position, rowid').all(jobId) as unknown as AssetRecord[]).map(toAsset);
  }

  async setState(id: string, state: AssetRow['state']): Promise<void> {
    this.db.prepare('UPDATE assets SET state = ? WHERE id = ?').run(state, id);
  }

  async delete(id: string): Promise<void> {
    this.db.prepare('DELETE FROM assets WHERE id = ?').run(id);
  }
}
