// `obscura backup <dir>`: an online snapshot of the embedded engine while the service runs.
//
// The database goes first, through SQLite's backup API in one step (one read transaction, so
// one consistent point in time, whatever the service writes meanwhile). Then every blob whose
// data key is in that snapshot is copied as it is (ciphertext). A blob may be mid-append while
// it is copied: its journal (the committed last frame, see encrypted-file-store.ts) is copied
// before the file and replayed on the copy, exactly as the store's own start-up recovery does,
// and then every frame of the copy is authenticated; a copy that does not open whole is made
// again. So each blob in the backup is one the store once committed, never a torn one. Blobs
// made after the snapshot have no key in it and are left out; one deleted before it could be
// copied (its upload or result expired) is counted and named in the summary.
import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { backup as sqliteBackup, DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../domain/errors.ts';
import type { Config } from '../config.ts';
import { EncryptedFileStore, fsyncPath } from '../store/blobs/encrypted-file-store.ts';
import type { MasterKey } from '../store/master-key.ts';
import { SqliteKeyRing } from '../store/sqlite/key-ring.ts';
import { databaseFile } from './where.ts';
import { FORMAT, FORMAT_VERSION, MANIFEST, fileDigest, sign, type Manifest, type ManifestFile } from './manifest.ts';

/** Copies of one blob tried before the backup gives up on it (each after a short pause). */
const ATTEMPTS = 50;

export interface BackupSummary {
  manifest: Manifest;
  /** Blobs the snapshot names that were deleted before they could be copied. */
  gone: number;
}

/** Only the embedded engine is this tool's to copy. */
export function assertEmbedded(config: Config): void {
  if (config.databaseUrl || config.blobUrl) {
    throw new AppError('not_embedded', 'backup copies the embedded engine (SQLite and blob files in the data folder); with PostgreSQL or an S3 store use their own tools: see "Backup and restore" in docs/operators.md');
  }
}

export async function backup(config: Config, masterKey: MasterKey, dir: string): Promise<BackupSummary> {
  assertEmbedded(config);
  const target = path.resolve(dir);
  const present = await readdir(target).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)));
  if (present.length) throw new AppError('backup_dir_not_empty', `the backup folder ${target} is not empty: give a new or empty one`);
  await mkdir(target, { recursive: true, mode: 0o700 });
  try {
    return await take(config, masterKey, target);
  } catch (err) {
    // nothing half-made is left to be mistaken for a backup
    await rm(target, { recursive: true, force: true });
    throw err;
  }
}

async function take(config: Config, masterKey: MasterKey, target: string): Promise<BackupSummary> {
  // 1. the rows, at one point in time
  const dbCopy = path.join(target, 'obscura.db');
  const live = new DatabaseSync(databaseFile(config), { readOnly: true });
  try {
    live.exec('PRAGMA busy_timeout = 5000');
    await sqliteBackup(live, dbCopy, { rate: 2 ** 31 - 1 });
  } finally {
    live.close();
  }
  await chmod(dbCopy, 0o600);
  const snap = new DatabaseSync(dbCopy);
  let ids: string[];
  let schemaVersion: number;
  const counts: Record<string, number> = {};
  try {
    snap.exec('PRAGMA journal_mode = DELETE'); // one self-contained file
    schemaVersion = Number((snap.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v);
    for (const table of ['accounts', 'api_keys', 'sessions', 'uploads', 'jobs', 'assets']) {
      counts[table] = Number((snap.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n);
    }
    ids = (snap.prepare('SELECT object_id FROM blob_keys ORDER BY object_id').all() as { object_id: string }[]).map((r) => r.object_id);
  } finally {
    snap.close();
  }

  // 2. the blobs the snapshot holds keys for, each whole
  const from = path.join(config.dataDir, 'blobs');
  const to = path.join(target, 'blobs');
  const keys = new DatabaseSync(dbCopy, { readOnly: true });
  let gone = 0;
  const copied: string[] = [];
  try {
    let pending = ids;
    for (let attempt = 1; pending.length; attempt++) {
      if (attempt > ATTEMPTS) throw new AppError('backup_blob_torn', `${pending.length} blob(s) could not be copied whole after ${ATTEMPTS} tries: try again`);
      if (attempt > 1) await sleep(100);
      const took: string[] = [];
      for (const id of pending) {
        if (await copyBlob(from, to, id)) took.push(id);
        else gone++;
      }
      // the journals replayed as at the store's start, then every frame checked
      const store = await EncryptedFileStore.open({ dir: to, masterKey, keyRing: new SqliteKeyRing(keys) });
      pending = [];
      for (const id of took) {
        if (await opensWhole(store, id)) copied.push(id);
        else pending.push(id);
      }
    }
  } finally {
    keys.close();
  }
  counts.blobs = copied.length;

  // 3. the manifest, last: a backup without one is unfinished
  const files: ManifestFile[] = [];
  for (const rel of ['obscura.db', ...copied.sort().map((id) => `blobs/${id.slice(0, 2)}/${id}.obj`)]) {
    files.push({ path: rel, ...(await fileDigest(path.join(target, rel))) });
  }
  const manifest = sign({ format: FORMAT, formatVersion: FORMAT_VERSION, engine: 'sqlite', schemaVersion, createdAt: new Date().toISOString(), counts, files }, masterKey);
  await writeFile(path.join(target, MANIFEST), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600, flush: true });
  return { manifest, gone };
}

/** The journal (if an append is under way) before the file: replayed, it gives the file's committed state. False: the blob was deleted. */
async function copyBlob(from: string, to: string, id: string): Promise<boolean> {
  const shard = id.slice(0, 2);
  await mkdir(path.join(to, shard), { recursive: true, mode: 0o700 });
  const src = path.join(from, shard, id);
  const dst = path.join(to, shard, id);
  await rm(`${dst}.journal`, { force: true });
  const journal = await readFile(`${src}.journal`).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
  try {
    await copyFile(`${src}.obj`, `${dst}.obj`, constants.COPYFILE_FICLONE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await rm(`${dst}.obj`, { force: true }); // a torn copy from an earlier try
    return false;
  }
  if (journal) await writeFile(`${dst}.journal`, journal, { mode: 0o600 });
  await fsyncPath(`${dst}.obj`);
  return true;
}

async function opensWhole(store: EncryptedFileStore, id: string): Promise<boolean> {
  try {
    for await (const _ of store.read(id)) {
      // every frame is authenticated as it is read; the last must be the final one
    }
    return true;
  } catch {
    return false;
  }
}
