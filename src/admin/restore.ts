// `obscura restore <dir>`: a backup into a NEW data folder. Everything is checked before anything
// is written: each file against the manifest, the master key against the check value the
// backup's database recorded (the one services.ts compares at every start), then the manifest's
// own HMAC. Then the files are copied, the database last, and opened once as the service would.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { AppError } from '../domain/errors.ts';
import type { Config } from '../config.ts';
import type { MasterKey } from '../store/master-key.ts';
import { migrations } from '../store/sqlite/migrations.ts';
import { databaseFile } from './where.ts';
import { FORMAT, FORMAT_VERSION, MANIFEST, SAFE_PATH, fileDigest, signedBy, type Manifest } from './manifest.ts';

export async function restore(config: Config, masterKey: MasterKey, dir: string): Promise<Manifest> {
  if (config.databaseUrl || config.blobUrl) throw new AppError('not_embedded', 'restore loads a backup of the embedded engine into a data folder: unset OBSCURA_DATABASE_URL and OBSCURA_BLOB_URL');
  const source = path.resolve(dir);
  const manifest = await readManifest(source);

  // the target: a new data folder (the operator may have put the master key in it already)
  if (existsSync(databaseFile(config))) throw new AppError('data_dir_in_use', `the data folder ${config.dataDir} already holds a database: restore into a new one`);
  const blobsDir = path.join(config.dataDir, 'blobs');
  if ((await readdir(blobsDir).catch(() => [])).length) throw new AppError('data_dir_in_use', `the data folder ${config.dataDir} already holds blobs: restore into a new one`);

  for (const f of manifest.files) {
    const got = await fileDigest(path.join(source, f.path)).catch(() => undefined);
    if (!got || got.size !== f.size || got.sha256 !== f.sha256) {
      throw new AppError('backup_damaged', `the backup's file ${f.path} ${got ? 'does not match its manifest (damaged or altered)' : 'is missing'}; nothing was restored`);
    }
  }
  const seen = checkValue(path.join(source, 'obscura.db'));
  if (seen !== undefined && seen !== masterKey.check) {
    throw new AppError('wrong_master_key', `${keyName(config)} is not the master key this backup's data was sealed with: give restore the service's master key (OBSCURA_MASTER_KEY_FILE); nothing was restored`);
  }
  if (!signedBy(manifest, masterKey)) throw new AppError('backup_damaged', `the backup's ${MANIFEST} was altered (its HMAC does not match); nothing was restored`);

  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  try {
    for (const f of manifest.files) {
      if (f.path === 'obscura.db') continue;
      await mkdir(path.dirname(path.join(config.dataDir, f.path)), { recursive: true, mode: 0o700 });
      await copyFile(path.join(source, f.path), path.join(config.dataDir, f.path));
    }
    await copyFile(path.join(source, 'obscura.db'), `${databaseFile(config)}.restoring`);
    await rename(`${databaseFile(config)}.restoring`, databaseFile(config));
  } catch (err) {
    await rm(blobsDir, { recursive: true, force: true });
    await rm(databaseFile(config), { force: true });
    await rm(`${databaseFile(config)}.restoring`, { force: true });
    throw err;
  }
  return manifest;
}

async function readManifest(source: string): Promise<Manifest> {
  let m: Manifest;
  try {
    m = JSON.parse(await readFile(path.join(source, MANIFEST), 'utf8')) as Manifest;
  } catch (err) {
    throw new AppError('backup_damaged', `${path.join(source, MANIFEST)} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'not JSON'}): is this a backup made by obscura backup?`);
  }
  if (m?.format !== FORMAT || !Array.isArray(m.files)) throw new AppError('backup_damaged', `${MANIFEST} is not an obscura backup's manifest`);
  if (m.formatVersion > FORMAT_VERSION) throw new AppError('backup_too_new', `this backup has format version ${m.formatVersion}; this version of obscura reads up to ${FORMAT_VERSION}`);
  const newest = migrations[migrations.length - 1].version;
  if (m.schemaVersion > newest) throw new AppError('backup_too_new', `this backup's database has schema version ${m.schemaVersion}; this version of obscura knows up to ${newest}: restore with the version that made it`);
  const bad = m.files.find((f) => typeof f?.path !== 'string' || !SAFE_PATH.test(f.path));
  if (bad || !m.files.some((f) => f.path === 'obscura.db')) throw new AppError('backup_damaged', `${MANIFEST} names a file a backup cannot hold, or no database`);
  return m;
}

/** The master key check value the database recorded at its first start (undefined: never started). */
function checkValue(file: string): string | undefined {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare("SELECT value FROM settings WHERE name = 'master_key_check'").get() as { value: string } | undefined;
    return row?.value;
  } finally {
    db.close();
  }
}

const keyName = (config: Config) => (config.masterKey.inline ? 'OBSCURA_MASTER_KEY' : `the master key file ${config.masterKey.file}`);
