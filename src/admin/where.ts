// What the admin CLI works on, said on every run, and the refusal to make a second set of
// stores: a CLI pointed at another folder than the service's would otherwise create a new
// master key and database there, whose keys the service then answers with 401.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

export const databaseFile = (config: Config): string => path.join(config.dataDir, 'obscura.db');

/** One line for stderr: the data folder or engine, and where the master key comes from. Never a URL (it may hold a password). */
export function whereLine(config: Config): string {
  const rows = config.databaseUrl ? 'database PostgreSQL' : `data folder ${config.dataDir} (SQLite)`;
  const blobs = config.blobUrl ? ', blobs in an S3 bucket' : config.databaseUrl ? `, blobs in ${path.join(config.dataDir, 'blobs')}` : '';
  const key = config.masterKey.inline ? 'master key from OBSCURA_MASTER_KEY' : `master key file ${config.masterKey.file}`;
  return `obscura: ${rows}${blobs}, ${key}`;
}

/** Why this run may not go on without --init (it would create a master key or a database); undefined when it may. */
export function missingStores(config: Config): string | undefined {
  const noKey = !config.masterKey.inline && !existsSync(config.masterKey.file);
  const noDb = !config.databaseUrl && !existsSync(databaseFile(config));
  if (!noKey && !noDb) return undefined;
  const what = noKey && noDb ? `no master key (${config.masterKey.file}) and no database` : noKey ? `no master key (${config.masterKey.file})` : 'no database';
  const place = config.databaseUrl ? 'for this PostgreSQL database' : `in the data folder ${config.dataDir}`;
  const creates = [noKey && 'master key', noDb && 'database'].filter(Boolean).join(' and ');
  return (
    `${what} ${place}: this is not ${config.databaseUrl ? 'the master key' : 'the folder'} of a service that has started. ` +
    `Point OBSCURA_DATA_DIR (and OBSCURA_MASTER_KEY_FILE, if the service sets it) at the service's, ` +
    `or run with --init to create a new ${creates}`
  );
}
