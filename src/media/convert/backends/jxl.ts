// JPEG XL through libjxl's tools (sharp's prebuilt libvips has no JXL). djxl applies the
// codestream orientation itself; cjxl gets a clean sRGB PNG from sharp, so it has no EXIF or
// XMP to copy and writes a bare codestream. `-d 0` is bit-exact (measured). djxl never sees a
// brotli-compressed box (jxl-boxes.ts).
import { access } from 'node:fs/promises';
import type { Sharp } from 'sharp';
import { MediaError } from '../../errors.ts';
import type { ImageDetail } from '../../probe.ts';
import { runTool } from '../../tools.ts';
import { withoutCompressedBoxes } from '../jxl-boxes.ts';
import type { Conversion, Decoded, EncodeSettings, ImageBackend } from '../backend.ts';
import type { ImageTarget } from '../options.ts';

export const jxlBackend: ImageBackend = {
  name: 'jxl',
  canDecode: (format) => format === 'jxl',
  canEncode: (format) => format === 'jxl',

  async decode(input: string, _detail: ImageDetail, conversion: Conversion): Promise<Decoded> {
    const png = conversion.temp('png');
    const source = await withoutCompressedBoxes(input, conversion.temp('jxl'));
    const r = await runTool('djxl', [source, png, '--quiet'], conversion.toolOptions);
    const made = await access(png).then(
      () => true,
      () => false,
    );
    if (r.code !== 0 || !made) throw new MediaError('corrupt', 'The JPEG XL image could not be decoded: the file is damaged or incomplete.');
    return { path: png, autoOrient: false };
  },

  async encode(pipeline: Sharp, _target: ImageTarget, s: EncodeSettings, out: string, conversion: Conversion) {
    const { path: png, ...info } = await conversion.pngIntermediate(pipeline);
    const quality = s.lossless ? ['-d', '0'] : s.quality !== undefined ? ['-q', String(s.quality)] : [];
    const r = await runTool('cjxl', [png, out, ...quality, '--container=0', '--quiet'], conversion.toolOptions);
    if (r.code !== 0) throw new MediaError('engine_failed', 'The JPEG XL encoder failed on this image.');
    return { width: info.width, height: info.height };
  },
};
