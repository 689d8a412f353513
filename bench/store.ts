// Encrypted blob store vs plain file writes and reads of the same bytes, same chunking,
// same durability (one fsync at the end), same disk. The baseline is the streaming file
// I/O an unencrypted store uses (fs write/read streams, as @tus/file-store and a plain
// download do); raw 1 MiB syscalls with no stream are printed too, for reference.
// Goal: ratio >= 0.5 both ways against the streaming baseline.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EncryptedFileStore } from '../src/store/blobs/encrypted-file-store.ts';
import { MasterKey } from '../src/store/master-key.ts';
import { openDb, sqliteRepositories } from '../src/store/sqlite/index.ts';
import { AccountAddresses } from '../src/store/account-addresses.ts';

const MiB = 1024 * 1024;

export async function run(args: string[]): Promise<void> {
  const totalMiB = Number(args[0] ?? 512);
  const chunk = randomBytes(5 * MiB);
  const chunks = Math.ceil(totalMiB / 5);
  const bytes = chunks * chunk.length;
  const dir = mkdtempSync(path.join(process.env.BENCH_DIR ?? os.tmpdir(), 'obscura-bench-store-'));
  try {
    const db = openDb(path.join(dir, 'obscura.db'));
    const masterKey = new MasterKey(randomBytes(32));
    const store = await EncryptedFileStore.open({
      dir: path.join(dir, 'blobs'),
      masterKey,
      keyRing: sqliteRepositories(db, new AccountAddresses(masterKey)).keyRing,
      frameSize: process.env.BENCH_FRAME ? Number(process.env.BENCH_FRAME) : undefined,
    });

    const rounds = 3;
    const plainW: number[] = [], plainR: number[] = [], encW: number[] = [], encR: number[] = [];
    const streamW: number[] = [], streamR: number[] = [];
    const source = () => Readable.from((function* () {
      for (let i = 0; i < chunks; i++) yield chunk;
    })());
    for (let r = 0; r < rounds; r++) {
      // plain: append the chunks to a file, fsync, then read it back in 1 MiB reads
      const plainFile = path.join(dir, `plain-${r}.bin`);
      let t0 = performance.now();
      const fh = await open(plainFile, 'w');
      for (let i = 0; i < chunks; i++) await fh.write(chunk);
      await fh.datasync();
      await fh.close();
      plainW.push(performance.now() - t0);
      t0 = performance.now();
      const rh = await open(plainFile, 'r');
      const buf = Buffer.allocUnsafe(MiB);
      let got = 0;
      for (;;) {
        const { bytesRead } = await rh.read(buf, 0, MiB, got);
        if (!bytesRead) break;
        got += bytesRead;
      }
      await rh.close();
      plainR.push(performance.now() - t0);

      // encrypted: the same chunks through one streaming append (one commit, like a plain file)
      const id = `bench${r}`;
      t0 = performance.now();
      await store.create(id);
      await store.append(id, (function* () {
        for (let i = 0; i < chunks; i++) yield chunk;
      })());
      encW.push(performance.now() - t0);
      t0 = performance.now();
      let n = 0;
      for await (const c of store.read(id)) n += (c as Buffer).length;
      encR.push(performance.now() - t0);
      if (n !== bytes || got !== bytes) throw new Error('byte count mismatch');
      rmSync(plainFile);

      // plain streaming: what an unencrypted store does
      t0 = performance.now();
      const ws = createWriteStream(plainFile, { flush: true });
      await pipeline(source(), ws);
      streamW.push(performance.now() - t0);
      t0 = performance.now();
      let s = 0;
      for await (const c of createReadStream(plainFile)) s += (c as Buffer).length;
      streamR.push(performance.now() - t0);
      if (s !== bytes) throw new Error('byte count mismatch');
      rmSync(plainFile);
      await store.delete(id);
    }
    const best = (xs: number[]) => Math.min(...xs);
    const mbps = (ms: number) => bytes / MiB / (ms / 1000);
    const row = (label: string, stream: number, raw: number, enc: number) =>
      `${label.padEnd(6)} encrypted ${mbps(enc).toFixed(0).padStart(5)} MiB/s   plain stream ${mbps(stream).toFixed(0).padStart(5)} MiB/s   ` +
      `ratio ${(stream / enc).toFixed(2)} (goal >= 0.50)   [raw syscalls ${mbps(raw).toFixed(0)} MiB/s, ratio ${(raw / enc).toFixed(2)}]`;
    process.stdout.write(`${(bytes / MiB).toFixed(0)} MiB in 5 MiB chunks, best of ${rounds}, AES-256-GCM frames, fsync at the end of each write\n`);
    process.stdout.write(row('write', best(streamW), best(plainW), best(encW)) + '\n');
    process.stdout.write(row('read', best(streamR), best(plainR), best(encR)) + '\n');
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
