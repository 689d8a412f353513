// BMP decoding through ffmpeg: sharp's prebuilt libvips cannot read BMP. The demuxer is forced
// (bmp_pipe) so ffmpeg never guesses from content or name; the result is a lossless PNG.
import { access } from 'node:fs/promises';
import { MediaError } from '../../errors.ts';
import type { ImageDetail } from '../../probe.ts';
import { runTool } from '../../tools.ts';
import type { Conversion, Decoded, ImageBackend } from '../backend.ts';

export const ffmpegImageBackend: ImageBackend = {
  name: 'ffmpeg-image',
  canDecode: (format) => format === 'bmp',
  canEncode: () => false,

  async decode(input: string, _detail: ImageDetail, conversion: Conversion): Promise<Decoded> {
    const png = conversion.temp('png');
    const args = ['-nostdin', '-hide_banner', '-v', 'error', '-protocol_whitelist', 'file', '-f', 'bmp_pipe', '-i', `file:${input}`];
    args.push('-frames:v', '1', '-map_metadata', '-1', '-c:v', 'png', '-f', 'image2', `file:${png}`);
    const r = await runTool('ffmpeg', args, conversion.toolOptions);
    const made = await access(png).then(
      () => true,
      () => false,
    );
    if (r.code !== 0 || !made) throw new MediaError('corrupt', 'The BMP image could not be decoded: the file is damaged or incomplete.');
    return { path: png, autoOrient: false };
  },

  async encode() {
    throw new MediaError('engine_failed', 'ffmpeg does not write still images here.');
  },
};
