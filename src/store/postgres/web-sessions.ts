import type { MailTokenPurpose, MailTokenRepository, MailTokenRow, WebSessionRepository, WebSessionRow } from '../../domain/ports.ts';
import { toMailToken, toWebSession, type MailTokenRecord, type WebSessionRecord } from '../rows.ts';
import { query, type PgDb } from './db.ts';

export class PostgresWebSessions implements WebSessionRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(r: WebSessionRow): Promise<void> {
    await query(
      this.db.pool,
      'INSERT INTO web_sessions (digest, account_id, created_at, seen_at, expires_at, network, method, key_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [r.digest, r.accountId, r.createdAt, r.seenAt, r.expiresAt, r.network, r.method, r.keyId],
    );
  }

  async listForAccount(accountId: string): Promise<WebSessionRow[]> {
    // digest breaks ties: there is no insertion order to fall back on, and the order must be one
    const { rows } = await query<WebSessionRecord>(this.db.pool, 'SELECT * FROM web_sessions WHERE account_id = $1 ORDER BY created_at DESC, digest', [accountId]);
    return rows.map(toWebSession);
  }

  async byDigest(digest: Buffer): Promise<WebSessionRow | undefined> {
    const { rows } = await query<WebSessionRecord>(this.db.pool, 'SELECT * FROM web_sessions WHERE digest = $1', [digest]);
    return rows[0] && toWebSession(rows[0]);
  }

  async touch(digest: Buffer, seenAt: number, expiresAt: number): Promise<void> {
    await query(this.db.pool, 'UPDATE web_sessions SET seen_at = $1, expires_at = $2 WHERE digest = $3', [seenAt, expiresAt, digest]);
  }

  async delete(digest: Buffer): Promise<void> {
    await query(this.db.pool, 'DELETE FROM web_sessions WHERE digest = $1', [digest]);
  }

  async deleteForAccount(accountId: string, keep?: Buffer): Promise<number> {
    if (keep) return (await query(this.db.pool, 'DELETE FROM web_sessions WHERE account_id = $1 AND digest <> $2', [accountId, keep])).count;
    return (await query(this.db.pool, 'DELETE FROM web_sessions WHERE account_id = $1', [accountId])).count;
  }

  async deleteForKey(keyId: string): Promise<number> {
    return (await query(this.db.pool, 'DELETE FROM web_sessions WHERE key_id = $1', [keyId])).count;
  }

  async deleteExpired(at: number): Promise<number> {
    return (await query(this.db.pool, 'DELETE FROM web_sessions WHERE expires_at <= $1', [at])).count;
  }
}

export class PostgresMailTokens implements MailTokenRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(r: MailTokenRow): Promise<void> {
    await query(this.db.pool, 'INSERT INTO mail_tokens (digest, account_id, purpose, created_at, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      r.digest,
      r.accountId,
      r.purpose,
      r.createdAt,
      r.expiresAt,
      r.usedAt,
    ]);
  }

  async byDigest(digest: Buffer): Promise<MailTokenRow | undefined> {
    const { rows } = await query<MailTokenRecord>(this.db.pool, 'SELECT * FROM mail_tokens WHERE digest = $1', [digest]);
    return rows[0] && toMailToken(rows[0]);
  }

  async use(digest: Buffer, at: number): Promise<boolean> {
    // one statement: of two requests racing with the same link, exactly one sees its row change
    return (await query(this.db.pool, 'UPDATE mail_tokens SET used_at = $1 WHERE digest = $2 AND used_at IS NULL', [at, digest])).count === 1;
  }

  async deleteForAccount(accountId: string, purpose: MailTokenPurpose): Promise<number> {
    return (await query(this.db.pool, 'DELETE FROM mail_tokens WHERE account_id = $1 AND purpose = $2', [accountId, purpose])).count;
  }

  async deleteExpired(at: number): Promise<number> {
    return (await query(this.db.pool, 'DELETE FROM mail_tokens WHERE expires_at <= $1', [at])).count;
  }
}
