// Encrypted objects on local disk (the encrypted-store decision, docs/design.md). Each object has its own random
// data key, wrapped by the master key and kept in the key ring; the file holds only frames
// sealed under that key (see frames.ts).
//
// Appends rewrite the short last frame. So that a crash mid-append can never lose bytes that
// were already acknowledged, the old last frame (ciphertext) goes to a journal first; an
// interrupted append is rolled back to exactly the state before it, at start-up.
import { createHash, randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { KeyedLock } from '../locker.ts';
import { IntegrityError, type MasterKey } from '../master-key.ts';
import type { KeyRing } from '../../domain/ports.ts';
import {
  BlobNotFoundError,
  DuplicateError,
  OffsetMismatchError,
  SizeLimitError,
  type AppendOptions,
  type BlobStore,
  type ByteSource,
} from '../../domain/ports.ts';
import { FRAME_OVERHEAD, FrameCodec, HEADER_BYTES, header, parseHeader } from './frames.ts';

export interface EncryptedFileStoreOptions {
  dir: string;
  masterKey: MasterKey;
  keyRing: KeyRing;
  /** Plaintext bytes per frame. */
  frameSize?: number;
  /** false: leave the journals alone, because the service that owns them is running (the admin CLI). */
  recover?: boolean;
}

/** 128 KiB: large enough that per-frame cipher set-up costs under 15%, small enough for cheap
 *  ranged reads and tail rewrites (measured in bench/store.ts; 64 KiB frames lost ~30%). */
export const DEFAULT_FRAME_SIZE = 128 * 1024;

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const WRITE_BATCH = 1024 * 1024;
const CHECKPOINT = 8 * 1024 * 1024;
const EARLY_SYNC = 2 * 1024 * 1024;
const JOURNAL_MAGIC = Buffer.from('OBJ1');

export class EncryptedFileStore implements BlobStore {
  readonly #dir: string;
  readonly #master: MasterKey;
  readonly #keys: KeyRing;
  readonly #frameSize: number;
  readonly #lock = new KeyedLock();

  private constructor(opts: EncryptedFileStoreOptions) {
    this.#dir = opts.dir;
    this.#master = opts.masterKey;
    this.#keys = opts.keyRing;
    this.#frameSize = opts.frameSize ?? DEFAULT_FRAME_SIZE;
  }

  /** Opens the store and rolls back any append a crash interrupted. */
  static async open(opts: EncryptedFileStoreOptions): Promise<EncryptedFileStore> {
    const store = new EncryptedFileStore(opts);
    await mkdir(opts.dir, { recursive: true, mode: 0o700 });
    if (opts.recover !== false) await store.#recoverAll();
    return store;
  }

  async create(id: string): Promise<void> {
    const p = this.#paths(id);
    await this.#lock.run(id, async () => {
      await mkdir(p.shard, { recursive: true, mode: 0o700 });
      const dataKey = randomBytes(32);
      const codec = new FrameCodec(dataKey, id, this.#frameSize);
      // 'wx' so an existing object is never overwritten; the key goes in first, so a file
      // never exists without its key.
      const fh = await open(p.file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'EEXIST' ? new DuplicateError(`object ${id} exists`, { cause: err }) : err;
      });
      try {
        await this.#keys.put(id, this.#master.wrap(id, dataKey));
        await fh.writev([header(this.#frameSize), codec.seal(Buffer.alloc(0), 0, true)], 0);
        await fh.datasync();
      } catch (err) {
        await fh.close();
        await rm(p.file, { force: true });
        await this.#keys.delete(id);
        throw err;
      }
      await fh.close();
      await fsyncPath(p.shard);
    });
  }

  append(id: string, source: ByteSource, opts: AppendOptions = {}): Promise<number> {
    const p = this.#paths(id);
    return this.#lock.run(id, () => this.#append(id, p, source, opts));
  }

  async #append(id: string, p: Paths, source: ByteSource, opts: AppendOptions): Promise<number> {
    const fh = await openExisting(p.file, 'r+');
    let syncing: Promise<void> | undefined;
    try {
      const codec = await this.#codec(id, fh);
      const { frames, size, lastLength } = codec.layout((await fh.stat()).size);
      if (opts.expectOffset !== undefined && opts.expectOffset !== size) throw new OffsetMismatchError(size, opts.expectOffset);

      const lastIndex = frames - 1;
      // the committed tail frame: what the journal restores if this append is cut off
      let lastOffset = codec.offsetOf(lastIndex);
      let lastCipher = await readExactly(fh, lastOffset, lastLength + FRAME_OVERHEAD);
      const F = codec.frameSize;
      const buf = Buffer.allocUnsafe(F);
      codec.open(lastCipher, lastIndex, true).copy(buf);
      let fill = lastLength;
      let index = lastIndex;
      let writePos = lastOffset;
      let received = 0;
      let sinceCheckpoint = 0;
      let journaled = false;
      let batch: Buffer[] = [];
      let batchBytes = 0;

      // One write in flight while the next batch is sealed: the disk copy runs on libuv's
      // pool while this thread encrypts.
      let inflight: Promise<void> | undefined;
      // Dirty pages are flushed in the background while more bytes arrive, so the datasync
      // that makes an append durable only has the last stretch left to write.
      let unsynced = 0;
      syncing = undefined;
      const startSync = () => {
        if (syncing || unsynced < EARLY_SYNC) return;
        unsynced = 0;
        syncing = fh.datasync().finally(() => (syncing = undefined));
        syncing.catch(() => {});
      };
      const flush = async (drain = false) => {
        if (batch.length) {
          if (!journaled) {
            await writeJournal(p, lastOffset, lastCipher);
            journaled = true;
          }
          await inflight;
          const parts = batch;
          const at = writePos;
          writePos += batchBytes;
          batch = [];
          batchBytes = 0;
          unsynced += parts.reduce((n, b) => n + b.length, 0);
          inflight = writevAll(fh, parts, at).then(startSync);
          inflight.catch(() => {}); // awaited below; never unhandled
        }
        if (drain) {
          const w = inflight;
          inflight = undefined;
          await w;
        }
      };
      const emit = (final: boolean, direct?: Uint8Array) => {
        const plain = direct ?? buf.subarray(0, fill);
        const parts = codec.sealParts(plain, index, final);
        batch.push(...parts);
        batchBytes += plain.length + FRAME_OVERHEAD;
        index++;
        if (!direct) fill = 0;
      };
      // Resumable uploads commit every CHECKPOINT bytes of a long body, so a crash loses at
      // most that much: the frame being built is sealed as final, made durable, and becomes
      // the new committed tail (the next flush rewrites it under a fresh journal).
      const checkpoint = async () => {
        const parts = codec.sealParts(buf.subarray(0, fill), index, true);
        batch.push(...parts);
        batchBytes += fill + FRAME_OVERHEAD;
        await flush(true);
        await fh.truncate(writePos);
        await fh.datasync();
        await dropJournal(p);
        journaled = false;
        lastCipher = Buffer.concat(parts);
        lastOffset = writePos - lastCipher.length;
        writePos = lastOffset;
        sinceCheckpoint = 0;
        checkpointed = true;
      };
      // Undoes the whole append, checkpoints included (a refused resumable append keeps nothing):
      // the tail it started from is journaled again first, so a crash midway restores it too.
      const startOffset = lastOffset;
      const startCipher = lastCipher;
      let checkpointed = false;
      const rollback = async () => {
        await inflight?.catch(() => {});
        if (!journaled && !checkpointed) return;
        if (checkpointed) await writeJournal(p, startOffset, startCipher);
        await fh.truncate(startOffset);
        await fh.write(startCipher, 0, startCipher.length, startOffset);
        await fh.datasync();
        await dropJournal(p);
      };

      try {
        for await (const chunk of source) {
          received += chunk.length;
          sinceCheckpoint += chunk.length;
          if (opts.maxBytes !== undefined && received > opts.maxBytes) throw new SizeLimitError('max', received, opts.maxBytes);
          if (opts.exactBytes !== undefined && received > opts.exactBytes) throw new SizeLimitError('exact', received, opts.exactBytes);
          let off = 0;
          while (off < chunk.length) {
            if (fill === F) {
              emit(false);
              if (batchBytes >= WRITE_BATCH) await flush();
            }
            // whole frames straight from the chunk, without copying them into buf
            if (fill === 0 && chunk.length - off > F) {
              emit(false, chunk.subarray(off, off + F));
              off += F;
              if (batchBytes >= WRITE_BATCH) await flush();
              continue;
            }
            const n = Math.min(F - fill, chunk.length - off);
            buf.set(chunk.subarray(off, off + n), fill);
            fill += n;
            off += n;
          }
          if (opts.keepPartial && sinceCheckpoint >= CHECKPOINT) await checkpoint();
        }
        if (opts.exactBytes !== undefined && received !== opts.exactBytes) throw new SizeLimitError('exact', received, opts.exactBytes);
      } catch (err) {
        if (!opts.keepPartial || err instanceof SizeLimitError || received === 0) {
          batch = [];
          await rollback();
          throw err;
        }
        // resumable uploads keep what arrived before the connection broke
      }
      if (received === 0) return size;
      emit(true);
      await flush(true);
      await fh.truncate(writePos);
      await fh.datasync();
      await dropJournal(p);
      return size + received;
    } finally {
      await (syncing as Promise<void> | undefined)?.catch(() => {});
      await fh.close();
    }
  }

  async size(id: string): Promise<number> {
    const p = this.#paths(id);
    return this.#lock.run(id, () => this.#size(id, p));
  }

  async #size(id: string, p: Paths): Promise<number> {
    const fh = await openExisting(p.file, 'r');
    try {
      const codec = await this.#codec(id, fh);
      const { frames, size, lastLength } = codec.layout((await fh.stat()).size);
      codec.open(await readExactly(fh, codec.offsetOf(frames - 1), lastLength + FRAME_OVERHEAD), frames - 1, true);
      return size;
    } finally {
      await fh.close();
    }
  }

  async exists(id: string): Promise<boolean> {
    const p = this.#paths(id);
    if (!(await this.#keys.get(id))) return false;
    return stat(p.file).then(
      () => true,
      () => false,
    );
  }

  read(id: string, range: { start?: number; end?: number } = {}): Readable {
    const p = this.#paths(id);
    const self = this;
    async function* frames(): AsyncGenerator<Buffer> {
      const fh = await openExisting(p.file, 'r');
      try {
        const codec = await self.#codec(id, fh);
        const fileLength = (await fh.stat()).size;
        const { frames: count, size } = codec.layout(fileLength);
        const start = Math.max(0, Math.min(range.start ?? 0, size));
        const end = Math.max(start, Math.min(range.end ?? size, size));
        const F = codec.frameSize;
        // An empty read of a whole object still authenticates its final frame.
        let first = Math.floor(start / F);
        const last = end > start ? Math.floor((end - 1) / F) : first;
        if (end === start && !(start === 0 && size === 0)) return;
        const perRead = Math.max(1, Math.floor(WRITE_BATCH / codec.stride));
        while (first <= last) {
          const n = Math.min(perRead, last - first + 1);
          const from = codec.offsetOf(first);
          const to = Math.min(codec.offsetOf(first + n), fileLength);
          const cipher = await readExactly(fh, from, to - from);
          for (let i = 0; i < n; i++) {
            const index = first + i;
            const frame = cipher.subarray(i * codec.stride, Math.min((i + 1) * codec.stride, cipher.length));
            let plain = codec.open(frame, index, index === count - 1);
            const frameStart = index * F;
            if (frameStart < start || frameStart + plain.length > end) {
              plain = plain.subarray(Math.max(0, start - frameStart), Math.min(plain.length, end - frameStart));
            }
            if (plain.length) yield plain;
          }
          first += n;
        }
      } finally {
        await fh.close();
      }
    }
    return Readable.from(frames(), { objectMode: false, highWaterMark: 4 * 64 * 1024 });
  }

  async delete(id: string): Promise<boolean> {
    const p = this.#paths(id);
    return this.#lock.run(id, async () => {
      const hadKey = await this.#keys.delete(id);
      const hadFile = await unlink(p.file).then(
        () => true,
        (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? false : Promise.reject(e)),
      );
      await rm(p.journal, { force: true });
      return hadKey || hadFile;
    });
  }

  async #codec(id: string, fh: FileHandle): Promise<FrameCodec> {
    const wrapped = await this.#keys.get(id);
    if (!wrapped) throw new BlobNotFoundError(`no object ${id}`);
    const { frameSize } = parseHeader(await readExactly(fh, 0, HEADER_BYTES));
    return new FrameCodec(this.#master.unwrap(id, wrapped), id, frameSize);
  }

  #paths(id: string): Paths {
    if (!ID.test(id)) throw new BlobNotFoundError('invalid object id');
    const shard = path.join(this.#dir, id.slice(0, 2));
    return { shard, file: path.join(shard, `${id}.obj`), journal: path.join(shard, `${id}.journal`) };
  }

  async #recoverAll(): Promise<void> {
    let shards: Dirent[];
    try {
      shards = await readdir(this.#dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const s of shards) {
      if (!s.isDirectory()) continue;
      const shard = path.join(this.#dir, s.name);
      for (const f of await readdir(shard)) {
        // a journal cut off while it was written aside: the object was not touched under it
        if (f.endsWith('.journal.new')) await rm(path.join(shard, f), { force: true });
        if (!f.endsWith('.journal')) continue;
        const id = f.slice(0, -'.journal'.length);
        if (ID.test(id)) await recover(this.#paths(id));
      }
    }
  }
}

interface Paths {
  shard: string;
  file: string;
  journal: string;
}

async function openExisting(file: string, flags: 'r' | 'r+'): Promise<FileHandle> {
  try {
    return await open(file, flags);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError('no such object');
    throw err;
  }
}

async function writevAll(fh: FileHandle, parts: Buffer[], position: number): Promise<void> {
  let { bytesWritten } = await fh.writev(parts, position);
  const total = parts.reduce((n, b) => n + b.length, 0);
  if (bytesWritten < total) {
    // a short writev is rare on regular files; finish it with plain writes
    const rest = Buffer.concat(parts).subarray(bytesWritten);
    while (bytesWritten < total) {
      const r = await fh.write(rest, bytesWritten - (total - rest.length), total - bytesWritten, position + bytesWritten);
      bytesWritten += r.bytesWritten;
    }
  }
}

async function readExactly(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new IntegrityError('object is shorter than its layout');
    done += bytesRead;
  }
  return buf;
}

/** fsync of a file or a folder (a folder: so that a rename or a new entry in it is durable). */
export async function fsyncPath(file: string): Promise<void> {
  const fh = await open(file, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

// journal: magic | offset u64 | length u32 | old last frame (ciphertext) | sha256 of all before
async function writeJournal(p: Paths, offset: number, frame: Buffer): Promise<void> {
  const head = Buffer.alloc(4 + 8 + 4);
  JOURNAL_MAGIC.copy(head, 0);
  head.writeBigUInt64BE(BigInt(offset), 4);
  head.writeUInt32BE(frame.length, 12);
  const digest = createHash('sha256').update(head).update(frame).digest();
  // written aside and renamed over: a journal that replaces another is never torn
  const aside = `${p.journal}.new`;
  await writeFile(aside, Buffer.concat([head, frame, digest]), { mode: 0o600, flush: true });
  await rename(aside, p.journal);
  await fsyncPath(p.shard);
}

async function dropJournal(p: Paths): Promise<void> {
  await unlink(p.journal);
  await fsyncPath(p.shard);
}

async function recover(p: Paths): Promise<void> {
  const j = await readFile(p.journal);
  const valid =
    j.length >= 16 + 32 &&
    j.subarray(0, 4).equals(JOURNAL_MAGIC) &&
    j.length === 16 + j.readUInt32BE(12) + 32 &&
    createHash('sha256').update(j.subarray(0, j.length - 32)).digest().equals(j.subarray(j.length - 32));
  // A torn journal (only a file store older than the rename) means the crash came before the object itself was touched.
  if (valid) {
    const offset = Number(j.readBigUInt64BE(4));
    const frame = j.subarray(16, j.length - 32);
    const fh = await open(p.file, 'r+').catch(() => undefined);
    if (fh) {
      try {
        await fh.truncate(offset);
        await fh.write(frame, 0, frame.length, offset);
        await fh.datasync();
      } finally {
        await fh.close();
      }
    }
  }
  await dropJournal(p);
}
