// The embedded bit stream and how it is written into a cover's samples.
//
//   header (1 bit per sample, LSB matching): salt 16 | nonce 12 | sealed header 12 + tag 16
//   payload (Hamming matrix embedding, p bits per block of 2^p - 1 samples): sealed container
//
// Every byte is either random (salt, nonce) or AES-256-GCM output, so without the passphrase
// the stream is indistinguishable from random: no magic, no clear length, no clear version.
// Samples change by ±1 (LSB matching, never replacement); matrix embedding makes the number of
// changed samples small when the payload is small against the capacity.
import { createCipheriv, createDecipheriv, randomBytes, randomInt } from 'node:crypto';
import { MediaError } from '../errors.ts';
import { SALT_BYTES, keysOf, type PassphraseKeys, type SealingKeys } from './keys.ts';
import { HEADER_REGION, MAX_FILL, Strata, WHOLE, headerPositions, inLane, laneSize, type Lane } from './positions.ts';
import { helperSyndromes, type WalkPlan } from './walk-helper.ts';

/**
 * The samples a payload can live in, one byte each, addressed 0..n-1: an RGB picture's own
 * buffer, or the gathered colour samples of its opaque pixels (see pixels.ts).
 */
export type Samples = Uint8Array;

export const NOTHING_FOUND = 'No hidden content could be recovered with this passphrase.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_PLAIN = 12;
export const HEADER_BYTES = SALT_BYTES + NONCE_BYTES + HEADER_PLAIN + TAG_BYTES;
export const HEADER_BITS = HEADER_BYTES * 8;
/** Blocks of up to 1023 samples: beyond that the changes saved are few and the samples read many. */
const MAX_P = 10;

export interface StreamHeader {
  /** Sealed payload length in bytes (container + tag). */
  length: number;
  p: number;
  /** Spread units (video frames) the payload spans; 1 for an image. */
  units: number;
}

/** Largest container (bytes) the samples can hold at p = 1. */
export function capacityBytes(n: number): number {
  const usable = Math.floor(n * MAX_FILL) - HEADER_BITS;
  return Math.max(0, Math.floor(usable / 8) - TAG_BYTES);
}

/** The code for a payload: the largest p (fewest changes per bit) that fits; 0 when none does. */
export function chooseP(bits: number, samples: number): number {
  for (let p = MAX_P; p >= 1; p--) if (Math.ceil(bits / p) * ((1 << p) - 1) <= samples) return p;
  return 0;
}

export function blocksFor(bits: number, p: number): number {
  return Math.ceil(bits / p);
}

function gcm(key: Buffer, nonce: Buffer, plain: Buffer): Buffer {
  const c = createCipheriv('aes-256-gcm', key, nonce);
  return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
}

function ungcm(key: Buffer, nonce: Buffer, sealed: Buffer): Buffer | undefined {
  try {
    const d = createDecipheriv('aes-256-gcm', key, nonce);
    d.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([d.update(sealed.subarray(0, sealed.length - TAG_BYTES)), d.final()]);
  } catch {
    return undefined;
  }
}

export { sealingKeys, type SealingKeys } from './keys.ts';

/** Seals a container for embedding: the header bytes, the payload bytes, and the locator key. */
export function seal(k: SealingKeys, container: Buffer, units = 1, p = 0): { header: Buffer; payload: Buffer; locator: Buffer; p: number } {
  const nonce = randomBytes(NONCE_BYTES);
  const payload = gcm(k.keys.payload, nonce, container);
  const plain = Buffer.alloc(HEADER_PLAIN);
  plain.writeUInt32BE(payload.length, 0);
  plain[4] = p;
  plain.writeUInt32BE(units, 5);
  const header = Buffer.concat([k.salt, nonce, gcm(k.keys.header, nonce, plain)]);
  return { header, payload, locator: k.keys.locator, p };
}

