// Encrypted objects in an S3-compatible object store (scale-out). The store only ever sees
// ciphertext: the same AES-256-GCM frames as the file store (frames.ts), under the same kind of
// per-object data key, wrapped by the master key and kept in the key ring.
//
// An object is a run of immutable parts, listed in the database's part index (PartIndex):
//   part 0 (written by create): header (version, frame size) | one empty final frame; kept in
//     the index.
//   part n >= 1 (written by an append): whole frames, the last one flagged final-of-part; an
//     object in the store under a fresh name, or, while the object's ciphertext stays within
//     `inlineBytes`, kept in the index (a small object then costs the store no request at all).
// Every frame's associated data is the file format's (version, object id, frame index within
// the part, final flag) plus a context binding the frame size, the part number and the
// plaintext offset where the part starts (the sum of every earlier part). So a flipped byte, a
// part swapped, moved to another object or cut short all fail authentication.
//
// The index is the authority on which parts exist and how long they are: a read needs no
// listing, a size no request. Every object in the store has a row (delete finds them without a
// listing); a crash leaves only incomplete rows at the end, which reads ignore and the next
// append or delete clears.
//
// An append is a PartWriter (part-writer.ts: its states and crash-safety rules). Without
// keepPartial it is one part, written by a multipart upload when it is large, so it is atomic:
// a failure withdraws it. A resumable append (keepPartial) completes a part every `partBytes`,
// so a crash loses at most the parts in flight; if it then fails on a size limit, the parts it
// wrote are withdrawn again (so does any append when a write to the store fails). It keeps up
// to `partsInFlight` parts (or upload parts) being written while it seals the next, so it holds
// that many parts' ciphertext in memory at most; it returns, or is withdrawn, only once every
// write it began has settled.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  HeadBucketCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  BlobNotFoundError,
  DuplicateError,
  SizeLimitError,
  type AppendOptions,
  type BlobStore,
  type ByteSource,
  type KeyRing,
  type Locker,
  type PartIndex,
  type StoredPart,
} from '../../domain/ports.ts';
import { ProcessLocker } from '../locker.ts';
import { IntegrityError, type MasterKey } from '../master-key.ts';
import { FRAME_OVERHEAD, HEADER_BYTES, header, parseHeader } from './frames.ts';
import { PartCache } from './part-cache.ts';
import { clearParts, partCodec, PartWriter, type PartTarget, type PartWriterLimits } from './part-writer.ts';

/** Plaintext bytes per frame: the file store's default (128 KiB). */
export const S3_DEFAULT_FRAME_SIZE = 128 * 1024;
/** Ciphertext per part object (resumable appends) and per multipart-upload part. */
export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;
/** Ciphertext an object may have in the index before its parts go to the store (MinIO inlines up to 128 KiB too). */
export const DEFAULT_INLINE_BYTES = 128 * 1024;
/** Part objects this process keeps of what it wrote or read whole (ciphertext). */
export const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;
/**
 * Parts an append keeps being written to the store while it seals the next: a round trip to the
 * store takes far longer than sealing a part, and the store takes parts in parallel. Each holds
 * one part's ciphertext in memory.
 */
export const DEFAULT_PARTS_IN_FLIGHT = 4;
/** S3's smallest multipart-upload part (all but the last). */
const MIN_UPLOAD_PART = 5 * 1024 * 1024;
const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const HEAD_BYTES = HEADER_BYTES + FRAME_OVERHEAD;

export interface BlobUrl {
  bucket: string;
  /** undefined: the provider's own endpoint (AWS). */
  endpoint: string | undefined;
  region: string;
  /** Key prefix of every object, ending in '/' when set. */
  prefix?: string;
}

