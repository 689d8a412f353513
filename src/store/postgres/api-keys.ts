import type { ApiKeyRepository, ApiKeyRow } from '../../domain/ports.ts';
import { toKey, type ApiKeyRecord } from '../rows.ts';
import { query, type PgDb } from './db.ts';

export class PostgresApiKeys implements ApiKeyRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(k: ApiKeyRow): Promise<void> {
    await query(
      this.db.pool,
      'INSERT INTO api_keys (id, account_id, prefix, last4, digest, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [k.id, k.accountId, k.prefix, k.last4, k.digest, k.createdAt, k.expiresAt, k.revokedAt],
    );
  }

  async byDigest(digest: Buffer): Promise<ApiKeyRow | undefined> {
    const { rows } = await query<ApiKeyRecord>(this.db.pool, 'SELECT * FROM api_keys WHERE digest = $1', [digest]);
    return rows[0] && toKey(rows[0]);
  }

  async byId(id: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await query<ApiKeyRecord>(this.db.pool, 'SELECT * FROM api_keys WHERE id = $1', [id]);
    return rows[0] && toKey(rows[0]);
  }

  async listForAccount(accountId: string): Promise<ApiKeyRow[]> {
    const { rows } = await query<ApiKeyRecord>(this.db.pool, 'SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, seq', [accountId]);
    return rows.map(toKey);
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const { count } = await query(this.db.pool, 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
    return count > 0;
  }
}
