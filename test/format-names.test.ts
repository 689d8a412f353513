// One table of format names (media/format-names.ts): a message names a format with the same
// word whether the format is the file's (read) or the target's (written). Before, an MKV file
// was "Matroska (MKV)" and the mkv target "MKV".
import path from 'node:path';
import { test } from './helpers/test.ts';
import { convert } from '../src/media/convert/index.ts';
import type { ConvertOptions } from '../src/media/convert/options.ts';
import { MediaError } from '../src/media/errors.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { IMAGE_MIME, VIDEO_MIME } from '../src/media/sniff.ts';
import { FORMAT_NAME } from '../src/media/format-names.ts';
import { IMAGE_TARGETS, VIDEO_TARGETS } from '../src/media/convert/options.ts';
import { testVideo, workDir } from './helpers/media-kit.ts';

test('every format read and every target written has its one name', (t) => {
  for (const f of [...Object.keys(IMAGE_MIME), ...Object.keys(VIDEO_MIME), ...IMAGE_TARGETS, ...VIDEO_TARGETS]) {
    t.truthy(FORMAT_NAME[f as keyof typeof FORMAT_NAME], f);
  }
  t.is(FORMAT_NAME.mkv, 'MKV');
  t.is(FORMAT_NAME.mov, 'MOV');
});

test('an MKV or MOV file is named as its target is: "an MKV video", "an MOV video"', async (t) => {
  const work = await workDir('format-names');
  t.teardown(work.done);
  const toPng: ConvertOptions = { target: 'image', format: 'png', fit: 'inside', upscale: false, lossless: false };
  for (const [ext, said] of [['mkv', 'an MKV video'], ['mov', 'an MOV video']] as const) {
    const file = await testVideo(path.join(work.dir, `clip.${ext}`), { seconds: 1 });
    const err = (await t.throwsAsync(convert(file, work.dir, toPng, { limits: DEFAULT_LIMITS }), { instanceOf: MediaError })) as MediaError;
    t.is(err.code, 'invalid_option');
    t.is(err.message.split('. ')[0], `image_format: the file is ${said}, not an image`);
  }
});
