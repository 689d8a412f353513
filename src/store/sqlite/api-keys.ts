import type { ApiKeyRepository, ApiKeyRow } from '../../domain/ports.ts';
import { toKey, type ApiKeyRecord } from '../rows.ts';
import type { Db } from './db.ts';

export class SqliteApiKeys implements ApiKeyRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async insert(k: ApiKeyRow): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO api_keys (id, account_id, prefix, last4, digest, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(k.id, k.accountId, k.prefix, k.last4, k.digest, k.createdAt, k.expiresAt, k.revokedAt);
  }

  async byDigest(digest: Buffer): Promise<ApiKeyRow | undefined> {
    const r = this.db.prepare('SELECT * FROM api_keys WHERE digest = ?').get(digest) as ApiKeyRecord | undefined;
    return r && toKey(r);
  }

  async byId(id: string): Promise<ApiKeyRow | undefined> {
    const r = this.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as ApiKeyRecord | undefined;
    return r && toKey(r);
  }

  async listForAccount(accountId: string): Promise<ApiKeyRow[]> {
    const rows = this.db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at').all(accountId) as unknown as ApiKeyRecord[];
    return rows.map(toKey);
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const r = this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id);
    return Number(r.changes) > 0;
  }
}
