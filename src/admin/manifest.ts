// A backup's MANIFEST.json: what it holds, each file's size and SHA-256, and an HMAC over all of
// it under a key derived from the master key, so that an altered manifest is found too.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { MasterKey } from '../store/master-key.ts';

export const MANIFEST = 'MANIFEST.json';
export const FORMAT = 'obscura-backup';
export const FORMAT_VERSION = 1;

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface Manifest {
  format: typeof FORMAT;
  formatVersion: number;
  engine: 'sqlite';
  schemaVersion: number;
  createdAt: string;
  counts: Record<string, number>;
  files: ManifestFile[];
  /** HMAC-SHA256 of the rest, under a key derived from the master key (it does not reveal the key). */
  hmac?: string;
}

/** The only paths a backup may name: the database and blob files (no `..`, nothing absolute). */
export const SAFE_PATH = /^(obscura\.db|blobs\/[A-Za-z0-9][A-Za-z0-9_-]\/[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.obj)$/;

export async function fileDigest(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest('hex') };
}

function mac(m: Manifest, key: MasterKey): Buffer {
  const { hmac: _, ...rest } = m;
  return createHmac('sha256', key.derive('backup-manifest')).update(JSON.stringify(rest)).digest();
}

export function sign(m: Manifest, key: MasterKey): Manifest {
  return { ...m, hmac: mac(m, key).toString('hex') };
}

export function signedBy(m: Manifest, key: MasterKey): boolean {
  const given = Buffer.from(m.hmac ?? '', 'hex');
  const want = mac(m, key);
  return given.length === want.length && timingSafeEqual(given, want);
}
