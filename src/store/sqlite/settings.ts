import type { SettingsRepository } from '../repositories.ts';
import type { Db } from './db.ts';

export class SqliteSettings implements SettingsRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  get(name: string): string | undefined {
    return (this.db.prepare('SELECT value FROM settings WHERE name = ?').get(name) as { value: string } | undefined)?.value;
  }

  set(name: string, value: string): void {
    this.db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value').run(name, value);
  }

  delete(name: string): void {
    this.db.prepare('DELETE FROM settings WHERE name = ?').run(name);
  }
}
