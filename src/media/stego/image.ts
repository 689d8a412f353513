// Hide and reveal in still images. The cover is decoded to 8-bit pixels (orientation applied),
// the stream embedded, and the result written losslessly (PNG by default, lossless WebP or
// AVIF on request) with no metadata; WebP and AVIF outputs are decoded again and checked.
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { decodePixels, decodeTopRows } from '../decode.ts';
import { plainPng } from '../png-rows.ts';
import { MediaError } from '../errors.ts';
import { article, formatName } from '../format-names.ts';
import type { MediaLimits } from '../limits.ts';
import { probe, type Probe } from '../probe.ts';
import { admitStego } from './admission.ts';
import { pack, type Secret } from './container.ts';
import { PngEncoder } from './png.ts';
import { checkRevealable, keptThrough, revealBound, writeSecrets, type RevealedFile } from './reveal-files.ts';
import { HEADER_REGION } from './positions.ts';
import { IMAGE_DOMAIN, pixelSamples, type PixelInfo } from './pixels.ts';
import { NOTHING_FOUND, capacityBytes, embed, extract, laneCapacityBytes, type Payload, type SealingKeys } from './stream.ts';
import { helperDecode, type DecodingRows } from './walk-helper.ts';
import type { PassphraseKeys } from './keys.ts';

export type StegoImageFormat = 'png' | 'webp' | 'avif';
export const STEGO_IMAGE_FORMATS: readonly StegoImageFormat[] = ['png', 'webp', 'avif'];
const MIME: Record<StegoImageFormat, string> = { png: 'image/png', webp: 'image/webp', avif: 'image/avif' };
export interface StegoContext {
  limits: MediaLimits;
  signal?: AbortSignal;
  onSpawn?: (pid: number) => void;
  onReap?: (pid: number) => void;
  /** Waits for the job's memory under the instance's budget (admission.ts); absent: no budget. */
  admit?: (bytes: number) => Promise<void>;
}

/** The cover's pixels; a grey cover stays grey, since R, G and B drifting apart by 1 would give it away. */
async function decode(file: string, p: Probe, workDir: string, ctx: StegoContext): Promise<{ data: Buffer; info: PixelInfo }> {
  const { data, ...info } = await decodePixels(file, p, workDir, ctx);
  return { data, info };
}

/** Capacity in bytes of one container (a lane's), from the header only (no decode): every sample opaque. */
export function imageCapacity(p: Probe, channels = 3): number {
  return laneCapacityBytes(p.width * p.height * channels);
}

/** What a reveal of this picture may give back at most: a whole picture's capacity, as pictures hidden before the lanes had. */
function revealCapacity(p: Probe, channels = 3): number {
  return capacityBytes(p.width * p.height * channels);
}

/** A decoy: files of its own, sealed under a passphrase of its own (keys from sealingKeys, as for the secret). */
export interface Decoy {
  secrets: Secret[];
  keys: Promise<SealingKeys>;
}

export interface HideResult {
  path: string;
  mime: string;
  extension: string;
  width: number;
  height: number;
  capacity: number;
  changed: number;
  notes: string[];
  /** Who decoded a still cover: the helper thread, row by row, or sharp. */
  decoder?: 'rows' | 'sharp';
}

/** `keys` come from sealingKeys(passphrase, IMAGE_DOMAIN), and may still be in the making. */
export async function hideInImage(cover: string, secrets: Secret[], keys: Promise<SealingKeys>, outDir: string, format: StegoImageFormat, ctx: StegoContext, decoy?: Decoy): Promise<HideResult> {
  const p = await probe(cover, ctx.limits, ctx);
  if (p.kind !== 'image') throw new MediaError('invalid_option', 'This cover is a video; video covers are written as MKV or WebM.');
  await admitStego('hide', p, ctx);
  const notes: string[] = [];
  if (!['png', 'webp', 'avif'].includes(p.format) || p.animated) {
    const from = formatName(p.format);
    notes.push(`The cover was ${p.animated ? 'animated' : `${article(from)} ${from}`}; the result is a lossless ${formatName(format)} of its${p.animated ? ' first' : ''} picture.`);
  }
  // nothing the reveal would refuse (reveal-files.ts)
  checkRevealable(secrets.map((s) => s.data.byteLength), revealBound(ctx.limits, imageCapacity(p)));
  if (decoy) checkRevealable(decoy.secrets.map((s) => s.data.byteLength), revealBound(ctx.limits, imageCapacity(p)));
  const container = pack(secrets);
  // its size against the secret's is checked where the lanes are filled (stream.ts fillLanes)
  const other = decoy && { container: pack(decoy.secrets), keys: decoy.keys };
  const out = path.join(outDir, `hidden.${format}`);
  let done: Hidden | undefined;
  // A plain PNG cover written as PNG: the helper thread decodes it while the embedding follows.
  const followed = format === 'png' && p.format === 'png' ? await followDecode(cover, p) : undefined;
  if (followed) {
    try {
      done = await hideInPixels(followed.data, followed.info, container, keys, format, out, followed.decoding, other);
    } catch (err) {
      if (!(err instanceof DecodeFailed)) throw err;
      // sharp decides what this file holds, as for any other cover
    }
  }
  if (!done) {
    const { data, info } = await decode(cover, p, outDir, ctx);
    done = await hideInPixels(data, info, container, keys, format, out, undefined, other);
  }
  return { path: out, mime: MIME[format], extension: format, ...done, notes };
}