/** `s3://bucket[/prefix]?endpoint=http://127.0.0.1:9000&region=us-east-1` */
export function parseBlobUrl(url: string): BlobUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`not a blob store URL: ${url}`);
  }
  if (u.protocol !== 's3:') throw new Error(`blob store URL must start with s3:// (got ${u.protocol})`);
  const bucket = decodeURIComponent(u.hostname);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`invalid bucket name "${bucket}"`);
  const endpoint = u.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\//.test(endpoint)) throw new Error('the endpoint must be an http(s) URL');
  const region = u.searchParams.get('region') || 'us-east-1';
  const path = decodeURIComponent(u.pathname).replace(/^\/+/, '');
  const out: BlobUrl = { bucket, endpoint, region };
  if (path) out.prefix = path.endsWith('/') ? path : `${path}/`;
  return out;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Credentials given, or the standard AWS variables; never the SDK's chain (it may call out to metadata services). */
function credentialsFrom(given: S3Credentials | undefined, env: NodeJS.ProcessEnv): S3Credentials {
  if (given) return given;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('S3 blob store: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass credentials');
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

/** A client set up for S3-compatible stores (path-style, plain bodies, Content-MD5 on DeleteObjects). */
export function makeS3Client(target: Pick<BlobUrl, 'endpoint' | 'region'>, credentials?: S3Credentials, env: NodeJS.ProcessEnv = process.env): S3Client {
  const client = new S3Client({
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    region: target.region,
    forcePathStyle: true,
    credentials: credentialsFrom(credentials, env),
    // otherwise bodies are sent aws-chunked with trailing checksums, which Swift answers with 501
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'DeleteObjectsCommand') {
        const req = args.request as { headers?: Record<string, string>; body?: unknown };
        if (req.headers && (typeof req.body === 'string' || req.body instanceof Uint8Array)) {
          req.headers['content-md5'] = createHash('md5').update(req.body).digest('base64');
        }
      }
      return next(args);
    },
    { step: 'build', name: 'obscuraContentMd5' },
  );
  return client;
}

export interface S3BlobStoreOptions {
  /** `s3://bucket[/prefix]?endpoint=...&region=...` */
  url: string;
  masterKey: MasterKey;
  keyRing: KeyRing;
  /** Where each object's parts are (in the same database as the key ring). */
  parts: PartIndex;
  /** Default: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. */
  credentials?: S3Credentials;
  /** A client to use instead of one made from the URL (the bucket and prefix still come from it). */
  client?: S3Client;
  /** Serialises writes to one object; default: in this process only. */
  locker?: Locker;
  /** Plaintext bytes per frame of new objects. */
  frameSize?: number;
  /** Ciphertext bytes per part object / upload part (at least 5 MiB). */
  partBytes?: number;
  /** Ciphertext an object may keep in the index; 0: every data part in the store. */
  inlineBytes?: number;
  /** Bytes of part objects kept in memory after this process wrote or read them; 0: none. */
  cacheBytes?: number;
  /** Parts (or upload parts) an append keeps being written while it seals the next; 1: one at a time. */
  partsInFlight?: number;
}

interface Part {
  no: number;
  objectKey?: string;
  body?: Buffer;
  /** Plaintext offset of the part's first byte. */
  start: number;
  plain: number;
  cipher: number;
  frames: number;
}

interface Layout {
  dataKey: Buffer;
  frameSize: number;
  parts: Part[];
  size: number;
  /** Ciphertext of the data parts. */
  cipher: number;
  /** Incomplete rows after the last part: writes a crash or a failed rollback left. */
  stale: StoredPart[];
}

export class S3BlobStore implements BlobStore {
  readonly #s3: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #master: MasterKey;
  readonly #keys: KeyRing;
  readonly #parts: PartIndex;
  readonly #lock: Locker;
  readonly #frameSize: number;
  readonly #cache: PartCache;
  /** The bucket and the index, as the part writer and #clear use them. */
  readonly #target: PartTarget;
  readonly #limits: PartWriterLimits;

