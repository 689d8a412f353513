// Any allowed still image to 8-bit pixels, as displayed (orientation applied). sharp decodes
// what it can; HEIC, JPEG XL and BMP go through the converters' lossless PNG path first. A grey
// picture stays grey (one channel): widened to RGB it would no longer be what the file holds.
import sharp from 'sharp';
import { convert } from './convert/index.ts';
import type { MediaLimits } from './limits.ts';
import './probe.ts'; // turns off libvips' cache: decoded plaintext must not outlive its job
import type { Probe } from './probe.ts';

export const SHARP_DECODES: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff']);

export interface DecodedPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

export interface DecodeContext {
  limits: MediaLimits;
  signal?: AbortSignal;
  onSpawn?: (pid: number) => void;
  onReap?: (pid: number) => void;
}

/** `workDir` is a scratch folder, used only when a converter has to run first. */
export async function decodePixels(file: string, p: Pick<Probe, 'format'>, workDir: string, ctx: DecodeContext): Promise<DecodedPixels> {
  let source = file;
  if (!SHARP_DECODES.has(p.format)) {
    const r = await convert(file, workDir, { target: 'image', format: 'png', lossless: true, fit: 'inside', upscale: false }, { limits: ctx.limits, signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap });
    source = r.path;
  }
  const img = sharp(source, { limitInputPixels: ctx.limits.maxPixels, animated: false });
  return raw(img.rotate(), await img.metadata());
}

/**
 * The first `rows` rows of what decodePixels gives, when they cost only themselves: a PNG
 * decodes top down and can stop there, as long as no orientation turns the picture. Undefined
 * when that does not hold (the caller waits for the whole picture instead).
 */
export async function decodeTopRows(file: string, p: Pick<Probe, 'format'>, rows: number, ctx: DecodeContext): Promise<DecodedPixels | undefined> {
  if (p.format !== 'png') return undefined;
  const img = sharp(file, { limitInputPixels: ctx.limits.maxPixels });
  const meta = await img.metadata();
  if ((meta.orientation ?? 1) !== 1 || rows >= meta.height) return undefined;
  return raw(img.extract({ left: 0, top: 0, width: meta.width, height: rows }), meta);
}

async function raw(img: sharp.Sharp, meta: sharp.Metadata): Promise<DecodedPixels> {
  if (meta.space !== 'b-w') return toPixels(await img.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true }));
  if (!meta.hasAlpha) return toPixels(await img.toColourspace('b-w').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true }));
  // Grey with alpha: sharp gives it as RGBA (grey repeated) or, asked for b-w, drops the alpha;
  // keep the grey and the alpha.
  const { data, info } = await img.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) return toPixels({ data, info });
  const out = Buffer.allocUnsafe((data.length / 4) * 2);
  for (let i = 0, o = 0; i < data.length; i += 4, o += 2) {
    out[o] = data[i];
    out[o + 1] = data[i + 3];
  }
  return { data: out, width: info.width, height: info.height, channels: 2 };
}

function toPixels({ data, info }: { data: Buffer; info: sharp.OutputInfo }): DecodedPixels {
  return { data, width: info.width, height: info.height, channels: info.channels as DecodedPixels['channels'] };
}
