// Upload throughput of the S3 blob backend (on a local Swift with s3api, started here) against
// two baselines in the same run: the encrypted file backend (the same bytes appended in 5 MiB
// chunks to a fresh object of each), and the store's own limit, the same number of bytes the
// S3 backend writes (its ciphertext) put into the same bucket by the AWS SDK's multipart
// `Upload` (@aws-sdk/lib-storage) at its best concurrency and part size. Best of a few rounds.
// `npm run bench -- scale-store [MiB]` (default 64; needs root and Swift).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
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
const ROUNDS = 3;

export async function run(args: string[]): Promise<void> {
  const totalMiB = Number(args[0] ?? 64);
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
    const best = async (store: BlobStore, tag: string, keepPartial = false) => {
      const times: number[] = [];
      for (let r = 0; r < ROUNDS; r++) times.push(await upload(store, `${tag}${r}`, keepPartial));
      return Math.min(...times);
    };
    const mbs = (ms: number) => bytes / 1e6 / (ms / 1000);
    const fileMs = await best(file, 'file');
    const s3Ms = await best(s3, 's3mpu');
    const s3PartsMs = await best(s3, 's3parts', true);
    const storeRss = process.resourceUsage().maxRSS * 1024;

    // the anchor: the SDK's own multipart upload of as many bytes, at each concurrency and part size
    const cipher = randomBytes(cipherBytes);
    const sdk = await sdkLimit(swift.client, bucket, cipher);

    const line = (name: string, ms: number, extra = '') =>
      process.stdout.write(
        `${name.padEnd(50)} ${mbs(ms).toFixed(1).padStart(7)} MB/s  vs file ${(fileMs / ms).toFixed(2)}  vs sdk ${(sdk.ms / ms).toFixed(2)}${extra}\n`,
      );
    process.stdout.write(
      `${(bytes / MiB).toFixed(0)} MiB (${(cipherBytes / MiB).toFixed(2)} MiB sealed) in 5 MiB chunks, best of ${ROUNDS}; ratio = baseline time / this time (MB/s of plaintext)\n`,
    );
    line('file (encrypted, fsync)', fileMs);
    line('s3 on swift (multipart, one part object)', s3Ms);
    line('s3 on swift (resumable, 8 MiB part objects)', s3PartsMs);
    line(`sdk Upload of the sealed bytes (anchor)`, sdk.ms, `  (queueSize ${sdk.queueSize}, part ${sdk.partSize / MiB} MiB)`);
    for (const t of sdk.all) process.stdout.write(`  sdk queueSize ${String(t.queueSize).padStart(2)} part ${String(t.partSize / MiB).padStart(2)} MiB  ${mbs(t.ms).toFixed(1).padStart(7)} MB/s\n`);
    process.stdout.write(`peak RSS after the store rows (before the anchor): ${(storeRss / MiB).toFixed(0)} MiB\n`);
  } finally {
    await swift.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Trial {
  queueSize: number;
  partSize: number;
  ms: number;
}

/** Best time of the SDK's `Upload` of `body` at concurrency 1, 2, 4, 8 and part sizes 5 (its default), 8 and 16 MiB. */
async function sdkLimit(client: S3Client, bucket: string, body: Buffer): Promise<Trial & { all: Trial[] }> {
  const all: Trial[] = [];
  for (const partSize of [5 * MiB, 8 * MiB, 16 * MiB]) {
    for (const queueSize of [1, 2, 4, 8]) {
      const times: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const Key = `anchor-${queueSize}-${partSize}-${r}`;
        const t0 = performance.now();
        await new Upload({ client, params: { Bucket: bucket, Key, Body: body }, queueSize, partSize }).done();
        times.push(performance.now() - t0);
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      }
      all.push({ queueSize, partSize, ms: Math.min(...times) });
    }
  }
  const top = all.reduce((a, b) => (b.ms < a.ms ? b : a));
  return { ...top, all };
}
