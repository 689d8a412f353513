import type { Account, AccountRepository } from '../../domain/ports.ts';
import type { AccountAddresses } from '../account-addresses.ts';
import { ACCOUNT_COLUMNS, toAccount, type AccountRecord } from '../rows.ts';
import { query, tx, type Param, type PgDb } from './db.ts';

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

  async deleteUnverified(createdBefore: number, id?: string): Promise<number> {
    // the accounts to go, named once: unverified, old enough, no upload sessions hang from them
    const which = `SELECT id FROM accounts a WHERE a.verified_at IS NULL AND a.created_at <= $1 ${id === undefined ? '' : 'AND a.id = $2'}
      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.account_id = a.id)`;
    const args: Param[] = id === undefined ? [createdBefore] : [createdBefore, id];
    return tx(this.db.pool, async (client) => {
      // locked first, so a sign-in or an upload session arriving meanwhile waits for the delete
      const { rows } = await query<{ id: string }>(client, `${which} FOR UPDATE`, args);
      if (!rows.length) return 0;
      const ids = rows.map((r) => r.id);
      for (const table of ['web_sessions', 'mail_tokens', 'api_keys']) await client.query(`DELETE FROM ${table} WHERE account_id = ANY($1)`, [ids]);
      return (await client.query('DELETE FROM accounts WHERE id = ANY($1)', [ids])).rowCount ?? 0;
    });
  }
}
