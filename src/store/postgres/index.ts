// The PostgreSQL backend of every row repository: the same shapes as store/sqlite, for instances
// that share their rows.
import type { Repositories } from '../../domain/ports.ts';
import type { AccountAddresses } from '../account-addresses.ts';
import { PostgresAccounts } from './accounts.ts';
import { PostgresApiKeys } from './api-keys.ts';
import { PostgresAssets } from './assets.ts';
import type { PgDb } from './db.ts';
import { PostgresJobs } from './jobs.ts';
import { PostgresKeyRing } from './key-ring.ts';
import { PostgresPartIndex } from './parts.ts';
import { PostgresSessions } from './sessions.ts';
import { PostgresSettings } from './settings.ts';
import { PostgresUploads } from './uploads.ts';
import { PostgresMailTokens, PostgresWebSessions } from './web-sessions.ts';

export { migrate, openPostgres, query, tx, type PgDb, type Queryable } from './db.ts';

export function postgresRepositories(db: PgDb, addresses: AccountAddresses): Repositories {
  return {
    accounts: new PostgresAccounts(db, addresses),
    apiKeys: new PostgresApiKeys(db),
    keyRing: new PostgresKeyRing(db),
    parts: new PostgresPartIndex(db),
    settings: new PostgresSettings(db),
    sessions: new PostgresSessions(db),
    uploads: new PostgresUploads(db),
    jobs: new PostgresJobs(db),
    assets: new PostgresAssets(db),
    webSessions: new PostgresWebSessions(db),
    mailTokens: new PostgresMailTokens(db),
  };
}
