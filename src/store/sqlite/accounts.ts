import type { Account, AccountRepository } from '../../domain/ports.ts';
import type { AccountAddresses } from '../account-addresses.ts';
import { ACCOUNT_COLUMNS, toAccount, type AccountRecord } from '../rows.ts';
import { tx, type Db } from './db.ts';

/** Accounts; the address is stored as its HMAC and sealed (store/account-addresses.ts), never as text. */
export class SqliteAccounts implements AccountRepository {
  private readonly db: Db;
  readonly #addresses: AccountAddresses;
  constructor(db: Db, addresses: AccountAddresses) {
    this.db = db;
    this.#addresses = addresses;
  }

  async insert(a: Account): Promise<void> {
    this.db
      .prepare('INSERT INTO accounts (id, email_lookup, email_sealed, verified_at, deactivated_at, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(a.id, this.#addresses.lookup(a.email), this.#addresses.seal(a.id, a.email), a.verifiedAt, a.deactivatedAt, a.createdAt);
  }

  async byEmail(email: string): Promise<Account | undefined> {
    const r = this.db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email_lookup = ?`).get(this.#addresses.lookup(email)) as AccountRecord | undefined;
    return r && toAccount(r, this.#addresses);
  }

  async byId(id: string): Promise<Account | undefined> {
    const r = this.db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`).get(id) as AccountRecord | undefined;
    return r && toAccount(r, this.#addresses);
  }

  async list(after: string, limit: number): Promise<Account[]> {
    const rows = this.db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id > ? ORDER BY id LIMIT ?`).all(after, limit) as unknown as AccountRecord[];
    return rows.map((r) => toAccount(r, this.#addresses));
  }

  async update(id: string, fields: Partial<Pick<Account, 'verifiedAt' | 'deactivatedAt'>>): Promise<void> {
    if ('verifiedAt' in fields) this.db.prepare('UPDATE accounts SET verified_at = ? WHERE id = ?').run(fields.verifiedAt ?? null, id);
    if ('deactivatedAt' in fields)
      this.db.prepare('UPDATE accounts SET deactivated_at = ? WHERE id = ?').run(fields.deactivatedAt ?? null, id);
  }

  async passwordHash(id: string): Promise<string | undefined> {
    const r = this.db.prepare('SELECT password_hash FROM accounts WHERE id = ?').get(id) as { password_hash: string | null } | undefined;
    return r?.password_hash ?? undefined;
  }

  async setPasswordHash(id: string, hash: string | null): Promise<void> {
    this.db.prepare('UPDATE accounts SET password_hash = ? WHERE id = ?').run(hash, id);
  }

  async deleteUnverified(createdBefore: number, id?: string): Promise<number> {
    // the accounts to go, named once: unverified, old enough, no upload sessions hang from them
    const which = `SELECT id FROM accounts a WHERE a.verified_at IS NULL AND a.created_at <= ? ${id === undefined ? '' : 'AND a.id = ?'}
      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.account_id = a.id)`;
    const args = id === undefined ? [createdBefore] : [createdBefore, id];
    return tx(this.db, () => {
      for (const table of ['web_sessions', 'mail_tokens', 'api_keys']) this.db.prepare(`DELETE FROM ${table} WHERE account_id IN (${which})`).run(...args);
      return Number(this.db.prepare(`DELETE FROM accounts WHERE id IN (${which})`).run(...args).changes);
    });
  }
}
