import type { Repositories } from '../../domain/ports.ts';
import type { AccountAddresses } from '../account-addresses.ts';
import { SqliteAccounts } from './accounts.ts';
import { SqliteAssets } from './assets.ts';
import { SqliteJobs } from './jobs.ts';
import { SqliteApiKeys } from './api-keys.ts';
import { unique, type Db } from './db.ts';
import { SqliteKeyRing } from './key-ring.ts';
import { SqlitePartIndex } from './parts.ts';
import { SqliteSessions } from './sessions.ts';
import { SqliteSettings } from './settings.ts';
import { SqliteUploads } from './uploads.ts';
import { SqliteMailTokens, SqliteWebSessions } from './web-sessions.ts';

export { openDb, tx, type Db } from './db.ts';

/**
 * The repositories over one database. Each is wrapped so that a row breaking a uniqueness rule
 * fails with the port's DuplicateError, whichever method wrote it: the domain never reads
 * SQLite's error text.
 */
export function sqliteRepositories(db: Db, addresses: AccountAddresses): Repositories {
  const repos: Repositories = {
    accounts: new SqliteAccounts(db, addresses),
    apiKeys: new SqliteApiKeys(db),
    keyRing: new SqliteKeyRing(db),
    parts: new SqlitePartIndex(db),
    settings: new SqliteSettings(db),
    sessions: new SqliteSessions(db),
    uploads: new SqliteUploads(db),
    jobs: new SqliteJobs(db),
    assets: new SqliteAssets(db),
    webSessions: new SqliteWebSessions(db),
    mailTokens: new SqliteMailTokens(db),
  };
  return Object.fromEntries(Object.entries(repos).map(([name, repo]) => [name, translated(repo)])) as unknown as Repositories;
}

function translated<T extends object>(repo: T): T {
  return new Proxy(repo, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => unique(() => value.apply(target, args));
    },
  });
}
