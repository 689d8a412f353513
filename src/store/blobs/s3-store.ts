// Encrypted objects in an S3-compatible object store (scale-out). The store only ever sees
// ciphertext: the same AES-256-GCM frames as the file store (frames.ts), under the same kind of
// per-object data key, wrapped by the master key and kept in the key ring.
//
// An object is a run of immutable part objects `<prefix><id>/<part, 8 digits>`; nothing is
// ever rewritten:
//   part 0 (written by create): header (version, frame size) | one empty final frame.
//   part n >= 1 (written by an append): whole frames, the last one flagged final-of-part.
// Every frame's associated data is the file format's (version, object id, frame index within
// the part, final flag) plus a context binding the frame size, the part number and the
// plaintext offset where the part starts (the sum of every earlier part). So a flipped byte, a
// part renamed, reordered, dropped from the middle or moved to another object, and a part cut
// short all fail authentication. (Dropping whole parts from the end cannot be told from an
// object that never had them: only an outside record of the size, such as the upload's
// declared length, can catch that.)
//
// An append without keepPartial is one part object written by a multipart upload, so it is
// atomic: a failure aborts it, and a crash leaves only an invisible incomplete upload. A
// resumable append (keepPartial) commits a part object every `partBytes`, so a crash loses at
// most that much; if it then fails on a size limit, the parts it wrote are deleted again.
// At most one part's worth of ciphertext is held in memory.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  HeadBucketCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import {
  BlobNotFoundError,
  OffsetMismatchError,
  SizeLimitError,
  type AppendOptions,
  type BlobStore,
  type ByteSource,
  type KeyRing,
  type Locker,
} from '../../domain/ports.ts';
import { KeyedLock } from '../locker.ts';
import { IntegrityError, type MasterKey } from '../master-key.ts';
import { FRAME_OVERHEAD, FrameCodec, HEADER_BYTES, header, parseHeader } from './frames.ts';

/** Plaintext bytes per frame: the file store's default (128 KiB). */
export const S3_DEFAULT_FRAME_SIZE = 128 * 1024;
/** Ciphertext per part object (resumable appends) and per multipart-upload part. */
export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;
/** Parts whose check is remembered at once (a few hundred bytes each). */
const VERIFIED_MAX = 50_000;
/** S3's smallest multipart-upload part (all but the last). */
const MIN_UPLOAD_PART = 5 * 1024 * 1024;
const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const PART_DIGITS = 8;
const CONTEXT_TAG = Buffer.from('S3P1');

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
}

interface Part {
  no: number;
  key: string;
  /** As the store listed it: the same ETag, the same bytes. */
  etag?: string;
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
}

export class S3BlobStore implements BlobStore {
  readonly #s3: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #master: MasterKey;
  readonly #keys: KeyRing;
  readonly #lock: Locker;
  readonly #frameSize: number;
  readonly #partBytes: number;
  /**
   * Parts this process has authenticated (or written), by key, with their ETag: a part is
   * immutable, so while the store lists the same ETag its check need not be made again. Each
   * check saved is a round trip to the store. Bounded; dropped when the object is deleted.
   */
  readonly #verified = new Map<string, { etag: string; frameSize?: number }>();

