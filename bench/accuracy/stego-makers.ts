// BENCHMARK ONLY: stego that this project did not make. Given a cover (a corpus picture, or
// pixels with an id), makes its stego versions at 0.05, 0.1, 0.2 and 0.4 bpp with third-party
// tools and the two naive schemes, with seeded random (incompressible) payloads:
// - 'lsb-replacement': naive LSB replacement at random positions (steganalysis/naive-lsb.ts);
// - 'lsb-matching': +-1 at random positions, random sign (steganalysis/naive-lsb.ts);
// - 'steghide': Debian's steghide 0.5.1 on a 24-bit BMP (-Z: no compression; its default
//   encryption with a passphrase), back to PNG. Not LSB replacement: it swaps sample values
//   between pixels (graph matching) to keep the histogram; measured changes are +-1..+-4;
// - 'stegosuite': Debian's stegosuite 0.9 (Java) on a PNG cover for even-numbered covers and a
//   BMP cover for odd ones (BMP output back to PNG); measured to be LSB replacement at
//   key-chosen positions in all three channels, skipping flat areas (a flat picture's capacity
//   is a few bytes: over capacity);
// - 'outguess': Debian's outguess 0.4 on a JPEG cover (quality 90, written by sharp; outguess
//   decodes and writes it at the same quality, -p 90). Its capacity is small: a rate it cannot
//   carry is recorded as over capacity, with what it could carry.
// - 'obscura' and 'obscura-decoy': this project's own hide (src/media/stego/stream.ts, embed():
//   LSB matching with Hamming matrix embedding, one stream per lane of even and odd samples), on
//   the cover's raw RGB samples, written as PNG. 'obscura' is a hide without a decoy (the secret
//   in one lane; in the other the noise the product writes, as long as the secret, under random
//   keys); 'obscura-decoy' a hide with one. At a total rate of T container bits (what the hide
//   is handed; sealing adds the same header and tag to every stream), each is two streams of
//   T/2: the single hide's secret and its noise, the decoy hide's secret and decoy (the product
//   pads a secret shorter than its decoy to the decoy's length, so equal halves are every decoy
//   hide's case). The same bits are then the same expected changes. The keys are random (as the
//   noise lane's are): argon2id makes keys, not statistics. The hide's own randomness (lane,
//   nonce, the +-1 signs) comes from the system's CSPRNG, so these files are not reproducible
//   bit for bit: like every maker's they are cached, so reruns judge the same ones. `changed`
//   records how many samples each file changed (what embed() counts). A container larger than a
//   lane holds (laneCapacityBytes) is over capacity.
// bpp = payload bits / (width x height) of the cover as embedded. The payload file is sized so
// that it plus the tool's own header (about 40 bytes for steghide and stegosuite, 4 for outguess)
// is the rate's bits; `bits` records what the tool reports it embedded where it reports it.
// Covers are decoded as the analysis decodes them, made RGB (grey is widened, alpha dropped) and
// downscaled to at most `maxSide` px on the long side (steghide's graph grows faster than the
// payload: 14 s and 2.5 GB for 0.4 bpp in 1024x640, 7 s in 768x480).
// The tools run in a scratch folder under os.tmpdir(), removed afterwards; the stego files are
// kept in .cache/accuracy/stego/ keyed by (picture id, cover size, tool, rate, seed) so that
// reruns only analyse.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { decodePixels } from '../../src/media/decode.ts';
import { DEFAULT_LIMITS } from '../../src/media/limits.ts';
import { probe } from '../../src/media/probe.ts';
import { embedLsbMatching, embedLsbReplacement } from '../../src/media/analyse/steganalysis/naive-lsb.ts';
import type { PixelImage } from '../../src/media/analyse/steganalysis/types.ts';
import { CONTAINER_OVERHEAD, fileOverhead, pack } from '../../src/media/stego/container.ts';
import type { SealingKeys } from '../../src/media/stego/keys.ts';
import { embed, laneCapacityBytes } from '../../src/media/stego/stream.ts';

