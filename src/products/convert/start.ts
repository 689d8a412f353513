// A conversion's start: its options, checked once, become the runner's ConvertOptions.
import type { z } from 'zod';
import { MediaError } from '../../media/errors.ts';
import { CONVERT_FIELDS, IMAGE_TARGETS, VIDEO_TARGETS, convertOptionsOf } from '../../media/convert/options.ts';
import { OptionsRefused, defineStart } from '../start.ts';

const nullable = <T extends z.ZodType>(s: T, description: string) => s.nullable().describe(description);
const KEYS = Object.keys(CONVERT_FIELDS);

export const convertStart = defineStart({
  product: 'convert',
  sessionTypes: ['convert'],
  description: 'Start a conversion on a convert session. Exactly one of image_format and video_format.',
  tail: ` Convert takes ${KEYS.join(', ')}, upload_uid and expiry.`,
  shape: {
    image_format: nullable(CONVERT_FIELDS.image_format, `The output of images: ${IMAGE_TARGETS.join(', ')}.`),
    video_format: nullable(CONVERT_FIELDS.video_format, `The output of videos: ${VIDEO_TARGETS.join(', ')}.`),
    quality: nullable(CONVERT_FIELDS.quality, "1 to 100; absent: the encoder's default."),
    width: nullable(CONVERT_FIELDS.width, 'Pixels.'),
    height: nullable(CONVERT_FIELDS.height, 'Pixels.'),
    fit: nullable(CONVERT_FIELDS.fit, 'How width and height are met; inside by default.'),
    upscale: nullable(CONVERT_FIELDS.upscale, 'Enlarge a smaller input; false by default.'),
    lossless: nullable(CONVERT_FIELDS.lossless, 'Where the format has a lossless mode; false by default.'),
    redact: nullable(
      CONVERT_FIELDS.redact,
      'Blur (or fill) every detected face and/or text region before encoding, in images and in every frame of a video: ["faces"], ["text"] or both. The job message says how many regions were redacted.',
    ),
    redact_style: nullable(CONVERT_FIELDS.redact_style, 'blur (the default): a smooth blur with no detail left; fill: solid black boxes.'),
  },
  codes: {
    image_format: 'invalid_option',
    video_format: 'invalid_option',
    quality: 'invalid_option',
    width: 'invalid_option',
    height: 'invalid_option',
    fit: 'invalid_option',
    upscale: 'invalid_option',
    lossless: 'invalid_option',
    redact: 'invalid_option',
    redact_style: 'invalid_option',
  },
  bodyCode: 'invalid_option',
  // what concerns several fields (one format, not both; lossless where the format has it) is the
  // convert options' own rule
  options(fields) {
    try {
      return convertOptionsOf(fields);
    } catch (err) {
      if (err instanceof MediaError) throw new OptionsRefused(err.message);
      throw err;
    }
  },
});