/** Opens a header read from a cover; undefined when the passphrase does not fit. */
export async function openHeader(
  bytes: Buffer,
  passphrase: string | PassphraseKeys,
  domain: string,
): Promise<{ header: StreamHeader; payloadKey: Buffer; nonce: Buffer } | undefined> {
  const salt = bytes.subarray(0, SALT_BYTES);
  const nonce = bytes.subarray(SALT_BYTES, SALT_BYTES + NONCE_BYTES);
  const k = await keysOf(passphrase).open(salt, domain);
  const plain = ungcm(k.header, nonce, bytes.subarray(SALT_BYTES + NONCE_BYTES, HEADER_BYTES));
  if (!plain) return undefined;
  const header = { length: plain.readUInt32BE(0), p: plain[4], units: plain.readUInt32BE(5) };
  if (header.p < 1 || header.p > MAX_P || header.length < TAG_BYTES || header.units < 1) return undefined;
  return { header, payloadKey: k.payload, nonce: Buffer.from(nonce) };
}

export function openPayload(sealed: Buffer, key: Buffer, nonce: Buffer): Buffer | undefined {
  return ungcm(key, nonce, sealed);
}

// ---- writing and reading bits ------------------------------------------------

/** ±1 choices, from the system CSPRNG. */
class Coin {
  #buf = Buffer.alloc(0);
  #bit = 0;
  flip(): boolean {
    if (this.#bit >= this.#buf.length * 8) {
      this.#buf = randomBytes(4096);
      this.#bit = 0;
    }
    const b = (this.#buf[this.#bit >>> 3] >>> (this.#bit & 7)) & 1;
    this.#bit++;
    return b === 1;
  }
}

/** Changes a sample by ±1 so its LSB flips (LSB matching). */
function nudge(samples: Samples, i: number, coin: Coin): void {
  const v = samples[i];
  samples[i] = v === 0 ? 1 : v === 255 ? 254 : coin.flip() ? v + 1 : v - 1;
}

const bitAt = (buf: Buffer, i: number) => (buf[i >>> 3] >>> (7 - (i & 7))) & 1;

/** `n` (at most 16) bits of `buf` from bit `i`, the first one most significant; all inside buf. */
function bitsAt(buf: Buffer, i: number, n: number): number {
  const at = i >>> 3;
  const last = (i + n - 1) >>> 3;
  let w = 0;
  for (let b = at; b <= at + 2; b++) w = (w << 8) | (b <= last ? buf[b] : 0);
  return (w >>> (24 - (i & 7) - n)) & ((1 << n) - 1);
}

/** Writes `bits` of `data` one per sample at `pos`. */
export function writePlain(samples: Samples, pos: Uint32Array, data: Buffer): number {
  const coin = new Coin();
  let changed = 0;
  for (let i = 0; i < data.length * 8; i++) {
    if ((samples[pos[i]] & 1) !== bitAt(data, i)) {
      nudge(samples, pos[i], coin);
      changed++;
    }
  }
  return changed;
}

export function readPlain(samples: Samples, pos: Uint32Array, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes * 8; i++) if (samples[pos[i]] & 1) out[i >>> 3] |= 0x80 >>> (i & 7);
  return out;
}

/** The payload's samples for `count` positions; the same count always gives the same samples. */
export type Walk = (count: number) => Strata;

/**
 * Hamming matrix embedding: each block of 2^p - 1 samples carries p bits as the XOR of the
 * (1-based) indices of its odd samples; at most one sample per block changes. A block is 2^p - 1
 * consecutive strata, so the cover is read once, in order, and no region gets more than one
 * change per block. Bits past the data are random.
 */
