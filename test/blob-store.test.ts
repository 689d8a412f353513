import { createHash, randomBytes } from 'node:crypto';
import { open, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from './helpers/test.ts';
import { tempDir } from './helpers/service.ts';
import { filesContaining } from './helpers/files.ts';
import { DEFAULT_FRAME_SIZE, EncryptedFileStore } from '../src/store/blobs/encrypted-file-store.ts';
import { BlobNotFoundError, OffsetMismatchError, SizeLimitError } from '../src/domain/ports.ts';
import { IntegrityError, MasterKey } from '../src/store/master-key.ts';
import { openDb, sqliteRepositories } from '../src/store/sqlite/index.ts';
import { AccountAddresses } from '../src/store/account-addresses.ts';
import { FRAME_OVERHEAD, HEADER_BYTES } from '../src/store/blobs/frames.ts';

const FRAME = DEFAULT_FRAME_SIZE;

async function makeStore(dir = tempDir()) {
  const db = openDb(path.join(dir, 'obscura.db'));
  const masterKey = new MasterKey(Buffer.alloc(32, 7));
  const repos = sqliteRepositories(db, new AccountAddresses(masterKey));
  const store = await EncryptedFileStore.open({ dir: path.join(dir, 'blobs'), masterKey, keyRing: repos.keyRing });
  return { dir, db, store, repos, masterKey };
}

async function readAll(s: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c);
  return Buffer.concat(parts);
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const objFile = (dir: string, id: string) => path.join(dir, 'blobs', id.slice(0, 2), `${id}.obj`);

function* chunks(buf: Buffer, size: number) {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

test('round trip at 0, 1, frame-1, frame, frame+1 bytes and 10 MB', async (t) => {
  const { store } = await makeStore();
  for (const size of [0, 1, FRAME - 1, FRAME, FRAME + 1, 10 * 1000 * 1000]) {
    const id = `rt${size}`;
    const data = randomBytes(size);
    await store.create(id);
    t.is(await store.append(id, chunks(data, 100_000)), size);
    t.is(await store.size(id), size);
    t.is(sha(await readAll(store.read(id))), sha(data), `size ${size}`);
  }
});

test('appends in odd pieces land where they should, and ranged reads return exact slices', async (t) => {
  const { store } = await makeStore();
  const data = randomBytes(3 * FRAME + 12_345);
  await store.create('pieces');
  let at = 0;
  for (const n of [1, 7, FRAME - 8, 3, FRAME * 2, 12_345 - 3]) {
    at = await store.append('pieces', [data.subarray(at, at + n)], { expectOffset: at });
  }
  t.is(at, data.length);
  t.true((await readAll(store.read('pieces'))).equals(data));
  for (const [start, end] of [[0, 1], [FRAME - 1, FRAME + 1], [100, 3 * FRAME + 5], [data.length - 1, data.length], [5, 5], [FRAME * 3, data.length + 99]]) {
    t.true((await readAll(store.read('pieces', { start, end }))).equals(data.subarray(start, Math.min(end, data.length))), `${start}-${end}`);
  }
});

test('a wrong offset, an over-limit or short source write nothing', async (t) => {
  const { store } = await makeStore();
  const data = randomBytes(FRAME + 100);
  await store.create('strict');
  await store.append('strict', [data]);
  await t.throwsAsync(store.append('strict', [Buffer.from('x')], { expectOffset: 3 }), { instanceOf: OffsetMismatchError });
  await t.throwsAsync(store.append('strict', chunks(randomBytes(FRAME * 3), 1000), { maxBytes: FRAME }), { instanceOf: SizeLimitError });
  await t.throwsAsync(store.append('strict', [randomBytes(10)], { exactBytes: 11 }), { instanceOf: SizeLimitError });
  async function* failing() {
    yield randomBytes(FRAME * 2 + 5);
    throw new Error('connection reset');
  }
  await t.throwsAsync(store.append('strict', failing()), { message: 'connection reset' });
  t.is(await store.size('strict'), data.length);
  t.true((await readAll(store.read('strict'))).equals(data));
  // a resumable upload keeps what arrived before the break
  t.is(await store.append('strict', failing(), { keepPartial: true }), data.length + FRAME * 2 + 5);
});

test('one flipped byte is an integrity error', async (t) => {
  const { dir, store } = await makeStore();
  await store.create('flip');
  await store.append('flip', [randomBytes(FRAME * 3)]);
  const fh = await open(objFile(dir, 'flip'), 'r+');
  const pos = HEADER_BYTES + (FRAME + FRAME_OVERHEAD) + 500;
  const b = Buffer.alloc(1);
  await fh.read(b, 0, 1, pos);
  b[0] ^= 0x01;
  await fh.write(b, 0, 1, pos);
  await fh.close();
  await t.throwsAsync(readAll(store.read('flip')), { instanceOf: IntegrityError });
  // the frames before it still read
  t.is((await readAll(store.read('flip', { start: 0, end: FRAME }))).length, FRAME);
});

test('a dropped last frame is an integrity error', async (t) => {
  const { dir, store } = await makeStore();
  await store.create('drop');
  await store.append('drop', [randomBytes(FRAME * 3 + 10)]);
  const file = objFile(dir, 'drop');
  const whole = await readFile(file);
  await writeFile(file, whole.subarray(0, HEADER_BYTES + 3 * (FRAME + FRAME_OVERHEAD)));
  await t.throwsAsync(store.size('drop'), { instanceOf: IntegrityError });
  await t.throwsAsync(readAll(store.read('drop')), { instanceOf: IntegrityError });
});

test('two swapped frames are an integrity error', async (t) => {
  const { dir, store } = await makeStore();
  await store.create('swap');
  await store.append('swap', [randomBytes(FRAME * 3 + 10)]);
  const file = objFile(dir, 'swap');
  const b = await readFile(file);
  const stride = FRAME + FRAME_OVERHEAD;
  const f0 = Buffer.from(b.subarray(HEADER_BYTES, HEADER_BYTES + stride));
  b.copy(b, HEADER_BYTES, HEADER_BYTES + stride, HEADER_BYTES + 2 * stride);
  f0.copy(b, HEADER_BYTES + stride);
  await writeFile(file, b);
  await t.throwsAsync(readAll(store.read('swap')), { instanceOf: IntegrityError });
});

test('an object moved under another id does not decrypt', async (t) => {
  const { dir, store, repos } = await makeStore();
  await store.create('aaa1');
  await store.append('aaa1', [Buffer.from('secret')]);
  await store.create('aaa2');
  // same key, file of another object: frame AAD binds the object id
  await writeFile(objFile(dir, 'aaa2'), await readFile(objFile(dir, 'aaa1')));
  await repos.keyRing.delete('aaa2');
  await repos.keyRing.put('aaa2', (await repos.keyRing.get('aaa1'))!);
  await t.throwsAsync(readAll(store.read('aaa2')), { instanceOf: IntegrityError });
});

test('no file under the data folder holds the plaintext', async (t) => {
  const { dir, store } = await makeStore();
  const marker = 'OBSCURA-PLAINTEXT-MARKER-7f3a';
  await store.create('marker');
  await store.append('marker', [Buffer.from(`${marker}\n`.repeat(1000))]);
  t.true((await readAll(store.read('marker'))).toString().includes(marker));
  t.deepEqual(filesContaining(dir, marker), []);
});

test('delete destroys the key, then the bytes', async (t) => {
  const { store, repos } = await makeStore();
  await store.create('gone');
  await store.append('gone', [randomBytes(1000)]);
  t.true(await store.delete('gone'));
  t.is(await repos.keyRing.get('gone'), undefined);
  t.false(await store.exists('gone'));
  await t.throwsAsync(store.size('gone'), { instanceOf: BlobNotFoundError });
  await t.throwsAsync(readAll(store.read('gone')), { instanceOf: BlobNotFoundError });
  t.false(await store.delete('gone'));
});

test('ids that could leave the store folder are refused', async (t) => {
  const { store } = await makeStore();
  for (const id of ['../etc', '..', 'a/b', '%2e%2e', '', 'x'.repeat(200), 'a\0b']) {
    await t.throwsAsync(store.create(id), { instanceOf: BlobNotFoundError }, JSON.stringify(id));
  }
});

test('concurrent appends to one object are serialised', async (t) => {
  const { store } = await makeStore();
  await store.create('race');
  const parts = Array.from({ length: 20 }, (_, i) => Buffer.alloc(5000 + i, i));
  await Promise.all(parts.map((p) => store.append('race', [p])));
  const out = await readAll(store.read('race'));
  t.is(out.length, parts.reduce((n, p) => n + p.length, 0));
  // every part arrived whole (order is the lock's order)
  let at = 0;
  while (at < out.length) {
    const v = out[at];
    const len = 5000 + v;
    t.true(out.subarray(at, at + len).equals(Buffer.alloc(len, v)));
    at += len;
  }
});

test('an append cut off by a crash is rolled back at the next start', async (t) => {
  const { dir, store, db } = await makeStore();
  const data = randomBytes(FRAME + 777);
  await store.create('crash');
  await store.append('crash', [data]);
  // What a crash leaves mid-append: the journal written, the tail half-overwritten.
  const file = objFile(dir, 'crash');
  const before = await readFile(file);
  const lastOffset = HEADER_BYTES + FRAME + FRAME_OVERHEAD;
  const { createHash } = await import('node:crypto');
  const head = Buffer.alloc(16);
  head.write('OBJ1');
  head.writeBigUInt64BE(BigInt(lastOffset), 4);
  const lastFrame = before.subarray(lastOffset);
  head.writeUInt32BE(lastFrame.length, 12);
  const journal = Buffer.concat([head, lastFrame, createHash('sha256').update(head).update(lastFrame).digest()]);
  await writeFile(file.replace(/\.obj$/, '.journal'), journal);
  await writeFile(file, Buffer.concat([before.subarray(0, lastOffset), randomBytes(FRAME + 9000)]));
  db.close();

  const reopened = await makeStore(dir);
  t.is(await reopened.store.size('crash'), data.length);
  t.true((await readAll(reopened.store.read('crash'))).equals(data));
  t.false((await readdir(path.dirname(file))).some((f) => f.endsWith('.journal')));
});

test('a long resumable append is checkpointed: a crash after 8 MiB keeps the first 8 MiB', async (t) => {
  const { dir, store, db } = await makeStore();
  const data = randomBytes(12 * 1024 * 1024 + 5);
  await store.create('long');
  await store.append('long', [data.subarray(0, 1000)]);
  // the source stalls forever after 9 MiB: the process "dies" while it waits
  let release!: () => void;
  const stalled = new Promise<void>((r) => (release = r));
  // asking for the chunk after 9 MiB means the store has handled every one before it
  let waiting!: () => void;
  const drained = new Promise<void>((r) => (waiting = r));
  async function* slow() {
    for (let at = 1000; at < 9 * 1024 * 1024; at += 100_000) yield data.subarray(at, Math.min(at + 100_000, 9 * 1024 * 1024));
    waiting();
    await stalled;
  }
  const pending = store.append('long', slow(), { keepPartial: true });
  await drained;
  // reopen the folder as a restarted process would, while the first append is stuck
  db.close();
  const again = await makeStore(dir);
  const size = await again.store.size('long');
  t.true(size >= 8 * 1024 * 1024 && size < 9 * 1024 * 1024, `size ${size}`);
  t.true((await readAll(again.store.read('long'))).equals(data.subarray(0, size)));
  release();
  await pending.catch(() => {});
});