  constructor(opts: S3BlobStoreOptions) {
    const target = parseBlobUrl(opts.url);
    this.#s3 = opts.client ?? makeS3Client(target, opts.credentials);
    this.#bucket = target.bucket;
    this.#prefix = target.prefix ?? '';
    this.#master = opts.masterKey;
    this.#keys = opts.keyRing;
    this.#lock = opts.locker ?? new KeyedLock();
    this.#frameSize = opts.frameSize ?? S3_DEFAULT_FRAME_SIZE;
    this.#partBytes = Math.max(opts.partBytes ?? DEFAULT_PART_BYTES, MIN_UPLOAD_PART + this.#frameSize + FRAME_OVERHEAD);
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
      // ids are random: only the key ring can already hold one (parts never outlive their key, see delete)
      if (await this.#keys.get(id)) {
        throw Object.assign(new Error(`object ${id} exists`), { code: 'EEXIST' });
      }
      const dataKey = randomBytes(32);
      const codec = partCodec(dataKey, id, this.#frameSize, 0, 0);
      // the key goes in first, so part objects never exist without their key
      await this.#keys.put(id, this.#master.wrap(id, dataKey));
      try {
        const r = await this.#s3.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: this.#partKey(id, 0),
            Body: Buffer.concat([header(this.#frameSize), codec.seal(Buffer.alloc(0), 0, true)]),
          }),
        );
        if (r.ETag) this.#remember(this.#partKey(id, 0), r.ETag, this.#frameSize);
      } catch (err) {
        await this.#keys.delete(id);
        throw err;
      }
    });
  }

  async append(id: string, source: ByteSource, opts: AppendOptions = {}): Promise<number> {
    checkId(id);
    return this.#lock.run(id, () => this.#append(id, source, opts));
  }

  async #append(id: string, source: ByteSource, opts: AppendOptions): Promise<number> {
    const L = await this.#layout(id);
    await this.#checkTail(id, L);
    const size = L.size;
    if (opts.expectOffset !== undefined && opts.expectOffset !== size) throw new OffsetMismatchError(size, opts.expectOffset);

    const F = L.frameSize;
    const stride = F + FRAME_OVERHEAD;
    const segFrames = Math.max(1, Math.floor(this.#partBytes / stride));
    const keepPartial = opts.keepPartial === true;

    let partNo = L.parts[L.parts.length - 1]!.no + 1;
    let partStart = size;
    let codec = partCodec(L.dataKey, id, F, partNo, partStart);
    let frameIndex = 0; // within the part
    let partPlain = 0;
    // the ciphertext of the current part (resumable) or upload part (otherwise): the only big buffer
    // (grown on demand up to segFrames frames, so a small append does not take 8 MiB)
    let seg = Buffer.allocUnsafe(Math.min(segFrames, 2) * stride);
    let segLength = 0;
    let segFrameCount = 0;
    let upload: { key: string; uploadId: string; parts: CompletedPart[] } | undefined;
    const committed: string[] = [];
    const buf = Buffer.allocUnsafe(F);
    let fill = 0;
    let received = 0;
    let storeFailed = false;

    const shipUploadPart = async (key: string) => {
      if (!upload) {
        const r = await this.#s3.send(new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key: key }));
        if (!r.UploadId) throw new Error('the object store returned no upload id');
        upload = { key, uploadId: r.UploadId, parts: [] };
      }
      const PartNumber = upload.parts.length + 1;
      const r = await this.#s3.send(
        new UploadPartCommand({ Bucket: this.#bucket, Key: key, UploadId: upload.uploadId, PartNumber, Body: seg.subarray(0, segLength) }),
      );
      upload.parts.push({ PartNumber, ETag: r.ETag });
      segLength = 0;
      segFrameCount = 0;
    };
    const finishPart = async () => {
      const key = this.#partKey(id, partNo);
      if (!upload) {
        const r = await this.#s3.send(new PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: seg.subarray(0, segLength) }));
        if (r.ETag) this.#remember(key, r.ETag); // written here, from these frames
      } else {
        await shipUploadPart(key);
        const u = upload;
        const r = await this.#s3.send(
          new CompleteMultipartUploadCommand({ Bucket: this.#bucket, Key: key, UploadId: u.uploadId, MultipartUpload: { Parts: u.parts } }),
        );
        if (r.ETag) this.#remember(key, r.ETag);
        upload = undefined;
      }
      committed.push(key);
      segLength = 0;
      segFrameCount = 0;
      partNo++;
      partStart += partPlain;
      partPlain = 0;
      frameIndex = 0;
      codec = partCodec(L.dataKey, id, F, partNo, partStart);
    };
    const emit = async (final: boolean, direct?: Uint8Array) => {
      const plain = direct ?? buf.subarray(0, fill);
      if (segLength + plain.length + FRAME_OVERHEAD > seg.length) {
        const grown = Buffer.allocUnsafe(Math.min(segFrames * stride, Math.max(2 * seg.length, segLength + stride)));
        seg.copy(grown, 0, 0, segLength);
        seg = grown;
      }
      for (const piece of codec.sealParts(plain, frameIndex, final)) {
        piece.copy(seg, segLength);
        segLength += piece.length;
      }
      frameIndex++;
      segFrameCount++;
      partPlain += plain.length;
      if (!direct) fill = 0;
      try {
        if (final) await finishPart();
        else if (segFrameCount === segFrames) await shipUploadPart(this.#partKey(id, partNo));
      } catch (err) {
        storeFailed = true;
        throw err;
      }
    };
    // A frame is sealed only once the byte after it arrives, so the last one can be flagged
    // final; a resumable append also ends its part after `segFrames` frames.
    const emitMore = (direct?: Uint8Array) => emit(keepPartial && segFrameCount + 1 === segFrames, direct);
    const rollback = async () => {
      if (upload) {
        const u = upload;
        upload = undefined;
        // an upload left incomplete is invisible; the bucket's lifecycle rule reclaims it
        await this.#s3.send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: u.key, UploadId: u.uploadId })).catch(() => {});
      }
      // last first, so the object is a valid run of parts at every moment
      for (const key of committed.reverse()) await this.#s3.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    };

    try {
      for await (const chunk of source) {
        received += chunk.length;
        if (opts.maxBytes !== undefined && received > opts.maxBytes) throw new SizeLimitError('max', received, opts.maxBytes);
        if (opts.exactBytes !== undefined && received > opts.exactBytes) throw new SizeLimitError('exact', received, opts.exactBytes);
        let off = 0;
        while (off < chunk.length) {
          if (fill === F) await emitMore();
          // whole frames straight from the chunk, without copying them into buf
          if (fill === 0 && chunk.length - off > F) {
            await emitMore(chunk.subarray(off, off + F));
            off += F;
            continue;
          }
          const n = Math.min(F - fill, chunk.length - off);
          buf.set(chunk.subarray(off, off + n), fill);
          fill += n;
          off += n;
        }
      }
      if (opts.exactBytes !== undefined && received !== opts.exactBytes) throw new SizeLimitError('exact', received, opts.exactBytes);
    } catch (err) {
      if (!keepPartial || storeFailed || err instanceof SizeLimitError || received === 0) {
        await rollback();
        throw err;
      }
      // resumable uploads keep what arrived before the connection broke
    }
    if (received === 0) return size;
    try {
      await emit(true);
    } catch (err) {
      await rollback();
      throw err;
    }
    return size + received;
  }

  async size(id: string): Promise<number> {
    checkId(id);
    return this.#lock.run(id, async () => {
      const L = await this.#layout(id);
      await this.#checkTail(id, L);
      return L.size;
    });
  }

  async exists(id: string): Promise<boolean> {
    if (!ID.test(id)) return false;
    if (!(await this.#keys.get(id))) return false;
    return this.#head(this.#partKey(id, 0));
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
        const res = await self.#s3.send(new GetObjectCommand({ Bucket: self.#bucket, Key: p.key, Range: `bytes=${from}-${to - 1}` }));
        const body = res.Body as (AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
        if (!body) throw new IntegrityError(`part ${p.no} has no body`);
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
          body.destroy?.();
        }
        if (index !== last + 1 || pendingLength !== 0) throw new IntegrityError(`part ${p.no} is not the length it was listed with`);
      }
    }
    return Readable.from(frames(), { objectMode: false, highWaterMark: 4 * 64 * 1024 });
  }

  async delete(id: string): Promise<boolean> {
    checkId(id);
    return this.#lock.run(id, async () => {
      const hadKey = await this.#keys.delete(id);
      const keys = (await this.#list(id)).map((o) => o.key);
      for (const key of keys) this.#verified.delete(key);
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000);
        const r = await this.#s3.send(
          new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
        );
        if (r.Errors?.length) throw new Error(`could not delete ${r.Errors.length} part(s) of ${id}: ${r.Errors[0]!.Code}`);
      }
      return hadKey || keys.length > 0;
    });
  }

  /** The object's parts as listed, checked: contiguous numbers, plausible lengths, part 0 authenticated. */
  async #layout(id: string): Promise<Layout> {
    const wrapped = await this.#keys.get(id);
    if (!wrapped) throw new BlobNotFoundError(`no object ${id}`);
    const listed = await this.#list(id);
    if (!listed.length) throw new BlobNotFoundError(`no object ${id}`);
    const dataKey = this.#master.unwrap(id, wrapped);
    const headLength = HEADER_BYTES + FRAME_OVERHEAD;
    const known = listed[0]!.etag !== undefined ? this.#verified.get(listed[0]!.key) : undefined;
    let F: number;
    if (known && known.etag === listed[0]!.etag && known.frameSize !== undefined && listed[0]!.size === headLength) F = known.frameSize;
    else {
      const head = await this.#get(this.#partKey(id, 0));
      if (head.length !== headLength) throw new IntegrityError('part 0 has the wrong length');
      F = parseHeader(head).frameSize;
      const empty = partCodec(dataKey, id, F, 0, 0).open(head.subarray(HEADER_BYTES), 0, true);
      if (empty.length !== 0) throw new IntegrityError('part 0 is not empty');
      if (listed[0]!.etag) this.#remember(listed[0]!.key, listed[0]!.etag, F);
    }
    const stride = F + FRAME_OVERHEAD;
    const parts: Part[] = [];
    let at = 0;
    for (const [i, o] of listed.entries()) {
      const no = Number(o.key.slice(o.key.lastIndexOf('/') + 1));
      if (no !== i) throw new IntegrityError(`part ${i} of ${id} is missing`);
      if (no === 0) {
        if (o.size !== headLength) throw new IntegrityError('part 0 changed');
        parts.push({ no, key: o.key, etag: o.etag, start: 0, plain: 0, cipher: o.size, frames: 1 });
        continue;
      }
      const frames = Math.ceil(o.size / stride);
      const lastCipher = o.size - (frames - 1) * stride;
      if (frames < 1 || lastCipher <= FRAME_OVERHEAD) throw new IntegrityError(`part ${no} of ${id} is truncated`);
      const plain = (frames - 1) * F + lastCipher - FRAME_OVERHEAD;
      parts.push({ no, key: o.key, etag: o.etag, start: at, plain, cipher: o.size, frames });
      at += plain;
    }
    return { dataKey, frameSize: F, parts, size: at };
  }

  /** Authenticates the last frame of the last part, so a size is never reported for bytes that are not there. */
  async #checkTail(id: string, L: Layout): Promise<void> {
    const p = L.parts[L.parts.length - 1]!;
    if (p.no === 0) return; // authenticated by #layout
    if (p.etag !== undefined && this.#verified.get(p.key)?.etag === p.etag) return; // these very bytes were checked (or written) here
    const stride = L.frameSize + FRAME_OVERHEAD;
    const from = (p.frames - 1) * stride;
    const frame = await this.#get(p.key, from, p.cipher);
    if (frame.length !== p.cipher - from) throw new IntegrityError(`part ${p.no} is not the length it was listed with`);
    partCodec(L.dataKey, id, L.frameSize, p.no, p.start).open(frame, p.frames - 1, true);
    if (p.etag) this.#remember(p.key, p.etag);
  }

  #remember(key: string, etag: string, frameSize?: number): void {
    if (this.#verified.size >= VERIFIED_MAX) this.#verified.delete(this.#verified.keys().next().value!);
    this.#verified.set(key, { etag, frameSize });
  }

  async #list(id: string): Promise<{ key: string; size: number; etag?: string }[]> {
    const prefix = `${this.#prefix}${id}/`;
    const out: { key: string; size: number; etag?: string }[] = [];
    let token: string | undefined;
    do {
      const r = await this.#s3.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of r.Contents ?? []) {
        const name = o.Key!.slice(prefix.length);
        if (!new RegExp(`^\\d{${PART_DIGITS}}$`).test(name)) throw new IntegrityError(`unexpected object ${o.Key} under ${id}`);
        out.push({ key: o.Key!, size: o.Size ?? 0, etag: o.ETag });
      }
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async #get(key: string, from?: number, to?: number): Promise<Buffer> {
    try {
      const r = await this.#s3.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: key, ...(from !== undefined ? { Range: `bytes=${from}-${(to ?? 0) - 1}` } : {}) }),
      );
      return Buffer.from(await r.Body!.transformToByteArray());
    } catch (err) {
      if (notFound(err)) throw new IntegrityError(`part ${key} vanished`);
      throw err;
    }
  }

  async #head(key: string): Promise<boolean> {
    try {
      await this.#s3.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return true;
    } catch (err) {
      if (notFound(err)) return false;
      throw err;
    }
  }

  #partKey(id: string, no: number): string {
    return `${this.#prefix}${id}/${String(no).padStart(PART_DIGITS, '0')}`;
  }
}

function checkId(id: string): void {
  if (!ID.test(id)) throw new BlobNotFoundError('invalid object id');
}

/** The codec of one part: its frames' associated data binds the frame size, the part number and its plaintext start. */
function partCodec(dataKey: Buffer, id: string, frameSize: number, partNo: number, partStart: number): FrameCodec {
  const ctx = Buffer.alloc(CONTEXT_TAG.length + 4 + 4 + 8);
  CONTEXT_TAG.copy(ctx, 0);
  ctx.writeUInt32BE(frameSize, 4);
  ctx.writeUInt32BE(partNo, 8);
  ctx.writeBigUInt64BE(BigInt(partStart), 12);
  return new FrameCodec(dataKey, id, frameSize, ctx);
}

function notFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
