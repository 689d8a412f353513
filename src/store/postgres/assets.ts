import type { AssetRepository, AssetRow } from '../../domain/ports.ts';
import { toAsset, type AssetRecord } from '../rows.ts';
import { query, type PgDb } from './db.ts';

export class PostgresAssets implements AssetRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(a: AssetRow): Promise<void> {
    await query(
      this.db.pool,
      'INSERT INTO assets (id, job_id, account_id, category, position, sealed, mime_type, size, state, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [a.id, a.jobId, a.accountId, a.category, a.position, a.sealed, a.mimeType, a.size, a.state, a.createdAt],
    );
  }

  async byId(id: string): Promise<AssetRow | undefined> {
    const { rows } = await query<AssetRecord>(this.db.pool, 'SELECT * FROM assets WHERE id = $1', [id]);
    return rows[0] && toAsset(rows[0]);
  }

  async forJob(jobId: string): Promise<AssetRow[]> {
    const { rows } = await query<AssetRecord>(this.db.pool, 'SELECT * FROM assets WHERE job_id = $1 ORDER BY position, seq', [jobId]);
    return rows.map(toAsset);
  }

  async setState(id: string, state: AssetRow['state']): Promise<void> {
    await query(this.db.pool, 'UPDATE assets SET state = $1 WHERE id = $2', [state, id]);
  }

  async delete(id: string): Promise<void> {
    await query(this.db.pool, 'DELETE FROM assets WHERE id = $1', [id]);
  }
}
