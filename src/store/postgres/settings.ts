import type { SettingsRepository } from '../../domain/ports.ts';
import { query, type PgDb } from './db.ts';

export class PostgresSettings implements SettingsRepository {
  private readonly db: PgDb;
  constructor(db: PgDb) {
    this.db = db;
  }

  async get(name: string): Promise<string | undefined> {
    const { rows } = await query<{ value: string }>(this.db.pool, 'SELECT value FROM settings WHERE name = $1', [name]);
    return rows[0]?.value;
  }

  async set(name: string, value: string): Promise<void> {
    await query(this.db.pool, 'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [name, value]);
  }

  async delete(name: string): Promise<void> {
    await query(this.db.pool, 'DELETE FROM settings WHERE name = $1', [name]);
  }
}