  constructor(opts: S3BlobStoreOptions) {
    const target = parseBlobUrl(opts.url);
    this.#s3 = opts.client ?? makeS3Client(target, opts.credentials);
    this.#bucket = target.bucket;
    this.#prefix = target.prefix ?? '';
    this.#master = opts.masterKey;
    this.#keys = opts.keyRing;
    this.#parts = opts.parts;
    this.#lock = opts.locker ?? new ProcessLocker();
    this.#frameSize = opts.frameSize ?? S3_DEFAULT_FRAME_SIZE;
    const partBytes = Math.max(opts.partBytes ?? DEFAULT_PART_BYTES, MIN_UPLOAD_PART + this.#frameSize + FRAME_OVERHEAD);
    this.#cache = new PartCache(opts.cacheBytes ?? DEFAULT_CACHE_BYTES, partBytes);
    this.#target = { s3: this.#s3, bucket: this.#bucket, prefix: this.#prefix, parts: this.#parts, cache: this.#cache };
    this.#limits = {
      partBytes,
      inlineBytes: opts.inlineBytes ?? DEFAULT_INLINE_BYTES,
      partsInFlight: Math.max(1, Math.floor(opts.partsInFlight ?? DEFAULT_PARTS_IN_FLIGHT)),
    };
  }

  get client(): S3Client {
    return this.#s3;
  }