export function writeMatrix(samples: Samples, walk: Walk, data: Buffer, p: number, opts: MatrixRange & Following = {}): number {
  const { bitOffset = 0, bitCount = data.length * 8, onFinal, ready } = opts;
  const pad = randomBytes(4);
  const coin = new Coin();
  const nb = (1 << p) - 1;
  let bit = 0;
  let changed = 0;
  let blocks = 0;
  const whole = Math.floor(bitCount / p) * p; // bits in blocks that hold data only
  const strata = walk(Math.ceil(bitCount / p) * nb);
  const each = (s: number, pos: Uint32Array) => {
    let m: number;
    if (bit < whole) m = bitsAt(data, bitOffset + bit, p);
    else {
      m = 0;
      for (let k = 0; k < p; k++) m = (m << 1) | (bit + k < bitCount ? bitAt(data, bitOffset + bit + k) : (pad[k >>> 3] >>> (k & 7)) & 1);
    }
    bit += p;
    const flip = s ^ m;
    if (flip !== 0) {
      nudge(samples, pos[flip - 1], coin);
      changed++;
    }
    // positions only grow: nothing before this block's last sample changes again
    if (onFinal && (++blocks & 1023) === 0) onFinal(pos[nb - 1] + 1);
  };
  const total = Math.ceil(bitCount / p);
  if (!ready) strata.blocks(samples, nb, each);
  else {
    // in steps, each once the samples it reads are decoded; the last waits for all of them
    const step = Math.max(1024, Math.ceil(total / FOLLOW_STEPS));
    for (let from = 0; from < total; from += step) {
      const to = Math.min(total, from + step);
      ready(to === total ? samples.length : Math.min(samples.length, strata.endIndex(to, nb)));
      strata.blocks(samples, nb, each, from, to);
    }
  }
  return changed;
}

/** What an embedding that follows a decode down the picture is told, and asks. */
export interface Following {
  /** Samples before `below` will not change again. */
  onFinal?: (below: number) => void;
  /** Returns once the samples before `upTo` are decoded (blocking this thread until then). */
  ready?: (upTo: number) => void;
}

/** A walk that follows a decode waits for it about this many times. */
const FOLLOW_STEPS = 64;

/** Which bits of the data one walk carries (a video frame carries a share of them). */
export interface MatrixRange {
  bitOffset?: number;
  bitCount?: number;
}

export function readMatrix(samples: Samples, walk: Walk, p: number, out: Buffer, opts: MatrixRange = {}): void {
  const { bitOffset = 0, bitCount = out.length * 8 } = opts;
  const nb = (1 << p) - 1;
  walk(Math.ceil(bitCount / p) * nb).blocks(samples, nb, syndromeWriter(out, p, bitOffset, bitCount));
}

/** Takes blocks' syndromes in order and writes their p bits each (fewer at the very end) into out. */
function syndromeWriter(out: Buffer, p: number, bitOffset: number, bitCount: number): (s: number) => void {
  let bit = 0;
  return (s) => {
    let n = Math.min(p, bitCount - bit);
    const v = s >>> (p - n);
    let at = bitOffset + bit;
    bit += n;
    // ORed in a byte at a time
    while (n > 0) {
      const room = 8 - (at & 7);
      const take = Math.min(room, n);
      out[at >>> 3] |= ((v >>> (n - take)) & ((1 << take) - 1)) << (room - take);
      at += take;
      n -= take;
    }
  };
}

/** Walks of at least this many positions (about 10 ms) share the work with the helper thread. */
const SPLIT_POSITIONS = 1 << 21;

/**
 * The samples in memory the helper thread can read, for a picture whose walk may be shared;
 * undefined for one too small to ever be. Made while argon2id runs, it costs the reveal nothing.
 */
function shareable(samples: Samples): SharedArrayBuffer | undefined {
  if (Math.floor(samples.length * MAX_FILL) < SPLIT_POSITIONS) return undefined;
  const shared = new SharedArrayBuffer(samples.length);
  new Uint8Array(shared).set(samples);
  return shared;
}

/**
 * readMatrix for a whole picture, the second half of the blocks walked on the helper thread.
 * `copy`: the samples in shared memory already (shareable()).
 */
async function readMatrixShared(samples: Samples, plan: WalkPlan, p: number, out: Buffer, copy?: SharedArrayBuffer): Promise<void> {
  const write = syndromeWriter(out, p, 0, out.length * 8);
  const strata = new Strata(Buffer.from(plan.key), plan.stream, plan.n, plan.count, plan.taken, plan.lane);
  const blocks = plan.count / plan.nb;
  if (plan.count < SPLIT_POSITIONS) return strata.blocks(samples, plan.nb, write);
  const half = Math.ceil(blocks / 2);
  let shared = copy;
  if (!shared) {
    // the helper reads only from where its blocks begin: share that much of the samples
    const lo = strata.firstIndex(half, plan.nb);
    shared = new SharedArrayBuffer(samples.length);
    new Uint8Array(shared).set(samples.subarray(lo), lo);
  }
  const second = helperSyndromes(shared, plan, half, blocks);
  second.catch(() => {}); // awaited below
  strata.blocks(samples, plan.nb, write, 0, half);
  let rest: Uint16Array;
  try {
    rest = await second;
  } catch {
    strata.blocks(samples, plan.nb, write, half, blocks); // the helper failed: walk its half here
    return;
  }
  for (const s of rest) write(s);
}

