import type { Repositories } from '../repositories.ts';
import { SqliteAccounts } from './accounts.ts';
import { SqliteAssets } from './assets.ts';
import { SqliteJobs } from './jobs.ts';
import { SqliteApiKeys } from './api-keys.ts';
import type { Db } from './db.ts';
import { SqliteKeyRing } from './key-ring.ts';
import { SqliteSessions } from './sessions.ts';
import { SqliteSettings } from './settings.ts';
import { SqliteUploads } from './uploads.ts';
import { SqliteMailTokens, SqliteWebSessions } from './web-sessions.ts';

export { openDb, tx, type Db } from './db.ts';

export function sqliteRepositories(db: Db): Repositories {
  return {
    accounts: new SqliteAccounts(db),
    apiKeys: new SqliteApiKeys(db),
    keyRing: new SqliteKeyRing(db),
    settings: new SqliteSettings(db),
    sessions: new SqliteSessions(db),
    uploads: new SqliteUploads(db),
    jobs: new SqliteJobs(db),
    assets: new SqliteAssets(db),
    webSessions: new SqliteWebSessions(db),
    mailTokens: new SqliteMailTokens(db),
  };
}