export const RATES = [0.05, 0.1, 0.2, 0.4] as const;
export const TOOLS = ['lsb-replacement', 'lsb-matching', 'steghide', 'stegosuite', 'outguess'] as const;
/** This project's own hide, without and with a decoy (not in TOOLS: decoy-table.ts judges them,
 *  paired on the same covers). */
export const OBSCURA_TOOLS = ['obscura', 'obscura-decoy'] as const;
export type ObscuraTool = (typeof OBSCURA_TOOLS)[number];
export type Tool = (typeof TOOLS)[number] | ObscuraTool;

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CACHE = path.join(ROOT, '.cache/accuracy/stego');
export const STEGO_KEY = 'obscura bench key';
const JPEG_QUALITY = 90;
/** Bytes of the tools' own framing around the payload (stegosuite measured 44 with a 5-letter
 *  name, its -d output says; steghide's header, IV and padding are of the same order). */
const HEADER_BYTES: Record<Tool, number> = { 'lsb-replacement': 0, 'lsb-matching': 0, steghide: 40, stegosuite: 40, outguess: 4, obscura: 0, 'obscura-decoy': 0 };

/** An RGB cover as embedded: `index` picks stegosuite's cover format (even PNG, odd BMP). */
export interface Cover {
  id: string;
  img: PixelImage;
  index: number;
  /** true when it was downscaled to fit maxSide */
  scaled: boolean;
}

export interface Made {
  tool: Tool;
  rate: number;
  seed: number;
  /** 'over-capacity': the tool refused the payload as too large; 'failed': any other failure */
  status: 'ok' | 'over-capacity' | 'failed';
  /** the stego file as the analysis reads it (PNG, or JPEG for outguess); absent unless ok */
  file?: string;
  cover: 'png' | 'bmp' | 'jpeg';
  payloadBytes: number;
  /** what the tool says it embedded (payload and its framing), when it says it */
  bits?: number;
  /** the tool's capacity in bits, when it reports it (outguess; obscura: one lane's) */
  capacityBits?: number;
  /** samples changed (obscura: what embed() counts, both lanes and their headers) */
  changed?: number;
  note?: string;
}

/** Decodes a picture as the analysis does, then RGB, at most maxSide px on its long side. */
export async function coverFromFile(id: string, file: string, index: number, maxSide: number): Promise<Cover> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'obscura-cover-'));
  try {
    const px = await decodePixels(file, await probe(file, DEFAULT_LIMITS), scratch, { limits: DEFAULT_LIMITS });
    const scaled = Math.max(px.width, px.height) > maxSide;
    let s = sharp(px.channels >= 3 ? px.data : widen(px.data, px.channels), { raw: { width: px.width, height: px.height, channels: px.channels >= 3 ? px.channels : 3 } });
    if (px.channels === 4) s = s.removeAlpha();
    if (scaled) s = s.resize({ width: maxSide, height: maxSide, fit: 'inside' });
    const { data, info } = await s.raw().toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`cover has ${info.channels} channels`);
    return { id, index, scaled, img: { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 } };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Grey (or grey and alpha) samples repeated into RGB. */
function widen(grey: Buffer, channels: number): Buffer {
  const n = grey.length / channels, out = Buffer.allocUnsafe(n * 3);
  for (let i = 0; i < n; i++) out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = grey[i * channels];
  return out;
}

/** The clean cover as a file of the kind the tool's stego output is analysed in (cached). */
export async function cleanCoverFile(cover: Cover, kind: 'png' | 'jpeg', cacheDir = CACHE): Promise<string> {
  const file = path.join(coverDir(cover, cacheDir), `clean.${kind === 'png' ? 'png' : 'jpg'}`);
  if (!existsSync(file)) await atomicWrite(file, kind === 'png' ? await png(cover.img) : await jpeg(cover.img));
  return file;
}

/** Whether makeStego will answer from the cache. */
export function stegoCached(cover: Cover, tool: Tool, rate: number, seed = 1, cacheDir = CACHE): boolean {
  return existsSync(`${path.join(coverDir(cover, cacheDir), `${tool}-${rate}-s${seed}`)}.json`);
}

