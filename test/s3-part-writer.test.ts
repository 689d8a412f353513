// The S3 store's part writer on its own (src/store/blobs/part-writer.ts): its states and its
// crash-safety rules, step by step, against a real Swift (s3api) and a real SQLite part index.
// A "crash" is a writer dropped half-way, neither committed nor aborted, as a process that died
// leaves it. After each step the index and the bucket must agree, and an S3BlobStore on the same
// bucket and index (what every later reader and writer is) must read the committed offset back
// exact. Small resumable parts (4 frames) keep the files quick; the multipart path needs S3's
// 5 MiB upload parts.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ListMultipartUploadsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { ExecutionContext } from 'ava';
import { test } from './helpers/test.ts';
import { tempDir } from './helpers/service.ts';
import { sha256 } from './helpers/payload.ts';
import { startSwift, type RunningSwift } from './helpers/swift.ts';
import { makeS3Client, S3BlobStore } from '../src/store/blobs/s3-store.ts';
import { PartWriter, type PartTarget, type PartWriterLimits, type PartWriterStart } from '../src/store/blobs/part-writer.ts';
import { PartCache } from '../src/store/blobs/part-cache.ts';
import { FRAME_OVERHEAD } from '../src/store/blobs/frames.ts';
import { MasterKey } from '../src/store/master-key.ts';
import { openDb, sqliteRepositories } from '../src/store/sqlite/index.ts';
import { AccountAddresses } from '../src/store/account-addresses.ts';
import { OffsetMismatchError, type PartIndex } from '../src/domain/ports.ts';

const FRAME = 128 * 1024;
const STRIDE = FRAME + FRAME_OVERHEAD;
const MiB = 1024 * 1024;
/** Resumable parts of 4 frames (512 KiB of plaintext). */
const SMALL: PartWriterLimits = { partBytes: 4 * STRIDE, inlineBytes: 0, partsInFlight: 1 };
/** The store's smallest part: S3's 5 MiB upload part and a frame (40 frames a part). */
const LARGE: PartWriterLimits = { partBytes: 5 * MiB + STRIDE, inlineBytes: 0, partsInFlight: 1 };

const masterKey = new MasterKey(Buffer.alloc(32, 9));
let swift: RunningSwift | undefined;
let bucket = '';

test.before(async () => {
  swift = await startSwift();
  bucket = await swift.createBucket();
});
test.after.always(async () => {
  await swift?.stop();
});

interface Bench {
  store: S3BlobStore;
  parts: PartIndex;
  target: PartTarget;
  /** What the store's layout hands a writer for the object as the index lists it now. */
  start(id: string): Promise<PartWriterStart>;
  /** The object's objects in the bucket. */
  objects(id: string): Promise<string[]>;
  /** Everything stored for the object (rows with their state, objects) and what it reads as. */
  snapshot(id: string): Promise<{ size: number; sha: string; rows: string[]; objects: string[] }>;
}

