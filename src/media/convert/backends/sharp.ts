// sharp (libvips): decodes JPEG, PNG, WebP, AVIF, GIF and TIFF; encodes JPEG, PNG, WebP and
// AVIF. It writes no metadata unless asked (we never ask), and converts to sRGB on the way.
import type { Sharp } from 'sharp';
import { MediaError } from '../../errors.ts';
import { formatName } from '../../format-names.ts';
import type { ImageDetail } from '../../probe.ts';
import { SNIFF_BYTES, isRefused, sniff } from '../../sniff.ts';
import type { Conversion, Decoded, EncodeSettings, ImageBackend } from '../backend.ts';
import type { ImageTarget } from '../options.ts';

const DECODES = new Set(['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff']);
const ENCODES = new Set(['jpeg', 'png', 'webp', 'avif']);

export const sharpBackend: ImageBackend = {
  name: 'sharp',
  canDecode: (format) => DECODES.has(format),
  canEncode: (format) => ENCODES.has(format),

  async decode(input: string, _detail: ImageDetail): Promise<Decoded> {
    return { path: input, autoOrient: true };
  },

  async encode(pipeline: Sharp, target: ImageTarget, s: EncodeSettings, out: string, conversion: Conversion) {
    let p: Sharp;
    switch (target) {
      case 'jpeg':
        p = pipeline.jpeg({ quality: s.quality ?? 80, chromaSubsampling: (s.quality ?? 80) >= 90 ? '4:4:4' : '4:2:0' });
        break;
      case 'png':
        // sharp's PNG `quality` means palette quantisation (lossy): never pass it.
        p = pipeline.png({ compressionLevel: 6 });
        break;
      case 'webp':
        p = s.lossless ? pipeline.webp({ lossless: true, effort: 4 }) : pipeline.webp({ quality: s.quality ?? 80, effort: 4 });
        break;
      case 'avif':
        p = s.lossless ? pipeline.avif({ lossless: true, effort: 4 }) : pipeline.avif({ quality: s.quality ?? 50, effort: 4 });
        break;
      default:
        throw new MediaError('engine_failed', `sharp does not write ${target}.`);
    }
    const info = await conversion.budget.sharp(p, (q) => q.toFile(out));
    return { width: info.width, height: info.pageHeight ?? info.height };
  },
};

/**
 * Whether sharp decodes a file from its bytes in memory, judged by its first bytes: a format
 * it decodes itself. Any other goes to a file in scratch, for the tools that read files.
 */
export function decodesFromMemory(head: Buffer): boolean {
  const s = sniff(head.subarray(0, SNIFF_BYTES));
  return !!s && !isRefused(s) && s.kind === 'image' && DECODES.has(s.format);
}

/**
 * Maps a sharp failure to what the user should hear. libvips decodes lazily, so input damage
 * surfaces while writing; its messages can quote paths and are never passed on.
 */
export function sharpError(e: unknown, target?: string, inputLabel = 'image'): MediaError {
  if (e instanceof MediaError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  if (/exceeds pixel limit/i.test(msg)) {
    return new MediaError('limit_exceeded', 'The image has more pixels than this service decodes.', { cause: e });
  }
  const tooLarge = /too large for the (\w+) format/i.exec(msg);
  if (tooLarge) {
    return new MediaError(
      'invalid_option',
      `The result would be larger than ${target ? formatName(target) : tooLarge[1]} allows; ask for a smaller width or height.`,
      { cause: e },
    );
  }
  if (/load|premature|corrupt|truncat|read error|bad seek|unexpected end|invalid|unsupported image|not a known|damaged|decode|Input (file|buffer)/i.test(msg)) {
    return new MediaError('corrupt', `The ${inputLabel} could not be decoded: the file is damaged or incomplete.`, { cause: e });
  }
  return new MediaError('engine_failed', 'The image could not be converted because of an error on our side.', { cause: e });
}