type Hidden = Pick<HideResult, 'width' | 'height' | 'changed' | 'capacity' | 'decoder'>;

/** A decode on the helper thread that failed or stalled: the caller decodes the cover itself. */
class DecodeFailed extends Error {}

/** Starts the helper thread decoding a plain PNG (png-rows.ts) cover; undefined for any other. */
async function followDecode(cover: string, p: Probe): Promise<{ data: Buffer; info: PixelInfo; decoding: DecodingRows } | undefined> {
  const file = await readFile(cover);
  const png = plainPng(file);
  if (!png || png.width !== p.width || png.height !== p.height) return undefined;
  const pixels = new SharedArrayBuffer(png.width * png.height * png.channels);
  return { data: Buffer.from(pixels), info: png, decoding: helperDecode(file, pixels) };
}

/**
 * Embeds and writes the result. Given `decoding`, the pixels are still being decoded: the
 * embedding waits for the rows it reads, and nothing is written before the decode has passed
 * every check (DecodeFailed otherwise).
 */
async function hideInPixels(data: Buffer, info: PixelInfo, container: Buffer, keys: Promise<SealingKeys>, format: StegoImageFormat, out: string, decoding?: DecodingRows, decoy?: Payload): Promise<Hidden> {
  const space = pixelSamples(data, info);
  // A PNG is deflated slice by slice as the embedding moves down the picture (when the samples
  // are the pixels themselves; gathered samples only reach the pixels at commit()).
  const stride = info.width * info.channels;
  const png = format === 'png' ? await PngEncoder.create(data, info.width, info.height, info.channels) : undefined;
  const onFinal = png && space.samples === data ? (below: number) => png.rowsFinal(Math.floor(below / stride)) : undefined;
  const ready = decoding
    ? (upTo: number) => {
        try {
          decoding.rows(Math.ceil(upTo / stride));
        } catch (err) {
          throw new DecodeFailed((err as Error).message);
        }
      }
    : undefined;
  const { changed } = await embed(space.samples, container, keys, { onFinal, ready }, decoy);
  if (decoding) await decoding.done.catch((err: Error) => Promise.reject(new DecodeFailed(err.message)));
  space.commit();
  if (png) {
    // the last slices go to the thread pool now: opening the file first would queue behind them
    const encoded = png.finish();
    encoded.catch(() => {}); // awaited below, unless the open fails first
    const fh = await open(out, 'wx', 0o600);
    try {
      await fh.writev(await encoded);
    } finally {
      await fh.close();
    }
  } else {
    const img = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels as 1 | 2 | 3 | 4 } });
    await (format === 'webp' ? img.webp({ lossless: true, effort: 4 }) : img.avif({ lossless: true, effort: 4 })).toFile(out);
    // these encoders must decode to exactly the embedded pixels, or the secret would be lost
    const back = await sharp(out).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    if (back.info.channels !== info.channels || !back.data.equals(data)) {
      throw new MediaError('engine_failed', `The ${formatName(format)} encoder did not keep the pixels exactly; try PNG.`);
    }
  }
  return { width: info.width, height: info.height, changed, capacity: laneCapacityBytes(space.samples.length), decoder: decoding ? 'rows' : 'sharp' };
}

export type { RevealedFile };

/**
 * Reveals every secret into outDir. A wrong passphrase, nothing hidden or a damaged file is one
 * and the same NOTHING_FOUND error; hidden files over the bound are 'reveal_too_large'.
 */
export async function revealFromImage(file: string, passphrase: string | PassphraseKeys, outDir: string, ctx: StegoContext): Promise<RevealedFile[]> {
  let container: Buffer;
  let capacity: number;
  try {
    const p = await probe(file, ctx.limits, ctx);
    if (p.kind !== 'image') throw new Error('not an image');
    await admitStego('reveal', p, ctx);
    capacity = revealCapacity(p); // as a hide before the lanes counted it: the larger
    const whole = decode(file, p, outDir, ctx).then(({ data, info }) => pixelSamples(data, info).samples);
    whole.catch(() => {}); // awaited in extract()
    // The header sits in the first rows: read from a partial decode, its argon2id runs while
    // the rest of the picture decodes. Rows enough for an RGB picture; a grey or partly
    // transparent one may come up short, and then waits for the whole decode.
    const top = await decodeTopRows(file, p, Math.ceil((2 * HEADER_REGION) / (p.width * 3)), ctx).catch(() => undefined);
    container = await extract(whole, passphrase, IMAGE_DOMAIN, top && pixelSamples(top.data, top).samples);
  } catch (err) {
    if (keptThrough(err)) throw err;
    throw new MediaError('nothing_found', NOTHING_FOUND);
  }
  return writeSecrets(container, outDir, revealBound(ctx.limits, capacity), ctx.signal);
}

export async function readSecrets(files: { path: string; name: string }[]): Promise<Secret[]> {
  return Promise.all(files.map(async (f) => ({ name: f.name, data: await readFile(f.path) })));
}