// ---- one cover, two lanes (pictures, and each frame of a video) ---------------
//
// A picture's samples are two lanes (even and odd indices), and every hide fills both, with two
// streams of one length: its own in one lane, chosen at random, and in the other a decoy's, or,
// without a decoy, random bytes under random keys. Without a passphrase both are random bits at
// keyed random places; with one, a reveal opens that one stream and can tell nothing of the
// other: a lane as full as one's own, of noise, is what every hide leaves. So a decoy is
// deniable as long as it is at least as large as the real secret (the hide refuses a smaller
// one). Pictures hidden before the lanes (one stream over all samples) still reveal.

/** The two lanes every hide fills. */
export const LANES: readonly Lane[] = [
  { stride: 2, offset: 0 },
  { stride: 2, offset: 1 },
];

/** Largest container (bytes) one stream of a picture of `n` samples can hold: a lane's. */
export function laneCapacityBytes(n: number): number {
  return capacityBytes(laneSize(n, LANES[0]));
}

/** A container and the keys it is sealed under. */
export interface Payload {
  container: Buffer;
  keys: SealingKeys | Promise<SealingKeys>;
}

/** What fills the lane a hide without a decoy leaves: `bytes` random bytes under random keys. */
function noise(bytes: number): Payload {
  const r = () => randomBytes(32);
  return { container: randomBytes(bytes), keys: { salt: randomBytes(SALT_BYTES), keys: { locator: r(), header: r(), payload: r() } } };
}

/**
 * What each lane of a hide carries, in LANES' order: its own payload in one chosen at random,
 * and the decoy's, or noise, in the other. `capacity`: a lane's, in bytes.
 *
 * The two streams are always of one length, so the lanes change alike and a hide with a decoy
 * has the same statistics as one without, lane by lane: noise is as long as the secret, and a
 * secret shorter than its decoy is padded to the decoy's length (zeros after its files, inside
 * its encryption, which a reveal skips: entries() reads only the files the container lists).
 * Only the secret is ever padded, since a padded decoy would show its owner's adversary that the
 * other lane is longer than it needed to be; so a decoy must be at least as large as the secret.
 */
export function fillLanes(own: Payload, capacity: number, decoy?: Payload): { streams: Payload[]; own: number } {
  for (const [what, c] of [['secret', own.container], ['decoy', decoy?.container]] as const) {
    if (c && c.length > capacity) throw new MediaError('limit_exceeded', `The ${what} does not fit: this cover holds at most ${capacity} bytes and the ${what} needs ${c.length}.`);
  }
  if (decoy && decoy.container.length < own.container.length) {
    throw new MediaError('invalid_option', `The decoy must be at least as large as the secret, once compressed (${decoy.container.length} against ${own.container.length} bytes): add to the decoy files.`);
  }
  const at = randomInt(2);
  const streams: Payload[] = [];
  const padded = decoy ? Buffer.concat([own.container, Buffer.alloc(decoy.container.length - own.container.length)]) : own.container;
  streams[at] = { container: padded, keys: own.keys };
  streams[1 - at] = decoy ?? noise(own.container.length);
  return { streams, own: at };
}

/**
 * Embeds a container (and a decoy's, given one) into one picture's samples, each stream in its
 * own lane. `onFinal(i)` is told, now and then, that samples before i will not change again
 * (the PNG writer deflates them meanwhile); `ready` follows a decode down the picture.
 */
