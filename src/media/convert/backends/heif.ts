// HEIC through libheif's command-line tools (sharp's prebuilt libvips has no HEVC).
// Decode: heif-convert to a PNG in scratch. libheif applies irot/imir itself and the HEIF spec
// says EXIF orientation is to be ignored, so the PNG is not auto-oriented again.
// Encode: a clean sRGB PNG from sharp, then heif-enc. Measured here: heif-enc adds no EXIF, XMP,
// thumbnail or x265 version string; its lossless mode is near-lossless (±1), not bit-exact.
import { access, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Sharp } from 'sharp';
import { MediaError } from '../../errors.ts';
import type { ImageDetail } from '../../probe.ts';
import { runTool } from '../../tools.ts';
import type { Conversion, Decoded, EncodeSettings, ImageBackend } from '../backend.ts';
import type { ImageTarget } from '../options.ts';

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

export const heifBackend: ImageBackend = {
  name: 'heif',
  canDecode: (format) => format === 'heic',
  canEncode: (format) => format === 'heic',

  async decode(input: string, _detail: ImageDetail, conversion: Conversion): Promise<Decoded> {
    const png = conversion.temp('png');
    const r = await runTool('heif-convert', ['--quiet', input, png], conversion.toolOptions);
    // With several top-level images (bursts, collections) heif-convert numbers its outputs
    // name-1.png, name-2.png...: keep the first (the primary in practice), remove the rest.
    const stem = path.basename(png, '.png');
    const numbered = (await readdir(conversion.dir)).filter((f) => f.startsWith(`${stem}-`) && f.endsWith('.png')).sort();
    if (r.code === 0 && !(await exists(png)) && numbered.includes(`${stem}-1.png`)) await rename(path.join(conversion.dir, `${stem}-1.png`), png);
    await Promise.all(numbered.map((f) => rm(path.join(conversion.dir, f), { force: true })));
    if (r.code !== 0 || !(await exists(png))) {
      throw new MediaError('corrupt', 'The HEIC image could not be decoded: the file is damaged, incomplete or uses a variant this service cannot read.');
    }
    return { path: png, autoOrient: false };
  },

  async encode(pipeline: Sharp, _target: ImageTarget, s: EncodeSettings, out: string, conversion: Conversion) {
    const { path: png, ...info } = await conversion.pngIntermediate(pipeline);
    const args = s.lossless
      ? ['-L', '-p', 'chroma=444', '--matrix_coefficients=0']
      : ['-q', String(s.quality ?? 50)];
    const r = await runTool('heif-enc', [...args, '-o', out, png], conversion.toolOptions);
    if (r.code !== 0) throw new MediaError('engine_failed', 'The HEIC encoder failed on this image.');
    if (s.lossless) conversion.note('HEIC lossless is near-lossless here: pixels can differ from the source by 1 level. Choose png, webp, avif or jxl for bit-exact output.');
    return { width: info.width, height: info.height };
  },
};