async function bench(client?: S3Client): Promise<Bench> {
  const s3 = client ?? swift!.client;
  const repos = sqliteRepositories(openDb(path.join(tempDir(), 'obscura.db')), new AccountAddresses(masterKey));
  const prefix = `w${randomBytes(3).toString('hex')}/`;
  const store = new S3BlobStore({ url: swift!.url(bucket, prefix), masterKey, keyRing: repos.keyRing, parts: repos.parts, client: s3, inlineBytes: 0, cacheBytes: 0 });
  const objects = async (id: string) => {
    const r = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}${id}/` }));
    return (r.Contents ?? []).map((o) => o.Key!).sort();
  };
  return {
    store,
    parts: repos.parts,
    target: { s3, bucket, prefix, parts: repos.parts, cache: new PartCache(0) },
    objects,
    async start(id) {
      const rows = await repos.parts.list(id);
      let end = rows.length;
      while (end > 0 && !rows[end - 1]!.complete) end--;
      const complete = rows.slice(0, end);
      return {
        dataKey: masterKey.unwrap(id, (await repos.keyRing.get(id))!),
        frameSize: FRAME,
        lastPart: complete.at(-1)!.no,
        size: await store.size(id),
        cipher: complete.slice(1).reduce((n, r) => n + r.bytes, 0),
        stale: rows.slice(end),
      };
    },
    async snapshot(id) {
      return {
        size: await store.size(id),
        sha: sha256(await readAll(store.read(id))),
        rows: (await repos.parts.list(id)).map((r) => `${r.no}:${r.complete ? 'complete' : 'incomplete'}:${r.objectKey ?? 'index'}`),
        objects: await objects(id),
      };
    },
  };
}

async function readAll(s: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c);
  return Buffer.concat(parts);
}

/**
 * The index and the bucket agree: every object in the bucket has a row, every complete row's
 * object is there, the complete rows are a run from part 0 and (settled) no row is incomplete.
 */
async function agree(t: ExecutionContext, b: Bench, id: string, settled = true): Promise<void> {
  const rows = await b.parts.list(id);
  const objects = await b.objects(id);
  const rowKeys = rows.flatMap((r) => (r.objectKey ? [r.objectKey] : []));
  t.deepEqual(objects.filter((k) => !rowKeys.includes(k)), [], 'no object in the bucket without its row');
  t.deepEqual(rows.filter((r) => r.complete && r.objectKey && !objects.includes(r.objectKey)).map((r) => r.no), [], 'every complete row has its object');
  const complete = rows.filter((r) => r.complete).map((r) => r.no);
  t.deepEqual(complete, complete.map((_, i) => i), 'the complete rows are a run from part 0');
  if (settled) t.deepEqual(rows.filter((r) => !r.complete).map((r) => r.no), [], 'no incomplete row');
}

/** The committed offset is what the store says, and it reads back as the first bytes of `data`. */
async function committed(t: ExecutionContext, b: Bench, id: string, data: Buffer, expected: number): Promise<void> {
  t.is(await b.store.size(id), expected, 'the committed offset');
  t.is(sha256(await readAll(b.store.read(id))), sha256(data.subarray(0, expected)), 'the committed bytes read back exact');
}

/** What a resumable writer has committed once `written` bytes went in (4-frame parts, one in flight): whole parts of the frames sealed. */
const committedAfter = (base: number, written: number) => base + Math.floor(Math.floor((written - 1) / FRAME) / 4) * 4 * FRAME;

test('a non-resumable writer buffers, then uploads its one part (claimed, invisible), then commits it whole', async (t) => {
  const b = await bench();
  await b.store.create('big');
  const data = randomBytes(7 * MiB + 3);
  const w = await PartWriter.open(b.target, 'big', await b.start('big'), LARGE);
  t.is(w.state.kind, 'buffering');
  await w.write(data.subarray(0, MiB));
  t.is(w.state.kind, 'buffering', 'under a part: in memory only');
  t.deepEqual((await b.snapshot('big')).rows.map((r) => r.split(':').slice(0, 2).join(':')), ['0:complete']);
  t.deepEqual(await b.objects('big'), []);
  await w.write(data.subarray(MiB));
  t.is(w.state.kind, 'uploading', 'a part past 5 MiB: a multipart upload');
  const rows = await b.parts.list('big');
  t.deepEqual(rows.map((r) => [r.no, r.complete]), [[0, true], [1, false]], 'its row claimed before any byte went');
  t.deepEqual(await b.objects('big'), [], 'an upload not completed is not in the bucket');
  await committed(t, b, 'big', data, 0);
  t.is(await w.commit(), data.length);
  t.deepEqual(w.state, { kind: 'committed', size: data.length });
  t.deepEqual(await b.objects('big'), [rows[1]!.objectKey], 'one object, under the name claimed');
  await agree(t, b, 'big');
  await committed(t, b, 'big', data, data.length);
  await t.throwsAsync(w.write(Buffer.from('x')), { message: /committed/ }, 'a committed writer takes nothing more');
});

test('a crash between resumable parts leaves the committed offset readable and nothing half-written visible; a retry at that offset resumes', async (t) => {
  // a store whose part write lands and whose process then dies before the row is completed
  const client = makeS3Client({ endpoint: swift!.endpoint, region: swift!.region }, swift!.credentials);
  let dieAfterNextPut = false;
  client.middlewareStack.add((next, context) => async (args) => {
    const out = await next(args);
    if (context.commandName === 'PutObjectCommand' && dieAfterNextPut) throw new Error('the process died');
    return out;
  }, { step: 'initialize', name: 'die' });
  const b = await bench(client);
  await b.store.create('crash');
  const data = randomBytes(3 * MiB + 77);
  const base = 100_000;
  await b.store.append('crash', [data.subarray(0, base)]);

  const w = await PartWriter.open(b.target, 'crash', await b.start('crash'), { ...SMALL, keepPartial: true });
  let written = 0;
  for (const n of [300_000, 300_000, 700_000]) {
    await w.write(data.subarray(base + written, base + written + n));
    written += n;
    t.is(w.state.kind, 'buffering');
    await agree(t, b, 'crash');
    await committed(t, b, 'crash', data, committedAfter(base, written));
  }
  t.is((await b.parts.list('crash')).length, 1 + 1 + 2, 'part 0, the first append, two 4-frame parts');
  // the next part's object lands, the row is never completed, the writer is never aborted
  dieAfterNextPut = true;
  await t.throwsAsync(w.write(data.subarray(base + written, base + written + 600_000)), { message: 'the process died' });
  dieAfterNextPut = false;
  t.is(w.state.kind, 'failed');
  const rows = await b.parts.list('crash');
  t.deepEqual(rows.map((r) => [r.no, r.complete]), [[0, true], [1, true], [2, true], [3, true], [4, false]]);
  t.true((await b.objects('crash')).includes(rows[4]!.objectKey!), 'the half-finished part is in the bucket, under its claimed row');
  await agree(t, b, 'crash', false);
  const offset = committedAfter(base, written);
  await committed(t, b, 'crash', data, offset);
  await t.throwsAsync(w.write(Buffer.from('x')), { message: 'the process died' }, 'a failed writer takes nothing more');

  // a retry at the committed offset clears the leftover and resumes
  t.is(await b.store.append('crash', [data.subarray(offset)], { expectOffset: offset, keepPartial: true }), data.length);
  t.false((await b.objects('crash')).includes(rows[4]!.objectKey!), "the crash's object is gone");
  await agree(t, b, 'crash');
  await committed(t, b, 'crash', data, data.length);
});

test('a writer dropped between parts (a crash) keeps its complete parts; the next writer at the committed offset resumes', async (t) => {
  const b = await bench();
  await b.store.create('drop');
  const data = randomBytes(2 * MiB + 5);
  const w = await PartWriter.open(b.target, 'drop', await b.start('drop'), { ...SMALL, keepPartial: true });
  await w.write(data.subarray(0, MiB + 1000));
  const offset = committedAfter(0, MiB + 1000);
  t.is(offset, MiB, 'two whole parts; the rest was only in memory');
  await agree(t, b, 'drop');
  await committed(t, b, 'drop', data, offset);
  const next = await PartWriter.open(b.target, 'drop', await b.start('drop'), { ...SMALL, keepPartial: true, expectOffset: offset });
  await next.write(data.subarray(offset));
  t.is(await next.commit(), data.length);
  await agree(t, b, 'drop');
  await committed(t, b, 'drop', data, data.length);
});

test('abort withdraws every part the writer wrote, or the upload it began, and leaves the object as it was', async (t) => {
  const b = await bench();
  await b.store.create('undo');
  const data = randomBytes(300_000);
  await b.store.append('undo', [data]);
  const before = await b.snapshot('undo');

  const resumable = await PartWriter.open(b.target, 'undo', await b.start('undo'), { ...SMALL, keepPartial: true });
  await resumable.write(randomBytes(MiB + 5));
  t.is((await b.parts.list('undo')).length, 2 + 2, 'two parts committed before the abort');
  await resumable.abort();
  t.deepEqual(resumable.state, { kind: 'aborted' });
  t.deepEqual(await b.snapshot('undo'), before, 'the resumable parts withdrawn, rows and objects');
  await agree(t, b, 'undo');
  await t.throwsAsync(resumable.abort(), { message: /aborted/ }, 'once');

  const prefix = b.target.prefix;
  const uploads = async () => ((await b.target.s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }))).Uploads ?? []).length;
  const large = await PartWriter.open(b.target, 'undo', await b.start('undo'), LARGE);
  await large.write(randomBytes(6 * MiB));
  t.is(large.state.kind, 'uploading');
  t.is(await uploads(), 1);
  await large.abort();
  t.is(await uploads(), 0, 'the multipart upload aborted');
  t.deepEqual(await b.snapshot('undo'), before, 'its claimed row gone');
  await agree(t, b, 'undo');
});

test('a wrong offset is refused without touching the stored parts; the right one resumes', async (t) => {
  const b = await bench();
  await b.store.create('offset');
  const data = randomBytes(700_000);
  await b.store.append('offset', [data.subarray(0, 600_000)], { keepPartial: true });
  const before = await b.snapshot('offset');
  for (const expectOffset of [0, 599_999, 600_001, 10 * MiB]) {
    const err = await t.throwsAsync(PartWriter.open(b.target, 'offset', await b.start('offset'), { ...SMALL, keepPartial: true, expectOffset }), { instanceOf: OffsetMismatchError });
    t.is(err!.current, 600_000);
    t.deepEqual(await b.snapshot('offset'), before, `offset ${expectOffset}`);
  }
  const w = await PartWriter.open(b.target, 'offset', await b.start('offset'), { ...SMALL, keepPartial: true, expectOffset: 600_000 });
  await w.write(data.subarray(600_000));
  t.is(await w.commit(), data.length);
  await agree(t, b, 'offset');
  await committed(t, b, 'offset', data, data.length);
});

test('a writer whose lock was lost claims nothing more, and its abort leaves the object as it was', async (t) => {
  const b = await bench();
  await b.store.create('lost');
  await b.store.append('lost', [randomBytes(5000)]);
  const before = await b.snapshot('lost');
  const hold = new AbortController();
  const w = await PartWriter.open(b.target, 'lost', await b.start('lost'), { ...SMALL, keepPartial: true, lost: hold.signal });
  await w.write(randomBytes(4 * FRAME + 1));
  t.is((await b.parts.list('lost')).length, 3, 'one part committed while the lock was held');
  hold.abort();
  await t.throwsAsync(w.write(randomBytes(4 * FRAME)), { message: /lock on object lost was lost/ });
  t.is(w.state.kind, 'failed');
  t.is((await b.parts.list('lost')).length, 3, 'no part claimed after');
  await w.abort();
  t.deepEqual(await b.snapshot('lost'), before);
  await agree(t, b, 'lost');
});
