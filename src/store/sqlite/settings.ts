import type { SettingsRepository } from '../../domain/ports.ts';
import type { Db } from './db.ts';

export class SqliteSettings implements SettingsRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async get(name: string): Promise<string | undefined> {
    return (this.db.prepare('SELECT value FROM settings WHERE name = ?').get(name) as { value: string } | undefined)?.value;
  }

  async set(name: string, value: string): Promise<void> {
    this.db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value').run(name, value);
  }

  async delete(name: string): Promise<void> {
    this.db.prepare('DELETE FROM settings WHERE name = ?').run(name);
  }
}
