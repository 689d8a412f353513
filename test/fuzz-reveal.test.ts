// Fuzzing the reveal container (media/stego/reveal-files.ts): what comes out of a sealed stream
// is the maker's choice, lengths included. Packed secrets, then real containers mutated (length
// fields set to extremes, bytes flipped, cut, spliced) and random bytes, against a bound drawn
// too: each input gives exactly the files the format says, or a clear refusal (nothing_found,
// reveal_too_large); never another exception, never more than the bound, never a file left
// behind after a refusal.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { test } from './helpers/test.ts';
import { fileLike, settings, within, type Seed } from './helpers/fuzz.ts';
import { workDir } from './helpers/media-kit.ts';
import { containerFields, containerOf, deflatedZeros } from './helpers/reveal-container.ts';
import { MediaError } from '../src/media/errors.ts';
import { pack, type Secret } from '../src/media/stego/container.ts';
import { writeSecrets, type RevealBound } from '../src/media/stego/reveal-files.ts';

let work: { dir: string; done: () => Promise<void> };
test.before(async () => {
  work = await workDir('fuzz-reveal');
});
test.after.always(() => work?.done());

/** A secret: random bytes (stored as they are) or a repeated pattern (deflated by pack). */
const secret: fc.Arbitrary<Secret> = fc.record({
  name: fc.string({ maxLength: 40, unit: 'grapheme' }),
  data: fc.oneof(
    fc.uint8Array({ maxLength: 2048 }),
    fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 16 }), fc.integer({ min: 1, max: 8000 })).map(([p, times]) => new Uint8Array(Buffer.concat(Array<Buffer>(times).fill(Buffer.from(p))))),
  ),
});

const bound: fc.Arbitrary<RevealBound> = fc.record({
  maxBytes: fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.constant(512 * 1024 * 1024)),
  capacity: fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.constant(Number.MAX_SAFE_INTEGER)),
  maxFiles: fc.integer({ min: 1, max: 25 }),
});

const limitOf = (b: RevealBound) => Math.min(b.maxBytes, b.capacity);

/** The format read the plain way, all in memory (the inputs are small): the files, or the refusal due. */
function reference(buf: Buffer, b: RevealBound): { files: { name: string; data: Buffer }[] } | { refusal: string } {
  const table: { name: string; deflated: boolean; size: number; body: Buffer }[] = [];
  try {
    if (buf.length < 3 || buf[0] !== 1) throw new Error('header');
    let at = 3;
    for (let i = 0; i < buf.readUInt16BE(1); i++) {
      const nameLen = buf.readUInt16BE(at);
      if (at + 2 + nameLen + 9 > buf.length) throw new Error('truncated');
      const name = buf.subarray(at + 2, at + 2 + nameLen).toString('utf8');
      at += 2 + nameLen;
      const deflated = (buf[at] & 1) === 1;
      const size = buf.readUInt32BE(at + 1);
      const bodyLen = buf.readUInt32BE(at + 5);
      at += 9;
      if (at + bodyLen > buf.length || (!deflated && bodyLen !== size)) throw new Error('body');
      table.push({ name, deflated, size, body: buf.subarray(at, at + bodyLen) });
      at += bodyLen;
    }
  } catch {
    return { refusal: 'nothing_found' };
  }
  if (table.length > b.maxFiles || table.reduce((n, e) => n + e.size, 0) > limitOf(b)) return { refusal: 'reveal_too_large' };
  try {
    const files = table.map((e) => {
      const data = e.deflated ? inflateRawSync(e.body, { maxOutputLength: e.size + 1 }) : e.body;
      if (data.length !== e.size) throw new Error('size');
      return { name: e.name, data };
    });
    return { files };
  } catch {
    return { refusal: 'nothing_found' };
  }
}

