import type { Account, AccountRepository } from '../../domain/ports.ts';
import type { AccountAddresses } from '../account-addresses.ts';
import { ACCOUNT_COLUMNS, toAccount, type AccountRecord } from '../rows.ts';
import { query, type Param, type PgDb } from './db.ts';

/** Accounts; the address is stored as its HMAC and sealed (store/account-addresses.ts), never as text. */
export class PostgresAccounts implements AccountRepository {
  private readonly db: PgDb;
  readonly #addresses: AccountAddresses;
  constructor(db: PgDb, addresses: AccountAddresses) {
    this.db = db;
    this.#addresses = addresses;
  }

  async insert(a: Account): Promise<void> {
    await query(this.db.pool, 'INSERT INTO accounts (id, email_lookup, email_sealed, verified_at, deactivated_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      a.id,
      this.#addresses.lookup(a.email),
      this.#addresses.seal(a.id, a.email),
      a.verifiedAt,
      a.deactivatedAt,
      a.createdAt,
    ]);
  }

  async byEmail(email: string): Promise<Account | undefined> {
    const { rows } = await query<AccountRecord>(this.db.pool, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email_lookup = $1`, [this.#addresses.lookup(email)]);
    return rows[0] && toAccount(rows[0], this.#addresses);
  }

  async byId(id: string): Promise<Account | undefined> {
    const { rows } = await query<AccountRecord>(this.db.pool, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]);
    return rows[0] && toAccount(rows[0], this.#addresses);
  }

  async list(after: string, limit: number): Promise<Account[]> {
    const { rows } = await query<AccountRecord>(this.db.pool, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id > $1 ORDER BY id LIMIT $2`, [after, limit]);
    return rows.map((r) => toAccount(r, this.#addresses));
  }

  async update(id: string, fields: Partial<Pick<Account, 'verifiedAt' | 'deactivatedAt'>>): Promise<void> {
    const sets: string[] = [];
    const values: Param[] = [];
    if ('verifiedAt' in fields) {
      values.push(fields.verifiedAt ?? null);
      sets.push(`verified_at = $${values.length}`);
    }
    if ('deactivatedAt' in fields) {
      values.push(fields.deactivatedAt ?? null);
      sets.push(`deactivated_at = $${values.length}`);
    }
    if (!sets.length) return;
    values.push(id);
    await query(this.db.pool, `UPDATE accounts SET ${sets.join(', ')} WHERE id = $${values.length}`, values);
  }

  async passwordHash(id: string): Promise<string | undefined> {
    const { rows } = await query<{ password_hash: string | null }>(this.db.pool, 'SELECT password_hash FROM accounts WHERE id = $1', [id]);
    return rows[0]?.password_hash ?? undefined;
  }

  async setPasswordHash(id: string, hash: string | null): Promise<void> {
    await query(this.db.pool, 'UPDATE accounts SET password_hash = $1 WHERE id = $2', [hash, id]);
  }
}
