// The S3 store's append, as a writer of one object's next parts with explicit states:
//
//   buffering --(a large non-resumable part sends its first upload part)--> uploading
//   buffering | uploading --commit()--> committed           (every part written and complete)
//   buffering | uploading --a write to the bucket or the index fails--> failed
//   buffering | uploading | failed --abort()--> aborted     (the object is as it was)
//
// Crash-safety rules (what a reader, a retry or a crash at any moment can rely on):
//   1. The index is the authority: a part counts once its row is complete, and the object's
//      size (the committed offset) is the sum of the complete rows, a run from part 0.
//   2. A part's row is claimed (incomplete) before any of its bytes go to the bucket, and
//      completed only after its object is whole there, in part order. So every object in the
//      bucket has a row, and nothing half-written is ever counted or read: a crash leaves only
//      incomplete rows at the end, which reads ignore and the next writer clears (open()).
//   3. Every part object has a fresh name: nothing stored is rewritten, even by a writer that
//      lost its lock; and once the lock is lost (`lost`), nothing more is claimed or completed.
//   4. A non-resumable append is one part (a multipart upload while it is large, invisible until
//      completed): it commits whole or not at all. A resumable one completes a part every
//      `partBytes`, so a crash loses at most the parts in flight; a retry at the committed
//      offset resumes after them, a wrong offset is refused before anything is touched.
//   5. abort() waits for every write begun, then withdraws this writer's parts last first (the
//      object is a valid run of parts at every moment), then deletes their bytes; what it
//      cannot delete stays as incomplete rows, for the next writer or delete to clear.
import { randomBytes } from 'node:crypto';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { OffsetMismatchError, type PartIndex, type StoredPart } from '../../domain/ports.ts';
import { FRAME_OVERHEAD, FrameCodec } from './frames.ts';
import type { PartCache } from './part-cache.ts';

/** Frames sealed between two turns of the event loop while parts are in flight (1 MiB of 128 KiB frames). */
const YIELD_FRAMES = 8;
const PART_DIGITS = 8;
const CONTEXT_TAG = Buffer.from('S3P1');

/** Where an object's parts go: objects in a bucket, listed by the database's part index. */
export interface PartTarget {
  s3: S3Client;
  bucket: string;
  /** Key prefix of every object ('' or ending in '/'). */
  prefix: string;
  parts: PartIndex;
  /** Keeps a copy of each part object written. */
  cache: PartCache;
}

export interface PartWriterLimits {
  /** Ciphertext per part object (resumable) or upload part. */
  partBytes: number;
  /** Ciphertext an object may keep in the index. */
  inlineBytes: number;
  /** Part writes kept in flight while the next is sealed (at least 1). */
  partsInFlight: number;
}

/** The object as the index lists it when the writer opens: what it appends after. */
export interface PartWriterStart {
  dataKey: Buffer;
  frameSize: number;
  /** The number of the last complete part. */
  lastPart: number;
  /** The committed offset: plaintext bytes of the complete parts. */
  size: number;
  /** Ciphertext of the complete data parts. */
  cipher: number;
  /** Incomplete rows after the last complete part (a crash's leftovers): cleared on open. */
  stale: StoredPart[];
}

export type PartWriterState =
  /** Sealing the current part's frames in memory; no row is claimed for it yet. */
  | { kind: 'buffering' }
  /** The current (non-resumable, large) part's row is claimed and a multipart upload is open. */
  | { kind: 'uploading'; upload: Upload }
  /** A write to the bucket or the index failed: nothing more is written, only abort() is left (which also ends `upload`). */
  | { kind: 'failed'; error: unknown; upload?: Upload }
  /** Every part written and complete: the object's new size. */
  | { kind: 'committed'; size: number }
  /** Every part this writer wrote withdrawn: the object is as it was. */
  | { kind: 'aborted' };

/** A multipart upload open for the current part. */
export interface Upload {
  key: string;
  uploadId: string;
  count: number;
  parts: CompletedPart[];
}

