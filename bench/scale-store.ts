// Upload throughput of the S3 blob backend (on a local Swift with s3api, started here) against
// the encrypted file backend: the same bytes appended in 5 MiB chunks to a fresh object of each,
// best of a few rounds. `npm run bench -- scale-store [MiB]` (default 64; needs root and Swift).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EncryptedFileStore } from '../src/store/blobs/encrypted-file-store.ts';
import { S3BlobStore } from '../src/store/blobs/s3-store.ts';
import { MasterKey } from '../src/store/master-key.ts';
import { openDb, sqliteRepositories } from '../src/store/sqlite/index.ts';
import { AccountAddresses } from '../src/store/account-addresses.ts';
import type { BlobStore } from '../src/domain/ports.ts';
import { startSwift } from '../test/helpers/swift.ts';

const MiB = 1024 * 1024;

export async function run(args: string[]): Promise<void> {
  const totalMiB = Number(args[0] ?? 64);
  const chunk = randomBytes(5 * MiB);
  const chunks = Math.ceil(totalMiB / 5);
  const bytes = chunks * chunk.length;
  const dir = mkdtempSync(path.join(process.env.BENCH_DIR ?? os.tmpdir(), 'obscura-bench-scale-'));
  const swift = await startSwift();
  try {
    const masterKey = new MasterKey(randomBytes(32));
    const repos = sqliteRepositories(openDb(path.join(dir, 'obscura.db')), new AccountAddresses(masterKey));
    const file = await EncryptedFileStore.open({ dir: path.join(dir, 'blobs'), masterKey, keyRing: repos.keyRing });
    const s3 = new S3BlobStore({ url: swift.url(await swift.createBucket()), masterKey, keyRing: repos.keyRing, parts: repos.parts, credentials: swift.credentials });
    const upload = async (store: BlobStore, id: string, keepPartial: boolean) => {
      await store.create(id);
      const t0 = performance.now();
      const size = await store.append(id, (function* () {
        for (let i = 0; i < chunks; i++) yield chunk;
      })(), { keepPartial });
      const ms = performance.now() - t0;
      if (size !== bytes) throw new Error(`stored ${size} of ${bytes} bytes`);
      await store.delete(id);
      return ms;
    };
    const rounds = 3;
    const best = async (store: BlobStore, tag: string, keepPartial = false) => {
      const times: number[] = [];
      for (let r = 0; r < rounds; r++) times.push(await upload(store, `${tag}${r}`, keepPartial));
      return Math.min(...times);
    };
    const mbs = (ms: number) => bytes / 1e6 / (ms / 1000);
    const fileMs = await best(file, 'file');
    const s3Ms = await best(s3, 's3mpu');
    const s3PartsMs = await best(s3, 's3parts', true);
    const line = (name: string, ms: number) =>
      process.stdout.write(`${name.padEnd(44)} ${mbs(ms).toFixed(1).padStart(7)} MB/s  ratio ${(fileMs / ms).toFixed(2)}\n`);
    process.stdout.write(`${(bytes / MiB).toFixed(0)} MiB in 5 MiB chunks, best of ${rounds}; ratio = file time / this time\n`);
    line('file (encrypted, fsync)', fileMs);
    line('s3 on swift (multipart, one part object)', s3Ms);
    line('s3 on swift (resumable, 8 MiB part objects)', s3PartsMs);
  } finally {
    await swift.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
