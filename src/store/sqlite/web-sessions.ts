import type { MailTokenRepository, MailTokenRow, WebSessionRepository, WebSessionRow } from '../../domain/ports.ts';
import { toMailToken, toWebSession, type MailTokenRecord, type WebSessionRecord } from '../rows.ts';
import type { Db } from './db.ts';

export class SqliteWebSessions implements WebSessionRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async insert(r: WebSessionRow): Promise<void> {
    this.db
      .prepare('INSERT INTO web_sessions (digest, account_id, created_at, seen_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(r.digest, r.accountId, r.createdAt, r.seenAt, r.expiresAt);
  }

  async byDigest(digest: Buffer): Promise<WebSessionRow | undefined> {
    const r = this.db.prepare('SELECT * FROM web_sessions WHERE digest = ?').get(digest) as WebSessionRecord | undefined;
    return r && toWebSession(r);
  }

  async touch(digest: Buffer, seenAt: number, expiresAt: number): Promise<void> {
    this.db.prepare('UPDATE web_sessions SET seen_at = ?, expires_at = ? WHERE digest = ?').run(seenAt, expiresAt, digest);
  }

  async delete(digest: Buffer): Promise<void> {
    this.db.prepare('DELETE FROM web_sessions WHERE digest = ?').run(digest);
  }

  async deleteForAccount(accountId: string): Promise<number> {
    return Number(this.db.prepare('DELETE FROM web_sessions WHERE account_id = ?').run(accountId).changes);
  }

  async deleteExpired(at: number): Promise<number> {
    return Number(this.db.prepare('DELETE FROM web_sessions WHERE expires_at <= ?').run(at).changes);
  }
}

export class SqliteMailTokens implements MailTokenRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async insert(r: MailTokenRow): Promise<void> {
    this.db
      .prepare('INSERT INTO mail_tokens (digest, account_id, purpose, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(r.digest, r.accountId, r.purpose, r.createdAt, r.expiresAt, r.usedAt);
  }

  async byDigest(digest: Buffer): Promise<MailTokenRow | undefined> {
    const r = this.db.prepare('SELECT * FROM mail_tokens WHERE digest = ?').get(digest) as MailTokenRecord | undefined;
    return r && toMailToken(r);
  }

  async use(digest: Buffer, at: number): Promise<boolean> {
    return Number(this.db.prepare('UPDATE mail_tokens SET used_at = ? WHERE digest = ? AND used_at IS NULL').run(at, digest).changes) === 1;
  }

  async deleteExpired(at: number): Promise<number> {
    return Number(this.db.prepare('DELETE FROM mail_tokens WHERE expires_at <= ?').run(at).changes);
  }
}
