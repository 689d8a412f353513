// The fuzz tests' inputs: real files mutated the way damaged and hostile files are (bits
// flipped, cut short, bytes inserted, dropped or repeated, length fields set to extremes), so
// most inputs get past a parser's first check and deep into it. Plain random bytes come too.
import fc from 'fast-check';

/** Generated inputs per property. */
export const RUNS = 10_000;
/** Fixed, so a failure replays as it was; FUZZ_SEED=<n> explores other inputs. */
export const SEED = Number(process.env.FUZZ_SEED ?? 20_250_611);

/** fast-check's settings for every property: RUNS inputs from SEED (both printed on failure). */
export function settings<T>(extra: fc.Parameters<T> = {}): fc.Parameters<T> {
  return { numRuns: RUNS, seed: SEED, includeErrorInReport: true, ...extra };
}

/** A length or size field of a seed: where it is and how it is written. */
export interface Field {
  at: number;
  /** Bytes; for a vint, the length of the EBML variable-size integer found there. */
  width: number;
  le?: boolean;
  vint?: boolean;
}

export interface Seed {
  name: string;
  bytes: Buffer;
  fields: Field[];
}

export type Mutation =
  | { op: 'flip'; at: number; bit: number }
  | { op: 'byte'; at: number; value: number }
  | { op: 'int'; at: number; width: 1 | 2 | 4 | 8; le: boolean; value: number }
  | { op: 'field'; index: number; value: number; relative: boolean }
  | { op: 'cut'; at: number }
  | { op: 'insert'; at: number; bytes: Uint8Array }
  | { op: 'drop'; at: number; len: number }
  | { op: 'repeat'; at: number; len: number; times: number }
  | { op: 'splice'; seed: number; from: number; len: number; at: number };