/** The part being sealed. */
interface CurrentPart {
  no: number;
  /** Plaintext offset of its first byte. */
  start: number;
  codec: FrameCodec;
  /** Frames sealed, plaintext and ciphertext bytes so far (ciphertext: of its upload parts sent). */
  frames: number;
  plain: number;
  cipher: number;
}

/** A part (or upload part) being written while the next is sealed; it owns its buffer until it settles. */
interface InFlight {
  settled: Promise<void>;
  failure?: { err: unknown };
  buffer: Buffer;
}

export class PartWriter {
  readonly #t: PartTarget;
  readonly #id: string;
  readonly #start: PartWriterStart;
  readonly #keepPartial: boolean;
  readonly #lost: AbortSignal;
  readonly #inlineBytes: number;
  readonly #partsInFlight: number;
  readonly #stride: number;
  /** Frames per part object (resumable) or upload part. */
  readonly #segFrames: number;
  readonly #segCapacity: number;

  #state: PartWriterState = { kind: 'buffering' };
  #part: CurrentPart;
  /** Ciphertext of the object's data parts, complete or being written. */
  #storedCipher: number;
  /** Plaintext bytes this writer was given. */
  #bytes = 0;
  /** The plaintext frame being filled. */
  readonly #frame: Buffer;
  #fill = 0;
  // The ciphertext of the part (resumable) or upload part (otherwise) being sealed; the first is
  // grown on demand up to #segFrames frames, so a small append does not take 8 MiB.
  #seg: Buffer;
  #segLength = 0;
  /** Frames sealed into #seg. */
  #segCount = 0;
  /** Rows claimed whose objects are being written. */
  readonly #claimed: StoredPart[] = [];
  /** Parts this writer completed: withdrawn if it aborts. */
  readonly #written: StoredPart[] = [];
  /** Oldest first; at most #partsInFlight: the memory they hold. */
  readonly #inFlight: InFlight[] = [];
  readonly #spare: Buffer[] = [];
  /** Settles when the last resumable part's row is complete; rejects when it could not be. */
  #lastCompleted: Promise<void> = Promise.resolve();

  /**
   * Clears what a crash left after the last complete part, then refuses an `expectOffset` that is
   * not the committed offset (before anything of this append is written).
   */
  static async open(
    target: PartTarget,
    id: string,
    start: PartWriterStart,
    opts: PartWriterLimits & { keepPartial?: boolean; expectOffset?: number; lost?: AbortSignal },
  ): Promise<PartWriter> {
    if (start.stale.length) await clearParts(target, id, start.stale);
    if (opts.expectOffset !== undefined && opts.expectOffset !== start.size) throw new OffsetMismatchError(start.size, opts.expectOffset);
    return new PartWriter(target, id, start, opts);
  }

  private constructor(target: PartTarget, id: string, start: PartWriterStart, opts: PartWriterLimits & { keepPartial?: boolean; lost?: AbortSignal }) {
    this.#t = target;
    this.#id = id;
    this.#start = start;
    this.#keepPartial = opts.keepPartial === true;
    this.#lost = opts.lost ?? new AbortController().signal;
    this.#inlineBytes = opts.inlineBytes;
    this.#partsInFlight = Math.max(1, Math.floor(opts.partsInFlight));
    const F = start.frameSize;
    this.#stride = F + FRAME_OVERHEAD;
    this.#segFrames = Math.max(1, Math.floor(opts.partBytes / this.#stride));
    this.#segCapacity = this.#segFrames * this.#stride;
    this.#part = this.#newPart(start.lastPart + 1, start.size);
    this.#storedCipher = start.cipher;
    this.#frame = Buffer.allocUnsafe(F);
    this.#seg = Buffer.allocUnsafe(Math.min(this.#segFrames, 2) * this.#stride);
  }

  get state(): PartWriterState {
    return this.#state;
  }