  /**
   * At start: the bucket answers with these credentials, or is made (a fresh store). Refused
   * credentials or an unreachable endpoint stop the start here, not at the first upload.
   */
  async ensureBucket(): Promise<void> {
    try {
      await this.#s3.send(new HeadBucketCommand({ Bucket: this.#bucket }));
      return;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status !== 404) throw new Error(`the blob store's bucket cannot be reached (${status ? `HTTP ${status}` : (err as Error).name}): check OBSCURA_BLOB_URL and the AWS_* credentials`);
    }
    await this.#s3.send(new CreateBucketCommand({ Bucket: this.#bucket }));
  }

  async create(id: string): Promise<void> {
    checkId(id);
    await this.#lock.run(id, async () => {
      // ids are random: only the key ring can already hold one
      if (await this.#keys.get(id)) {
        throw new DuplicateError(`object ${id} exists`);
      }
      const dataKey = randomBytes(32);
      const codec = partCodec(dataKey, id, this.#frameSize, 0, 0);
      // the key goes in first, so a part never exists without its key
      await this.#keys.put(id, this.#master.wrap(id, dataKey));
      try {
        const body = Buffer.concat([header(this.#frameSize), codec.seal(Buffer.alloc(0), 0, true)]);
        await this.#parts.add(id, { no: 0, bytes: body.length, body, complete: true });
      } catch (err) {
        await this.#keys.delete(id);
        throw err;
      }
    });
  }

  async append(id: string, source: ByteSource, opts: AppendOptions = {}): Promise<number> {
    checkId(id);
    return this.#lock.run(id, (hold) => this.#append(id, source, opts, hold.lost));
  }

  async #append(id: string, source: ByteSource, opts: AppendOptions, lost: AbortSignal): Promise<number> {
    const L = await this.#layout(id);
    const writer = await PartWriter.open(
      this.#target,
      id,
      { dataKey: L.dataKey, frameSize: L.frameSize, lastPart: L.parts[L.parts.length - 1]!.no, size: L.size, cipher: L.cipher, stale: L.stale },
      { ...this.#limits, keepPartial: opts.keepPartial === true, ...(opts.expectOffset !== undefined ? { expectOffset: opts.expectOffset } : {}), lost },
    );
    let received = 0;
    try {
      for await (const chunk of source) {
        received += chunk.length;
        if (opts.maxBytes !== undefined && received > opts.maxBytes) throw new SizeLimitError('max', received, opts.maxBytes);
        if (opts.exactBytes !== undefined && received > opts.exactBytes) throw new SizeLimitError('exact', received, opts.exactBytes);
        await writer.write(chunk);
      }
      if (opts.exactBytes !== undefined && received !== opts.exactBytes) throw new SizeLimitError('exact', received, opts.exactBytes);
    } catch (err) {
      if (opts.keepPartial !== true || writer.state.kind === 'failed' || err instanceof SizeLimitError || received === 0) {
        await writer.abort();
        throw err;
      }
      // resumable uploads keep what arrived before the connection broke
    }
    try {
      return await writer.commit();
    } catch (err) {
      await writer.abort();
      throw err;
    }
  }

  async size(id: string): Promise<number> {
    checkId(id);
    // under the object's lock: an append on any instance ends (its last part committed or withdrawn) first
    return this.#lock.run(id, async () => (await this.#layout(id)).size);
  }

  async exists(id: string): Promise<boolean> {
    if (!ID.test(id)) return false;
    if (!(await this.#keys.get(id))) return false;
    const first = (await this.#parts.list(id))[0];
    return first?.no === 0 && first.complete;
  }

  read(id: string, range: { start?: number; end?: number } = {}): Readable {
    const self = this;
    async function* frames(): AsyncGenerator<Buffer> {
      checkId(id);
      const L = await self.#layout(id);
      const { size, frameSize: F } = L;
      const stride = F + FRAME_OVERHEAD;
      const start = Math.max(0, Math.min(range.start ?? 0, size));
      const end = Math.max(start, Math.min(range.end ?? size, size));
      // (an empty object's only frame, in part 0, was authenticated by #layout)
      if (end === start) return;
      for (const p of L.parts) {
        if (p.plain === 0 || p.start + p.plain <= start || p.start >= end) continue;
        const first = Math.floor((Math.max(start, p.start) - p.start) / F);
        const last = Math.floor((Math.min(end, p.start + p.plain) - 1 - p.start) / F);
        const from = first * stride;
        const to = Math.min((last + 1) * stride, p.cipher);
        const codec = partCodec(L.dataKey, id, F, p.no, p.start);
        const frameLength = (i: number) => (i < p.frames - 1 ? stride : p.cipher - (p.frames - 1) * stride);
        const whole = p.body ?? self.#cache.get(p.objectKey!);
        const body = whole ? [whole.subarray(from, to)] : await self.#get(p.objectKey!, from, to, p.cipher);
        let index = first;
        let pending: Buffer[] = [];
        let pendingLength = 0;
        try {
          for await (const c of body) {
            pending.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
            pendingLength += c.byteLength;
            while (index <= last && pendingLength >= frameLength(index)) {
              const need = frameLength(index);
              const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingLength);
              const frame = joined.subarray(0, need);
              const rest = joined.subarray(need);
              pending = rest.length ? [rest] : [];
              pendingLength = rest.length;
              let plain = codec.open(frame, index, index === p.frames - 1);
              const frameStart = p.start + index * F;
              if (frameStart < start || frameStart + plain.length > end) {
                plain = plain.subarray(Math.max(0, start - frameStart), Math.min(plain.length, end - frameStart));
              }
              index++;
              if (plain.length) yield plain;
            }
          }
        } finally {
          (body as { destroy?: () => void }).destroy?.();
        }
        if (index !== last + 1 || pendingLength !== 0) throw new IntegrityError(`part ${p.no} is not the length it was recorded with`);
      }
    }
    return Readable.from(frames(), { objectMode: false, highWaterMark: 4 * 64 * 1024 });
  }

  async delete(id: string): Promise<boolean> {
    checkId(id);
    return this.#lock.run(id, async () => {
      // the key first: from here on no byte of the object can be read, whatever else fails
      const hadKey = await this.#keys.delete(id);
      const rows = await this.#parts.list(id);
      await this.#clear(id, rows);
      return hadKey || rows.length > 0;
    });
  }

  /**
   * Aborts multipart uploads begun before `before` (ms) and never completed or aborted (an
   * instance that died in the middle of a large append): invisible, but billed and kept by
   * the store until then. Returns how many.
   */
  async sweep(before: number): Promise<number> {
    let aborted = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const r = await this.#s3.send(
        new ListMultipartUploadsCommand({ Bucket: this.#bucket, Prefix: this.#prefix || undefined, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
      );
      for (const u of r.Uploads ?? []) {
        if (!u.Key || !u.UploadId || !u.Initiated || u.Initiated.getTime() >= before) continue;
        await this.#s3.send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: u.Key, UploadId: u.UploadId }));
        aborted++;
      }
      keyMarker = r.IsTruncated ? r.NextKeyMarker : undefined;
      uploadIdMarker = r.IsTruncated ? r.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return aborted;
  }

  /** Deletes the parts' objects, then their rows (a failure leaves the rows, for the next try). */
  #clear(id: string, parts: StoredPart[]): Promise<void> {
    return clearParts(this.#target, id, parts);
  }

  /** The object's parts as the index lists them, checked: contiguous numbers, plausible lengths, part 0 authenticated. */
  async #layout(id: string): Promise<Layout> {
    const wrapped = await this.#keys.get(id);
    if (!wrapped) throw new BlobNotFoundError(`no object ${id}`);
    const rows = await this.#parts.list(id);
    let end = rows.length;
    while (end > 0 && !rows[end - 1]!.complete) end--;
    // a key without a complete part 0: a create that never finished
    if (end === 0) throw new BlobNotFoundError(`no object ${id}`);
    const dataKey = this.#master.unwrap(id, wrapped);
    const head = rows[0]!;
    if (head.no !== 0 || !head.body || head.body.length !== HEAD_BYTES) throw new IntegrityError(`part 0 of ${id} is not a header`);
    const F = parseHeader(head.body).frameSize;
    const empty = partCodec(dataKey, id, F, 0, 0).open(head.body.subarray(HEADER_BYTES), 0, true);
    if (empty.length !== 0) throw new IntegrityError('part 0 is not empty');
    const stride = F + FRAME_OVERHEAD;
    const parts: Part[] = [{ no: 0, body: head.body, start: 0, plain: 0, cipher: HEAD_BYTES, frames: 1 }];
    let at = 0;
    let cipher = 0;
    for (let i = 1; i < end; i++) {
      const r = rows[i]!;
      if (r.no !== i) throw new IntegrityError(`part ${i} of ${id} is missing`);
      if (!r.complete) throw new IntegrityError(`part ${i} of ${id} is incomplete`);
      if (r.body ? r.body.length !== r.bytes : !r.objectKey) throw new IntegrityError(`part ${i} of ${id} is recorded wrongly`);
      const frames = Math.ceil(r.bytes / stride);
      const lastCipher = r.bytes - (frames - 1) * stride;
      if (frames < 1 || lastCipher <= FRAME_OVERHEAD) throw new IntegrityError(`part ${i} of ${id} is truncated`);
      const plain = (frames - 1) * F + lastCipher - FRAME_OVERHEAD;
      parts.push({ no: i, ...(r.objectKey ? { objectKey: r.objectKey } : { body: r.body! }), start: at, plain, cipher: r.bytes, frames });
      at += plain;
      cipher += r.bytes;
    }
    return { dataKey, frameSize: F, parts, size: at, cipher, stale: rows.slice(end) };
  }

  /** Bytes [from, to) of a part object `length` long; a whole part read is kept in the cache. */
  async #get(key: string, from: number, to: number, length: number): Promise<AsyncIterable<Uint8Array>> {
    try {
      const r = await this.#s3.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key, Range: `bytes=${from}-${to - 1}` }));
      if (!r.Body) throw new IntegrityError(`part ${key} has no body`);
      const body = r.Body as AsyncIterable<Uint8Array>;
      if (from !== 0 || to !== length) return body;
      const cache = this.#cache;
      // passed on as it arrives, and kept once it all came (and only then: a cut read keeps nothing)
      const kept = (async function* () {
        const chunks: Uint8Array[] = [];
        let n = 0;
        for await (const c of body) {
          chunks.push(c);
          n += c.length;
          yield c;
        }
        if (n === length) cache.put(key, Buffer.concat(chunks, n));
      })();
      return Object.assign(kept, { destroy: () => (body as { destroy?: () => void }).destroy?.() });
    } catch (err) {
      if (notFound(err)) throw new IntegrityError(`part ${key} vanished`);
      throw err;
    }
  }
}

function checkId(id: string): void {
  if (!ID.test(id)) throw new BlobNotFoundError('invalid object id');
}

function notFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