/** Values that break length arithmetic: zero, one, sign and width boundaries. */
const EXTREMES = [0, 1, 2, 3, 4, 7, 8, 12, 15, 16, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];
const extreme = fc.oneof(fc.constantFrom(...EXTREMES), fc.nat({ max: 0xffffffff }));
const at = fc.nat({ max: 1 << 30 }); // taken modulo the current length

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('flip' as const), at, bit: fc.nat({ max: 7 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('byte' as const), at, value: fc.oneof(fc.constantFrom(0, 0xff, 0x7f, 0x80), fc.nat({ max: 255 })) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('int' as const), at, width: fc.constantFrom(1 as const, 2 as const, 4 as const, 8 as const), le: fc.boolean(), value: extreme }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('field' as const),
      index: fc.nat(),
      relative: fc.boolean(),
      value: fc.oneof(extreme, fc.integer({ min: -16, max: 16 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('cut' as const), at }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('insert' as const), at, bytes: fc.uint8Array({ minLength: 1, maxLength: 32 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), at, len: fc.integer({ min: 1, max: 64 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('repeat' as const), at, len: fc.integer({ min: 1, max: 64 }), times: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('splice' as const), seed: fc.nat(), from: at, len: fc.integer({ min: 1, max: 256 }), at }) },
);

function writeInt(b: Buffer, o: number, width: number, le: boolean, value: number): void {
  if (o + width > b.length) return;
  const v = BigInt(Math.trunc(value)) & ((1n << BigInt(8 * width)) - 1n);
  for (let i = 0; i < width; i++) b[le ? o + i : o + width - 1 - i] = Number((v >> BigInt(8 * i)) & 0xffn);
}

function readInt(b: Buffer, o: number, width: number, le: boolean): number {
  let v = 0;
  for (let i = 0; i < width && o + i < b.length; i++) v = v * 256 + b[le ? o + width - 1 - i : o + i];
  return v;
}

/** Writes an EBML vint of the same length as the one at f.at; all ones means "unknown size". */
function writeVint(b: Buffer, f: Field, value: number): void {
  if (f.at + f.width > b.length || f.width < 1 || f.width > 8) return;
  const bits = 7 * f.width;
  const v = BigInt(Math.trunc(Math.abs(value))) & ((1n << BigInt(bits)) - 1n);
  const marker = 1n << BigInt(bits);
  writeInt(b, f.at, f.width, false, Number(v | marker));
}

function readVintValue(b: Buffer, f: Field): number {
  return readInt(b, f.at, f.width, false) - 2 ** (7 * f.width);
}

function apply(seeds: readonly Seed[], seed: Seed, ms: readonly Mutation[]): Buffer {
  let b = Buffer.from(seed.bytes);
  for (const m of ms) {
    const n = b.length;
    const pos = (x: number) => (n ? x % n : 0);
    switch (m.op) {
      case 'flip':
        if (n) b[pos(m.at)] ^= 1 << m.bit;
        break;
      case 'byte':
        if (n) b[pos(m.at)] = m.value;
        break;
      case 'int':
        writeInt(b, pos(m.at), m.width, m.le, m.value);
        break;
      case 'field': {
        if (!seed.fields.length) break;
        const f = seed.fields[m.index % seed.fields.length];
        if (f.vint) writeVint(b, f, m.relative ? readVintValue(b, f) + m.value : m.value);
        else writeInt(b, f.at, f.width, f.le ?? false, m.relative ? readInt(b, f.at, f.width, f.le ?? false) + m.value : m.value);
        break;
      }
      case 'cut':
        b = b.subarray(0, pos(m.at));
        break;
      case 'insert':
        b = Buffer.concat([b.subarray(0, pos(m.at)), m.bytes, b.subarray(pos(m.at))]);
        break;
      case 'drop':
        b = Buffer.concat([b.subarray(0, pos(m.at)), b.subarray(pos(m.at) + m.len)]);
        break;
      case 'repeat': {
        const piece = b.subarray(pos(m.at), pos(m.at) + m.len);
        b = Buffer.concat([b.subarray(0, pos(m.at) + piece.length), ...Array<Buffer>(m.times).fill(piece), b.subarray(pos(m.at) + piece.length)]);
        break;
      }
      case 'splice': {
        const other = seeds[m.seed % seeds.length].bytes;
        const from = other.length ? m.from % other.length : 0;
        b = Buffer.concat([b.subarray(0, pos(m.at)), other.subarray(from, from + m.len), b.subarray(pos(m.at))]);
        break;
      }
    }
  }
  return Buffer.from(b); // its own memory: parsers may keep or write it
}

/** One of the seeds with 0 to maxMutations mutations (0: the real file itself, now and then). */
export function mutant(seeds: readonly Seed[], maxMutations = 6): fc.Arbitrary<Buffer> {
  if (!seeds.length) throw new Error('no seeds');
  return fc
    .tuple(fc.nat({ max: seeds.length - 1 }), fc.array(mutation, { minLength: 0, maxLength: maxMutations, depthIdentifier: 'mutations' }))
    .map(([i, ms]) => apply(seeds, seeds[i], ms));
}

/** Random bytes, with one of the given signatures in front half the time. */
export function noise(signatures: readonly Uint8Array[] = [], maxLength = 512): fc.Arbitrary<Buffer> {
  const tail = fc.uint8Array({ maxLength });
  const plain = tail.map((t) => Buffer.from(t));
  if (!signatures.length) return plain;
  return fc.oneof(plain, fc.tuple(fc.constantFrom(...signatures), tail).map(([s, t]) => Buffer.concat([s, t])));
}

/** Mutated seeds mostly, random bytes sometimes. */
export function fileLike(seeds: readonly Seed[], signatures: readonly Uint8Array[] = [], maxNoise = 512): fc.Arbitrary<Buffer> {
  return fc.oneof({ weight: 5, arbitrary: mutant(seeds) }, { weight: 1, arbitrary: noise(signatures, maxNoise) });
}

/** Rejects with a plain Error when `p` has not settled within ms: a hang, told apart from a refusal. */
export async function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: a hang`)), ms);
  });
  try {
    return await Promise.race([p, hang]);
  } finally {
    clearTimeout(timer);
  }
}