/** Makes (or finds in the cache) the stego version of `cover` by `tool` at `rate` bpp. */
export async function makeStego(cover: Cover, tool: Tool, rate: number, seed = 1, cacheDir = CACHE): Promise<Made> {
  const dir = coverDir(cover, cacheDir);
  const base = path.join(dir, `${tool}-${rate}-s${seed}`);
  const metaFile = `${base}.json`;
  if (existsSync(metaFile)) {
    const m = JSON.parse(await readFile(metaFile, 'utf8')) as Made;
    // a failure (not a refusal) is tried again
    if (m.status === 'over-capacity' || (m.status === 'ok' && m.file && existsSync(m.file))) return m;
  }
  const { payload, numericSeed } = payloadFor(cover, tool, rate, seed);
  const { width, height } = cover.img;
  const out = `${base}.${tool === 'outguess' ? 'jpg' : 'png'}`;
  let made: Made;
  if (tool === 'lsb-replacement' || tool === 'lsb-matching') {
    const img = (tool === 'lsb-replacement' ? embedLsbReplacement : embedLsbMatching)(cover.img, rate, numericSeed);
    await atomicWrite(out, await png(img));
    made = { tool, rate, seed, status: 'ok', file: out, cover: 'png', payloadBytes: 0, bits: Math.round(rate * width * height) };
  } else if (tool === 'obscura' || tool === 'obscura-decoy') {
    made = await obscuraHide(cover, tool, rate, seed, out);
  } else {
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'obscura-stego-maker-'));
    try {
      made = await runMaker(tool, cover, rate, seed, payload, scratch, out);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  await atomicWrite(metaFile, Buffer.from(JSON.stringify(made)));
  return made;
}

/** The seeded payload of (cover, tool, rate, seed): random bytes, the same on every run and
 *  nothing to compress; sized so that it and the tool's header make rate x width x height bits. */
export function payloadFor(cover: Cover, tool: Tool, rate: number, seed: number): { payload: Buffer; numericSeed: number } {
  const h = createHash('sha256').update(`${cover.id}|${cover.img.width}x${cover.img.height}|${tool}|${rate}|${seed}`).digest();
  const payloadBytes = Math.max(1, Math.floor((rate * cover.img.width * cover.img.height) / 8) - HEADER_BYTES[tool]);
  return { payload: createHash('shake256', { outputLength: payloadBytes }).update(h).digest(), numericSeed: h.readUInt32LE(0) };
}

/** Container bytes of each stream of an obscura hide at `rate` bpp in total in an RGB cover (see
 *  the top): two of T/2, with a decoy or without (its noise). */
export function obscuraSizes(tool: ObscuraTool, rate: number, width: number, height: number): { secret: number; decoy: number } {
  const half = Math.floor((rate * width * height) / 16);
  return { secret: half, decoy: tool === 'obscura' ? 0 : half };
}

const randomKeys = (): SealingKeys => ({ salt: randomBytes(16), keys: { locator: randomBytes(32), header: randomBytes(32), payload: randomBytes(32) } });

/** A container of exactly `bytes` (at least its own framing): one file of random bytes, which
 *  pack() leaves uncompressed. */
function containerOf(bytes: number, name: string): Buffer {
  const framing = CONTAINER_OVERHEAD + fileOverhead(name);
  return pack([{ name, data: randomBytes(Math.max(0, bytes - framing)) }]);
}

