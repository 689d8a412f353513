// Upload throughput of the S3 blob backend (on a local Swift with s3api, started here) against
// two baselines in the same run: the encrypted file backend (the same bytes appended in 5 MiB
// chunks to a fresh object of each), and the store's own limit, the same number of bytes the
// S3 backend writes (its ciphertext) put into the same bucket by the AWS SDK's multipart
// `Upload` (@aws-sdk/lib-storage) at its best concurrency (1, 2, 4, 8) and part size (5 MiB, its
// default, 8 and 16 MiB). Every round runs each of them once, so a busy machine slows all alike;
// each figure is its best round. `npm run bench -- scale-store [MiB] [rounds]` (default 64 and 3;
// needs root and Swift).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { EncryptedFileStore } from '../src/store/blobs/encrypted-file-store.ts';
import { FRAME_OVERHEAD } from '../src/store/blobs/frames.ts';
import { S3_DEFAULT_FRAME_SIZE, S3BlobStore } from '../src/store/blobs/s3-store.ts';
import { MasterKey } from '../src/store/master-key.ts';
import { openDb, sqliteRepositories } from '../src/store/sqlite/index.ts';
import { AccountAddresses } from '../src/store/account-addresses.ts';
import type { BlobStore } from '../src/domain/ports.ts';
import { startSwift } from '../test/helpers/swift.ts';

const MiB = 1024 * 1024;
const SDK_QUEUE_SIZES = [1, 2, 4, 8];
const SDK_PART_SIZES = [5 * MiB, 8 * MiB, 16 * MiB];

export async function run(args: string[]): Promise<void> {
  const totalMiB = Number(args[0] ?? 64);
  const rounds = Number(args[1] ?? 3);
  const chunk = randomBytes(5 * MiB);
  const chunks = Math.ceil(totalMiB / 5);
  const bytes = chunks * chunk.length;
  // what the S3 backend writes for these bytes: every frame sealed (nonce and tag)
  const cipherBytes = bytes + Math.ceil(bytes / S3_DEFAULT_FRAME_SIZE) * FRAME_OVERHEAD;
  const dir = mkdtempSync(path.join(process.env.BENCH_DIR ?? os.tmpdir(), 'obscura-bench-scale-'));
  const swift = await startSwift();
  try {
    const masterKey = new MasterKey(randomBytes(32));
    const repos = sqliteRepositories(openDb(path.join(dir, 'obscura.db')), new AccountAddresses(masterKey));
    const file = await EncryptedFileStore.open({ dir: path.join(dir, 'blobs'), masterKey, keyRing: repos.keyRing });
    const bucket = await swift.createBucket();
    const s3 = new S3BlobStore({ url: swift.url(bucket), masterKey, keyRing: repos.keyRing, parts: repos.parts, credentials: swift.credentials });
    let n = 0;
    const upload = async (store: BlobStore, keepPartial: boolean) => {
      const id = `b${n++}`;
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
    // the anchor: the SDK's own multipart upload of as many bytes
    const sealed = randomBytes(cipherBytes);
    const sdkUpload = async (queueSize: number, partSize: number) => {
      const Key = `anchor${n++}`;
      const t0 = performance.now();
      await new Upload({ client: swift.client, params: { Bucket: bucket, Key, Body: sealed }, queueSize, partSize }).done();
      const ms = performance.now() - t0;
      await swift.client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      return ms;
    };

    const best = new Map<string, number>();
    const time = async (name: string, f: () => Promise<number>) => {
      const ms = await f();
      best.set(name, Math.min(ms, best.get(name) ?? Infinity));
    };
    const FILE = 'file (encrypted, fsync)';
    const MPU = 's3 on swift (multipart, one part object)';
    const PARTS = 's3 on swift (resumable, 8 MiB part objects)';
    const sdkName = (q: number, p: number) => `  sdk queueSize ${String(q).padStart(2)} part ${String(p / MiB).padStart(2)} MiB`;
    let storeRss = 0;
    for (let r = 0; r < rounds; r++) {
      await time(FILE, () => upload(file, false));
      await time(MPU, () => upload(s3, false));
      await time(PARTS, () => upload(s3, true));
      // the stores' peak, before the anchor's first run
      if (r === 0) storeRss = process.resourceUsage().maxRSS * 1024;
      for (const p of SDK_PART_SIZES) for (const q of SDK_QUEUE_SIZES) await time(sdkName(q, p), () => sdkUpload(q, p));
    }

    const fileMs = best.get(FILE)!;
    const fastest = (partSizes: number[]) =>
      [...best]
        .filter(([k]) => SDK_QUEUE_SIZES.some((q) => partSizes.some((p) => k === sdkName(q, p))))
        .reduce((a, b) => (b[1] < a[1] ? b : a));
    const sdk = fastest(SDK_PART_SIZES);
    // the SDK at its own default part size (5 MiB), at its best concurrency
    const sdkDefault = fastest([5 * MiB]);
    const mbs = (ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(1).padStart(7);
    const line = (name: string, ms: number, extra = '') =>
      process.stdout.write(`${name.padEnd(50)} ${mbs(ms)} MB/s  vs file ${(fileMs / ms).toFixed(2)}  vs sdk ${(sdk[1] / ms).toFixed(2)}${extra}\n`);
    process.stdout.write(
      `${(bytes / MiB).toFixed(0)} MiB (${(cipherBytes / MiB).toFixed(2)} MiB sealed) in 5 MiB chunks, best of ${rounds} interleaved rounds; ratio = baseline time / this time (MB/s of plaintext)\n`,
    );
    line(FILE, fileMs);
    line(MPU, best.get(MPU)!);
    line(PARTS, best.get(PARTS)!);
    line('sdk Upload of the sealed bytes (anchor, best)', sdk[1], ` (${sdk[0].trim()})`);
    line('sdk Upload at its default 5 MiB parts', sdkDefault[1], ` (${sdkDefault[0].trim()}; the s3 rows vs it: multipart ${(sdkDefault[1] / best.get(MPU)!).toFixed(2)}, resumable ${(sdkDefault[1] / best.get(PARTS)!).toFixed(2)})`);
    for (const [k, ms] of best) if (k.startsWith('  sdk')) process.stdout.write(`${k.padEnd(50)} ${mbs(ms)} MB/s\n`);
    process.stdout.write(`peak RSS after the stores' first round (before the anchor's): ${(storeRss / MiB).toFixed(0)} MiB\n`);
  } finally {
    await swift.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