  /**
   * Takes the next bytes. A frame is sealed only once the byte after it arrives, so the last one
   * can be flagged final; a resumable writer also ends its part after a part's worth of frames.
   */
  async write(chunk: Uint8Array): Promise<void> {
    this.#writable();
    const F = this.#start.frameSize;
    let off = 0;
    while (off < chunk.length) {
      if (this.#fill === F) await this.#emitMore();
      // whole frames straight from the chunk, without copying them into the frame buffer
      if (this.#fill === 0 && chunk.length - off > F) {
        await this.#emitMore(chunk.subarray(off, off + F));
        off += F;
        this.#bytes += F;
        continue;
      }
      const n = Math.min(F - this.#fill, chunk.length - off);
      this.#frame.set(chunk.subarray(off, off + n), this.#fill);
      this.#fill += n;
      off += n;
      this.#bytes += n;
    }
  }

  /** Seals the last frame, writes and completes the last part, waits for every write: the new size. */
  async commit(): Promise<number> {
    this.#writable();
    if (this.#bytes > 0) await this.#emit(true, undefined, true);
    const size = this.#start.size + this.#bytes;
    this.#state = { kind: 'committed', size };
    return size;
  }

  /** Withdraws every part this writer wrote or claimed (rule 5). */
  async abort(): Promise<void> {
    if (this.#state.kind === 'committed' || this.#state.kind === 'aborted') throw new Error(`a ${this.#state.kind} writer cannot abort`);
    // nothing is withdrawn or deleted while a write of this writer may still land
    await Promise.all(this.#inFlight.map((e) => e.settled));
    const upload = this.#state.kind === 'uploading' || this.#state.kind === 'failed' ? this.#state.upload : undefined;
    this.#state = { kind: 'aborted' };
    if (upload) {
      // an upload left incomplete is invisible; sweep() reclaims it
      await this.#t.s3.send(new AbortMultipartUploadCommand({ Bucket: this.#t.bucket, Key: upload.key, UploadId: upload.uploadId })).catch(() => {});
    }
    // last first, so the object is a valid run of parts at every moment: withdrawn parts are
    // incomplete rows at the end, which no read counts, then their bytes go
    const undo = [...this.#written, ...this.#claimed].sort((a, b) => b.no - a.no);
    for (const p of undo) {
      if (p.objectKey) await this.#t.parts.withdraw(this.#id, p.no, p.objectKey);
      else await this.#t.parts.remove(this.#id, { no: p.no });
    }
    await clearParts(this.#t, this.#id, undo.filter((p) => p.objectKey)).catch(() => {}); // what stays is cleared by the next writer or delete
  }

  #writable(): void {
    if (this.#state.kind === 'failed') throw this.#state.error;
    if (this.#state.kind === 'committed' || this.#state.kind === 'aborted') throw new Error(`the writer of ${this.#id} is ${this.#state.kind}`);
  }

  #newPart(no: number, start: number): CurrentPart {
    return { no, start, codec: partCodec(this.#start.dataKey, this.#id, this.#start.frameSize, no, start), frames: 0, plain: 0, cipher: 0 };
  }

  #emitMore(direct?: Uint8Array): Promise<void> {
    return this.#emit(this.#keepPartial && this.#segCount + 1 === this.#segFrames, direct);
  }

  /** Seals one frame (the frame buffer's, or `direct`); a part's last frame ends the part. */
  async #emit(final: boolean, direct?: Uint8Array, end = false): Promise<void> {
    const plain = direct ?? this.#frame.subarray(0, this.#fill);
    if (this.#segLength + plain.length + FRAME_OVERHEAD > this.#seg.length) {
      if (this.#segLength === 0 && this.#inFlight.length + this.#spare.length > 0) {
        this.#seg = this.#spare.pop() ?? Buffer.allocUnsafe(this.#segCapacity);
      } else {
        const grown = Buffer.allocUnsafe(Math.min(this.#segCapacity, Math.max(2 * this.#seg.length, this.#segLength + this.#stride)));
        this.#seg.copy(grown, 0, 0, this.#segLength);
        this.#seg = grown;
      }
    }
    const part = this.#part;
    for (const piece of part.codec.sealParts(plain, part.frames, final)) {
      piece.copy(this.#seg, this.#segLength);
      this.#segLength += piece.length;
    }
    part.frames++;
    this.#segCount++;
    part.plain += plain.length;
    if (!direct) this.#fill = 0;
    try {
      if (final) await this.#finishPart(end);
      else if (this.#segCount === this.#segFrames) await this.#shipUploadPart();
      // a source that hands over much at once (or at all times) would otherwise keep the
      // parts in flight from being sent while it is sealed
      else if (this.#inFlight.length && this.#segCount % YIELD_FRAMES === 0) await yieldToIo();
    } catch (err) {
      const upload = this.#state.kind === 'uploading' ? this.#state.upload : undefined;
      this.#state = { kind: 'failed', error: err, ...(upload ? { upload } : {}) };
      throw err;
    }
  }

  /** Writes the part just sealed: in the index while the object is small, else to the bucket. */
  async #finishPart(end: boolean): Promise<void> {
    const part = this.#part;
    if (this.#state.kind === 'uploading') {
      await this.#shipUploadPart();
      await this.#drain();
      const u = this.#state.upload;
      u.parts.sort((a, b) => a.PartNumber! - b.PartNumber!);
      await this.#t.s3.send(
        new CompleteMultipartUploadCommand({ Bucket: this.#t.bucket, Key: u.key, UploadId: u.uploadId, MultipartUpload: { Parts: u.parts } }),
      );
      this.#state = { kind: 'buffering' };
      await this.#completed(this.#claimed[0]!, part.cipher);
    } else if (this.#storedCipher + this.#segLength <= this.#inlineBytes) {
      // (only while every earlier part is in the index too: none is in flight)
      this.#stillHeld();
      const row: StoredPart = { no: part.no, bytes: this.#segLength, body: Buffer.from(this.#seg.subarray(0, this.#segLength)), complete: true };
      await this.#t.parts.add(this.#id, row);
      this.#written.push(row);
      part.cipher = this.#segLength;
      this.#segLength = 0;
      this.#segCount = 0;
    } else {
      const row = await this.#claim();
      const bytes = (part.cipher = this.#segLength);
      // rows are completed in part order, so the complete ones are always a run from part 0
      const before = this.#lastCompleted;
      ({ writing: this.#lastCompleted } = await this.#dispatch(async (Body) => {
        await this.#t.s3.send(new PutObjectCommand({ Bucket: this.#t.bucket, Key: row.objectKey, Body }));
        this.#t.cache.put(row.objectKey!, Body);
        await before;
        await this.#completed(row, bytes);
      }));
    }
    this.#storedCipher += part.cipher;
    this.#part = this.#newPart(part.no + 1, part.start + part.plain);
    if (end) await this.#drain();
  }

  /** Sends the sealed frames as the next upload part of the current part's multipart upload (opened on the first). */
  async #shipUploadPart(): Promise<void> {
    if (this.#state.kind !== 'uploading') {
      const { objectKey: key } = await this.#claim();
      const r = await this.#t.s3.send(new CreateMultipartUploadCommand({ Bucket: this.#t.bucket, Key: key }));
      if (!r.UploadId) throw new Error('the object store returned no upload id');
      this.#state = { kind: 'uploading', upload: { key: key!, uploadId: r.UploadId, count: 0, parts: [] } };
    }
    const u = this.#state.upload;
    const PartNumber = ++u.count;
    this.#part.cipher += this.#segLength;
    await this.#dispatch(async (Body) => {
      const r = await this.#t.s3.send(new UploadPartCommand({ Bucket: this.#t.bucket, Key: u.key, UploadId: u.uploadId, PartNumber, Body }));
      u.parts.push({ PartNumber, ETag: r.ETag });
    });
  }

  /** Hands the sealed bytes to `write`, which runs while the next part is sealed; waits while too many do. */
  async #dispatch(write: (body: Buffer) => Promise<void>): Promise<{ writing: Promise<void> }> {
    // a write already failed: no more are begun
    const failed = this.#inFlight.find((e) => e.failure);
    if (failed) throw failed.failure!.err;
    const entry: InFlight = { settled: Promise.resolve(), buffer: this.#seg };
    const writing = write(this.#seg.subarray(0, this.#segLength));
    entry.settled = writing.then(
      () => {},
      (err: unknown) => {
        entry.failure = { err };
      },
    );
    this.#inFlight.push(entry);
    this.#seg = Buffer.alloc(0); // the next part takes a spare buffer when its first frame is sealed
    this.#segLength = 0;
    this.#segCount = 0;
    while (this.#inFlight.length >= this.#partsInFlight) await this.#settleOldest();
    return { writing };
  }

  async #settleOldest(): Promise<void> {
    const e = this.#inFlight.shift()!;
    await e.settled;
    if (e.buffer.length === this.#segCapacity) this.#spare.push(e.buffer);
    if (e.failure) throw e.failure.err;
  }

  async #drain(): Promise<void> {
    while (this.#inFlight.length) await this.#settleOldest();
  }

  // The object's lock lost (its database session dropped) means another writer may be at work:
  // nothing more is committed. The rows would refuse it anyway (a part number is claimed once,
  // a claim completed only under its own object key); this stops sooner.
  #stillHeld(): void {
    if (this.#lost.aborted) throw new Error(`the lock on object ${this.#id} was lost while writing it`);
  }

  async #claim(): Promise<StoredPart> {
    this.#stillHeld();
    const no = this.#part.no;
    const row: StoredPart = { no, bytes: 0, objectKey: partObjectKey(this.#t.prefix, this.#id, no), complete: false };
    await this.#t.parts.add(this.#id, row);
    this.#claimed.push(row);
    return row;
  }

  async #completed(row: StoredPart, bytes: number): Promise<void> {
    this.#stillHeld();
    if (!(await this.#t.parts.complete(this.#id, row.no, row.objectKey!, bytes))) {
      throw new Error(`part ${row.no} of object ${this.#id} was cleared by another writer`);
    }
    this.#claimed.splice(this.#claimed.indexOf(row), 1);
    this.#written.push({ ...row, bytes, complete: true });
  }
}

/** Deletes the parts' objects, then their rows (a failure leaves the rows, for the next try). */
export async function clearParts(t: PartTarget, id: string, parts: StoredPart[]): Promise<void> {
  const keys = parts.flatMap((p) => (p.objectKey ? [p.objectKey] : []));
  for (const key of keys) t.cache.delete(key);
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    const r = await t.s3.send(new DeleteObjectsCommand({ Bucket: t.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
    if (r.Errors?.length) throw new Error(`could not delete ${r.Errors.length} part(s) of ${id}: ${r.Errors[0]!.Code}`);
  }
  const all = parts.length > 0 && parts[0]!.no === 0;
  if (all) await t.parts.remove(id);
  else for (const p of parts) await t.parts.remove(id, { no: p.no, ...(p.objectKey ? { objectKey: p.objectKey } : {}) });
}

/** A fresh name per part written: an object is never overwritten, even by a writer that lost its lock. */
export function partObjectKey(prefix: string, id: string, no: number): string {
  return `${prefix}${id}/${String(no).padStart(PART_DIGITS, '0')}.${randomBytes(6).toString('hex')}`;
}

/** The codec of one part: its frames' associated data binds the frame size, the part number and its plaintext start. */
export function partCodec(dataKey: Buffer, id: string, frameSize: number, partNo: number, partStart: number): FrameCodec {
  const ctx = Buffer.alloc(CONTEXT_TAG.length + 4 + 4 + 8);
  CONTEXT_TAG.copy(ctx, 0);
  ctx.writeUInt32BE(frameSize, 4);
  ctx.writeUInt32BE(partNo, 8);
  ctx.writeBigUInt64BE(BigInt(partStart), 12);
  return new FrameCodec(dataKey, id, frameSize, ctx);
}