/** This project's hide on the cover's RGB samples, as the product embeds an RGB picture. */
async function obscuraHide(cover: Cover, tool: ObscuraTool, rate: number, seed: number, out: string): Promise<Made> {
  const { width, height } = cover.img;
  const samples = new Uint8Array(cover.img.data);
  const capacity = laneCapacityBytes(samples.length);
  const sizes = obscuraSizes(tool, rate, width, height);
  const base = { tool, rate, seed, cover: 'png', capacityBits: capacity * 8 } as const;
  if (Math.max(sizes.secret, sizes.decoy) > capacity) return { ...base, status: 'over-capacity', payloadBytes: sizes.secret + sizes.decoy, note: `a lane holds ${capacity} bytes` };
  const secret = containerOf(sizes.secret, 'secret.bin');
  const decoy = tool !== 'obscura' ? { container: containerOf(sizes.decoy, 'decoy.bin'), keys: randomKeys() } : undefined;
  const { changed } = await embed(samples, secret, randomKeys(), {}, decoy);
  await atomicWrite(out, await png({ ...cover.img, data: samples }));
  const bits = 8 * (tool === 'obscura' ? 2 * secret.length : secret.length + decoy!.container.length);
  return { ...base, status: 'ok', file: out, payloadBytes: secret.length + (decoy?.container.length ?? 0), bits, changed, ...(tool === 'obscura' ? { note: 'bits: the secret and its noise lane, as long as it' } : {}) };
}

async function runMaker(tool: 'steghide' | 'stegosuite' | 'outguess', cover: Cover, rate: number, seed: number, payload: Buffer, scratch: string, out: string): Promise<Made> {
  const secret = path.join(scratch, 'm');
  await writeFile(secret, payload);
  const base = { tool, rate, seed, payloadBytes: payload.length } as const;
  if (tool === 'steghide') {
    const c = path.join(scratch, 'c.bmp'), s = path.join(scratch, 's.bmp');
    await writeFile(c, bmp24(cover.img));
    const r = await run('steghide', ['embed', '-cf', c, '-ef', secret, '-p', STEGO_KEY, '-sf', s, '-q', '-f', '-Z']);
    if (r.code !== 0) return { ...base, cover: 'bmp', status: /too short|capacity/i.test(r.err) ? 'over-capacity' : 'failed', note: reasonOf(r.err) };
    await atomicWrite(out, await png(readBmp24(await readFile(s))));
    return { ...base, cover: 'bmp', status: 'ok', file: out, bits: (payload.length + HEADER_BYTES.steghide) * 8 };
  }
  if (tool === 'stegosuite') {
    const kind = cover.index % 2 === 0 ? 'png' : 'bmp';
    const c = path.join(scratch, `c.${kind}`), s = path.join(scratch, `s.${kind}`);
    await writeFile(c, kind === 'png' ? await png(cover.img) : bmp24(cover.img));
    const r = await run('stegosuite', ['embed', '-d', '-k', STEGO_KEY, '-f', secret, '-o', s, c]);
    const packed = /Packed payload to (\d+) bytes/.exec(r.out + r.err);
    // stegosuite skips flat areas: a flat picture holds a few bytes only ("Payload is too large")
    if (r.code !== 0 || !existsSync(s)) return { ...base, cover: kind, status: /payload is too large/i.test(r.out + r.err) ? 'over-capacity' : 'failed', note: reasonOf(r.out + r.err) };
    await atomicWrite(out, kind === 'png' ? await png(await rgbOf(s)) : await png(readBmp24(await readFile(s))));
    return { ...base, cover: kind, status: 'ok', file: out, ...(packed ? { bits: Number(packed[1]) * 8 } : {}) };
  }
  const c = path.join(scratch, 'c.jpg'), s = path.join(scratch, 's.jpg');
  await writeFile(c, await jpeg(cover.img));
  const r = await run('outguess', ['-k', STEGO_KEY, '-p', String(JPEG_QUALITY), '-d', secret, c, s]);
  const text = r.out + r.err;
  const capacity = /Correctable message size: (\d+) bits/.exec(text);
  const embedded = /Bits embedded: (\d+)/.exec(text);
  // on some flat covers it prints a wrapped-around (negative) size: no capacity then
  const usableBits = Number(/Extracting usable bits:\s+(\d+)/.exec(text)?.[1] ?? NaN);
  const capacityBits = capacity && Number(capacity[1]) <= usableBits ? Number(capacity[1]) : undefined;
  // on very flat covers (a few thousand usable bits) outguess dies of a division by zero
  // (SIGFPE) before it says the message is too large: that is a refusal too
  const tooFew = r.signal !== null && usableBits < 2 * 8 * payload.length;
  if (r.code !== 0 || !existsSync(s)) return { ...base, cover: 'jpeg', status: /larger than correctable|not enough bits/.test(text) || tooFew ? 'over-capacity' : 'failed', capacityBits, note: tooFew ? `outguess died (${r.signal}) with ${usableBits} usable bits` : reasonOf(text) };
  await atomicWrite(out, await readFile(s));
  return { ...base, cover: 'jpeg', status: 'ok', file: out, capacityBits, ...(embedded ? { bits: Number(embedded[1]) } : {}) };
}

