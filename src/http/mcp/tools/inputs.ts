// The input schemas of the tools that start jobs, from the same tables the REST API checks
// against (convert formats, fits and bounds, hide's lossless outputs). get_capabilities
// publishes them as each product's options.
import { z } from 'zod';
import { FITS, IMAGE_TARGETS, MAX_DIMENSION, REDACT_STYLES, REDACT_TARGETS, VIDEO_TARGETS } from '../../../media/convert/options.ts';
import { STEGO_IMAGE_FORMATS } from '../../../media/stego/image.ts';
import { STEGO_VIDEO_FORMATS } from '../../../media/stego/video.ts';

const list = <T extends string>(values: readonly T[]) => values as unknown as [T, ...T[]];

export const uploadUid = z.string().min(1).max(64).describe('the upload_uid create_session gave');
const expiry = z
  .string()
  .regex(/^\d{1,4}[mhd]$/, 'a duration such as "1h", "1d" or "7d"')
  .optional()
  .describe('how long the results stay downloadable, e.g. "1h", "1d", "7d" (at least 10m; default and maximum in get_capabilities)');
const password = z.string().min(1).max(1024).describe('the passphrase; never stored, erased when the job ends');

export const hideInput = z.strictObject({
  upload_uid: uploadUid,
  password,
  output_format: z
    .enum(list([...STEGO_IMAGE_FORMATS, ...STEGO_VIDEO_FORMATS]))
    .optional()
    .describe(`lossless output: ${STEGO_IMAGE_FORMATS.join(', ')} for an image cover (default png), ${STEGO_VIDEO_FORMATS.join(', ')} for a video cover (default mkv)`),
  expiry,
});

export const revealInput = z.strictObject({ upload_uid: uploadUid, password, expiry });

export const analyseInput = z.strictObject({
  upload_uid: uploadUid,
  forensic_depth: z.enum(['standard', 'deep']).optional().describe('deep adds copy-move detection, Sample Pairs steganalysis and full-resolution maps'),
  tips: z.boolean().optional().describe('a plain-language tip with each finding (default true)'),
  face_detection: z.boolean().optional(),
  text_detection: z.boolean().optional(),
  face_sensitivity: z.union([z.number().min(0).max(1), z.enum(['low', 'medium', 'high'])]).optional(),
  expiry,
});

const dimension = z.number().int().min(1).max(MAX_DIMENSION);
export const convertInput = z.strictObject({
  upload_uid: uploadUid,
  image_format: z.enum(list(IMAGE_TARGETS)).optional().describe('for images; give this or video_format'),
  video_format: z.enum(list(VIDEO_TARGETS)).optional().describe('for videos; give this or image_format'),
  quality: z.number().int().min(1).max(100).optional(),
  width: dimension.optional().describe('pixels'),
  height: dimension.optional().describe('pixels'),
  fit: z.enum(list(FITS)).optional().describe('how width and height apply (default inside)'),
  upscale: z.boolean().optional().describe('enlarge when smaller than width/height (default false)'),
  lossless: z.boolean().optional().describe('where the format has a lossless mode'),
  redact: z.array(z.enum(list(REDACT_TARGETS))).max(REDACT_TARGETS.length).optional().describe('blur or fill every detected face and/or text region (images, and every frame of a video)'),
  redact_style: z.enum(list(REDACT_STYLES)).optional().describe('blur (default) or fill (solid boxes)'),
  expiry,
});