/** Reveals `buf` into a fresh folder and checks the outcome against the reference. */
async function revealChecked(buf: Buffer, b: RevealBound): Promise<{ name: string; data: Buffer }[] | string> {
  const dir = await mkdtemp(path.join(work.dir, 'r-'));
  const want = reference(buf, b);
  let got;
  try {
    got = await within(10_000, writeSecrets(buf, dir, b));
  } catch (e) {
    if (!(e instanceof MediaError)) throw e;
    assert.ok(e.code === 'nothing_found' || e.code === 'reveal_too_large', e.code);
    assert.ok(e.message.length > 0 && !e.message.includes(dir), 'a clear message that names no path');
    assert.deepEqual(await readdir(dir), [], 'nothing left behind');
    assert.deepEqual(want, { refusal: e.code });
    return e.code;
  }
  const files = [];
  for (const f of got) files.push({ name: f.name, data: await readFile(f.path) });
  assert.ok(files.length <= b.maxFiles);
  assert.ok(files.reduce((n, f) => n + f.data.length, 0) <= limitOf(b), 'never more than the bound');
  assert.deepEqual(got.map((f) => f.size), files.map((f) => f.data.length));
  assert.deepEqual((await readdir(dir)).sort(), got.map((_, i) => `revealed-${i}`).sort());
  assert.ok('files' in want, `the reference refused: ${JSON.stringify(want)}`);
  assert.deepEqual(files.map((f) => f.name), want.files.map((f) => f.name));
  files.forEach((f, i) => assert.ok(f.data.equals(want.files[i].data), `file ${i} is exact`));
  return files;
}

test('reveal container: packed secrets come back exactly when the bound fits them, and are reveal_too_large with nothing written when it does not', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(secret, { maxLength: 6 }), bound, async (secrets, b) => {
      const r = await revealChecked(pack(secrets), b);
      const total = secrets.reduce((n, s) => n + s.data.length, 0);
      if (secrets.length <= b.maxFiles && total <= limitOf(b)) {
        assert.ok(Array.isArray(r), `refused: ${String(r)}`);
        assert.deepEqual(r.map((f) => f.name), secrets.map((s) => s.name));
        r.forEach((f, i) => assert.ok(f.data.equals(secrets[i].data), `secret ${i} exact`));
      } else assert.equal(r, 'reveal_too_large');
    }),
    settings<[Secret[], RevealBound]>({ numRuns: 2000 }),
  );
  t.pass();
});

test('reveal container: mutated and random containers give the exact files the format says, or nothing_found / reveal_too_large, never more than the bound or a file left behind', async (t) => {
  const text = (s: string, n: number) => new Uint8Array(Buffer.from(s.repeat(n)));
  const packs: Secret[][] = [
    [{ name: 'notes.txt', data: text('the quick brown fox ', 400) }],
    [{ name: 'a', data: new Uint8Array([1, 2, 3]) }, { name: 'b.bin', data: text('ab', 3000) }, { name: 'ü', data: new Uint8Array(0) }],
    [{ name: 'zeros', data: new Uint8Array(60_000) }, { name: 'rand', data: new Uint8Array(Buffer.from('0123456789abcdef'.repeat(8), 'hex')) }],
  ];
  const seeds: Seed[] = packs.map((p, i) => {
    const bytes = pack(p);
    return { name: `pack-${i}`, bytes, fields: containerFields(bytes) };
  });
  // a bomb in small: 4 MiB of zeros in about 4 KB
  const bomb = containerOf([{ name: 'z', size: 4 << 20, body: await deflatedZeros(4 << 20), deflated: true }]);
  seeds.push({ name: 'bomb', bytes: bomb, fields: containerFields(bomb) });
  const examples: [Buffer, RevealBound][] = [
    // the bomb, declared as 100 bytes: the running count stops it at 100
    [containerOf([{ name: 'z', size: 100, body: await deflatedZeros(4 << 20), deflated: true }]), { maxBytes: 1000, capacity: 1000, maxFiles: 1 }],
    // 65,535 empty files declared, in a 3-byte container
    [Buffer.from([1, 0xff, 0xff]), { maxBytes: 1000, capacity: 1000, maxFiles: 20 }],
    // 4 GiB declared
    [containerOf([{ name: 'z', size: 0xffffffff, body: Buffer.alloc(8), deflated: true }]), { maxBytes: 512 << 20, capacity: Number.MAX_SAFE_INTEGER, maxFiles: 20 }],
  ];
  await fc.assert(
    fc.asyncProperty(fileLike(seeds, [Buffer.from([1])], 64), bound, async (buf, b) => {
      await revealChecked(buf, b);
    }),
    settings<[Buffer, RevealBound]>({ numRuns: 4000, examples }),
  );
  t.pass();
});