function coverDir(cover: Cover, cacheDir: string): string {
  return path.join(cacheDir, cover.id, `${cover.img.width}x${cover.img.height}`);
}

async function atomicWrite(file: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.partial`;
  await writeFile(tmp, bytes);
  await rename(tmp, file);
}

const raw = (img: PixelImage) => sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels } });
const png = (img: PixelImage) => raw(img).png({ compressionLevel: 6 }).toBuffer();
const jpeg = (img: PixelImage) => raw(img).jpeg({ quality: JPEG_QUALITY }).toBuffer();

async function rgbOf(file: string): Promise<PixelImage> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 };
}

/** A 24-bit BI_RGB BMP (bottom-up, BGR, rows padded to 4 bytes), as steghide reads it. */
export function bmp24(img: PixelImage): Buffer {
  const { width: w, height: h, data } = img;
  const stride = (w * 3 + 3) & ~3;
  const buf = Buffer.alloc(54 + stride * h);
  buf.write('BM', 0, 'latin1');
  buf.writeUInt32LE(buf.length, 2);
  buf.writeUInt32LE(54, 10);
  buf.writeUInt32LE(40, 14);
  buf.writeInt32LE(w, 18);
  buf.writeInt32LE(h, 22);
  buf.writeUInt16LE(1, 26);
  buf.writeUInt16LE(24, 28);
  buf.writeUInt32LE(stride * h, 34);
  for (let y = 0; y < h; y++) {
    const row = 54 + (h - 1 - y) * stride;
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3, o = row + x * 3;
      buf[o] = data[i + 2];
      buf[o + 1] = data[i + 1];
      buf[o + 2] = data[i];
    }
  }
  return buf;
}

/** Reads an uncompressed 24-bit BMP (what steghide and stegosuite write) into RGB pixels. */
export function readBmp24(buf: Buffer): PixelImage {
  if (buf.toString('latin1', 0, 2) !== 'BM' || buf.readUInt16LE(28) !== 24 || buf.readUInt32LE(30) !== 0) throw new Error('not an uncompressed 24-bit BMP');
  const off = buf.readUInt32LE(10), w = buf.readInt32LE(18), hSigned = buf.readInt32LE(22);
  const h = Math.abs(hSigned), stride = (w * 3 + 3) & ~3;
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const row = off + (hSigned > 0 ? h - 1 - y : y) * stride;
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3, o = row + x * 3;
      data[i] = buf[o + 2];
      data[i + 1] = buf[o + 1];
      data[i + 2] = buf[o];
    }
  }
  return { data, width: w, height: h, channels: 3 };
}

/** The tool's reason (its line about the payload's size, else its last words), without colour
 *  codes or our scratch paths. */
function reasonOf(s: string): string | undefined {
  const lines = s.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim()).filter(Boolean);
  return (lines.find((l) => /too large|larger than|not enough/i.test(l)) ?? lines.pop())?.replaceAll(os.tmpdir(), '<tmp>').slice(0, 200);
}

/** Runs a tool; 15 minutes at most (steghide on a large cover at 0.4 bpp is the slowest). */
function run(cmd: string, args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DISPLAY: '' } });
    let out = '', err = '';
    child.stdout.on('data', (d: Buffer) => { if (out.length < 8 << 20) out += d.toString('utf8'); });
    child.stderr.on('data', (d: Buffer) => { if (err.length < 8 << 20) err += d.toString('utf8'); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000);
    child.on('error', (e) => { clearTimeout(timer); reject(new Error(`${cmd}: ${e.message} (npm run bench installs it: deploy/setup.sh --bench)`)); });
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, out, err }); });
  });
}