export async function embed(samples: Samples, container: Buffer, keys: SealingKeys | Promise<SealingKeys>, follow: Following = {}, decoy?: Payload): Promise<{ changed: number; p: number }> {
  const n = samples.length;
  const { streams, own } = fillLanes({ container, keys }, laneCapacityBytes(n), decoy);
  const m = laneSize(n, LANES[0]);
  const room = Math.floor(m * MAX_FILL) - HEADER_BITS;
  let changed = 0;
  let ownP = 0;
  for (const [i, lane] of LANES.entries()) {
    const { container: c, keys: k } = streams[i];
    const p = chooseP((c.length + TAG_BYTES) * 8, room);
    if (i === own) ownP = p;
    const sealed = seal(await k, c, 1, p);
    const head = headerPositions(sealed.locator, m, HEADER_BITS);
    const walk: Walk = (count) => new Strata(sealed.locator, 0, m, count, head, lane);
    // the first lane's walk follows the decode (its last step waits for all of it); the
    // second's tells the writer what is final, since only then does nothing change any more
    if (i === 0) follow.ready?.(Math.min(n, HEADER_REGION * lane.stride));
    changed += writePlain(samples, head.map((h) => inLane(h, lane)), sealed.header);
    changed += writeMatrix(samples, walk, sealed.payload, p, i === 0 ? { ready: follow.ready } : { onFinal: follow.onFinal });
  }
  return { changed, p: ownP };
}

/** A stream's header as a reveal found it: its lane, the header's addresses in it, and what it says. */
export interface FoundHeader {
  lane: Lane;
  head: Uint32Array;
  opened: NonNullable<Awaited<ReturnType<typeof openHeader>>>;
}

/**
 * The header `locator` places in `samples` (a picture's, or a video's first frame's) that opens
 * under this passphrase: both lanes' at once (argon2id for each, side by side on the thread
 * pool), and the whole samples' (hides from before the lanes) only when neither opens: a third
 * argon2id beside them cost every reveal about a quarter of a second on two cores.
 */
export async function findHeader(samples: Samples, locator: Buffer, keys: PassphraseKeys, domain: string): Promise<FoundHeader | undefined> {
  const tryLane = async (lane: Lane): Promise<FoundHeader | undefined> => {
    const m = laneSize(samples.length, lane);
    if (Math.floor(m * MAX_FILL) < HEADER_BITS) return undefined;
    const head = headerPositions(locator, m, HEADER_BITS);
    const opened = await openHeader(readPlain(samples, head.map((h) => inLane(h, lane)), HEADER_BYTES), keys, domain);
    return opened && { lane, head, opened };
  };
  return (await Promise.all(LANES.map(tryLane))).find((t) => t !== undefined) ?? (await tryLane(WHOLE));
}

/**
 * Reads a container back; throws the one and only "nothing found" error on any failure.
 * `samples` may still be decoding: given `top`, at least their first 2 × HEADER_REGION, the
 * headers are read from that and argon2id runs while the rest decodes.
 */
export async function extract(samples: Samples | Promise<Samples>, passphrase: string | PassphraseKeys, domain: string, top?: Samples): Promise<Buffer> {
  const keys = keysOf(passphrase);
  const nothing = () => new MediaError('nothing_found', NOTHING_FOUND);
  if (samples instanceof Promise) samples.catch(() => {}); // awaited below, unless the headers fail first
  // A picture still decoding is copied into shared memory for the helper thread as soon as it
  // is decoded: while argon2id runs, not after it.
  const copy = samples instanceof Promise ? samples.then(shareable) : undefined;
  copy?.catch(() => {}); // awaited below with the samples
  const headFrom = top && top.length >= 2 * HEADER_REGION ? top : await samples;
  const locator = await keys.locator(domain);
  const found = await findHeader(headFrom, locator, keys, domain);
  if (!found) throw nothing();
  const { lane, head, opened } = found;
  const all = await samples;
  const m = laneSize(all.length, lane);
  const { length, p } = opened.header;
  if (HEADER_BITS + blocksFor(length * 8, p) * ((1 << p) - 1) > Math.floor(m * MAX_FILL)) throw nothing();
  const sealed = Buffer.alloc(length);
  const nb = (1 << p) - 1;
  await readMatrixShared(all, { key: locator, stream: 0, n: m, count: blocksFor(length * 8, p) * nb, taken: head, nb, lane }, p, sealed, await copy);
  const container = openPayload(sealed, opened.payloadKey, opened.nonce);
  if (!container) throw nothing();
  return container;
}
