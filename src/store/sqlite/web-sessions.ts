import type { MailTokenPurpose, MailTokenRepository, MailTokenRow, WebSessionRepository, WebSessionRow } from '../../domain/ports.ts';
import { toMailToken, toWebSession, type MailTokenRecord, type WebSessionRecord } from '../rows.ts';
import type { Db } from './db.ts';

export class SqliteWebSessions implements WebSessionRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async insert(r: WebSessionRow): Promise<void> {
    this.db
      .prepare('INSERT INTO web_sessions (digest, account_id, created_at, seen_at, expires_at, network, method, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(r.digest, r.accountId, r.createdAt, r.seenAt, r.expiresAt, r.network, r.method, r.keyId);
  }

  async listForAccount(accountId: string): Promise<WebSessionRow[]> {
    return (this.db.prepare('SELECT * FROM web_sessions WHERE account_id = ? ORDER BY created_at DESC, rowid DESC').all(accountId) as unknown as WebSessionRecord[]).map(toWebSession);
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

  async deleteForAccount(accountId: string, keep?: Buffer): Promise<number> {
    if (keep) return Number(this.db.prepare('DELETE FROM web_sessions WHERE account_id = ? AND digest <> ?').run(accountId, keep).changes);
    return Number(this.db.prepare('DELETE FROM web_sessions WHERE account_id = ?').run(accountId).changes);
  }

  async deleteForKey(keyId: string): Promise<number> {
    return Number(this.db.prepare('DELETE FROM web_sessions WHERE key_id = ?').run(keyId).changes);
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

  async deleteForAccount(accountId: string, purpose: MailTokenPurpose): Promise<number> {
    return Number(this.db.prepare('DELETE FROM mail_tokens WHERE account_id = ? AND purpose = ?').run(accountId, purpose).changes);
  }

  async deleteExpired(at: number): Promise<number> {
    return Number(this.db.prepare('DELETE FROM mail_tokens WHERE expires_at <= ?').run(at).changes);
  }
}
