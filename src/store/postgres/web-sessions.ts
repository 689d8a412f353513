import type { MailTokenRepository, MailTokenRow, WebSessionRepository, WebSessionRow } from '../../domain/ports.ts';
import { toMailToken, toWebSession, type MailTokenRecord, type WebSessionRecord } from '../rows.ts';
import { query, type PgDb } from './db.ts';

export class PostgresWebSessions implements WebSessionRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async insert(r: WebSessionRow): Promise<void> {
    await query(this.db.pool, 'INSERT INTO web_sessions (digest, account_id, created_at, seen_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      r.digest,
      r.accountId,
      r.createdAt,
      r.seenAt,
      r.expiresAt,
    ]);
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

  async deleteForAccount(accountId: string): Promise<number> {
    return (await query(this.db.pool, 'DELETE FROM web_sessions WHERE account_id = $1', [accountId])).count;
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

  async deleteExpired(at: number): Promise<number> {
    return (await query(this.db.pool, 'DELETE FROM mail_tokens WHERE expires_at <= $1', [at])).count;
  }
}
