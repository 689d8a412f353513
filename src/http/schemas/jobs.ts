// Job starts of the four products (checked by api/stego.ts, api/analyse.ts, api/convert.ts) and
// the job's own answers. The domain checks again what only it can see (the session, its files,
// the cover's capacity); these are the checks of the body's shape.
import { z } from 'zod';
import { MediaError } from '../../media/errors.ts';
import { CONVERT_FIELDS, IMAGE_TARGETS, VIDEO_TARGETS, parseConvertOptions } from '../../media/convert/options.ts';
import { STEGO_IMAGE_FORMATS } from '../../media/stego/image.ts';
import { STEGO_VIDEO_FORMATS } from '../../media/stego/video.ts';
import { unknownKeys, withCodes } from './validate.ts';

const UPLOAD_UID = 'upload_uid is required: the upload_uid of the session to work on.';
const EXPIRY = /^(?:(\d{1,4})([mhd]))?$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_PASSPHRASE = 1024;

/** The fields every start takes, reported before unknown ones (as the job engine always did). */
function common(expiryMaxMs: number) {
  const maxDays = Math.round(expiryMaxMs / 86_400_000);
  const expiry = `expiry must be a duration such as "1h", "1d" or "7d", from 10 minutes up to ${maxDays} days.`;
  const inRange = (v: string) => {
    const m = EXPIRY.exec(v);
    if (!m || v === '') return true; // '' is "not set"; a bad shape is the regex's to report
    const ms = Number(m[1]) * UNIT_MS[m[2]];
    return ms >= 10 * 60_000 && ms <= expiryMaxMs;
  };
  return {
    upload_uid: z.string({ error: UPLOAD_UID }).min(1, { error: UPLOAD_UID }).describe('The session to work on.'),
    expiry: z
      .string({ error: expiry })
      .regex(EXPIRY, { error: expiry })
      .refine(inRange, { error: expiry })
      .nullable()
      .optional()
      .describe(`How long the results stay downloadable: 10m up to ${maxDays}d (minutes, hours or days); absent, null or empty is 1 day.`),
  };
}

const options = <S extends z.ZodRawShape>(shape: S, tail: string) => z.strictObject(shape, { error: unknownKeys('option', tail) });
const codes = (body?: string) => ({ unknown: 'unknown_option', unknownAfter: 2, body });

const password = z
  .string({ error: 'password is required: the passphrase that seals the hidden files. It cannot be empty.' })
  .min(1, { error: 'password is required: the passphrase that seals the hidden files. It cannot be empty.' })
  .max(MAX_PASSPHRASE, { error: `The passphrase is longer than ${MAX_PASSPHRASE} characters.` })
  .describe('The passphrase. A weak one is named in the job message.');
const passwordCode = (issue: z.core.$ZodIssue) => (issue.code === 'too_big' ? 'invalid_password' : 'missing_password');

const flag = (name: string) => z.boolean({ error: `${name} must be true or false.` }).optional();
const SENSITIVITY = 'face_sensitivity must be a number from 0 to 1, or "low", "medium" or "high".';

const CONVERT_KEYS = Object.keys(CONVERT_FIELDS);
const nullable = <T extends z.ZodType>(s: T, description: string) => s.nullable().describe(description);

// One set per setting, so the routes and the document hold the very same schema objects.
const made = new Map<number, ReturnType<typeof makeBodies>>();

/** The start bodies of a service whose results live at most `expiryMaxMs` (a setting). */
export function jobStartBodies(expiryMaxMs: number): ReturnType<typeof makeBodies> {
  let bodies = made.get(expiryMaxMs);
  if (!bodies) made.set(expiryMaxMs, (bodies = makeBodies(expiryMaxMs)));
  return bodies;
}

function makeBodies(expiryMaxMs: number) {
  const base = common(expiryMaxMs);
  const fields = { upload_uid: 'missing_upload_uid', expiry: 'invalid_expiry' };

  const hide = withCodes(
    options(
      {
        ...base,
        password,
        output_format: z
          .enum([...STEGO_IMAGE_FORMATS, ...STEGO_VIDEO_FORMATS], {
            error: `output_format must be one of ${STEGO_IMAGE_FORMATS.join(', ')} for an image cover or ${STEGO_VIDEO_FORMATS.join(', ')} for a video cover (the result is lossless).`,
          })
          .nullable()
          .optional()
          .describe(`Lossless output: ${STEGO_IMAGE_FORMATS.join(', ')} for an image cover (png by default), ${STEGO_VIDEO_FORMATS.join(', ')} for a video cover (mkv by default).`),
      },
      '',
    ).describe('Start a hide on a hide session: step-1 files are hidden in the step-2 cover.'),
    { ...codes(), fields: { ...fields, password: passwordCode, output_format: 'invalid_option' } },
  );

  const reveal = withCodes(
    options({ ...base, password }, '').describe('Start a reveal on a reveal session: every hidden file comes back under its name.'),
    { ...codes(), fields: { ...fields, password: passwordCode } },
  );

  const analyseKeys = ['face_detection', 'text_detection', 'face_sensitivity', 'forensic_depth', 'tips'];
  const analyse = withCodes(
    options(
      {
        ...base,
        forensic_depth: z
          .enum(['standard', 'deep'], { error: 'forensic_depth must be "standard" or "deep".' })
          .nullable()
          .optional()
          .describe('deep adds copy-move detection, Sample Pairs steganalysis and full-resolution maps; standard by default.'),
        face_sensitivity: z
          .union([z.number({ error: SENSITIVITY }).min(0, { error: SENSITIVITY }).max(1, { error: SENSITIVITY }), z.enum(['low', 'medium', 'high'], { error: SENSITIVITY })], {
            error: SENSITIVITY,
          })
          .nullable()
          .optional()
          .describe('Face detection: 0 to 1, or low (0.3), medium (0.5, the default), high (0.7). Below 0.5 the tiny detector (fast), from 0.5 SSD MobileNet (thorough); higher finds fainter faces (score threshold 0.55 − 0.4 × sensitivity for tiny, 0.7 − 0.4 × sensitivity for SSD).'),
        tips: flag('tips').describe('Keep the tip of each finding (true by default).'),
        face_detection: flag('face_detection').describe('Find faces (true by default): face_count, the faces verdict with boxes, and a faces asset. false: face_count is null (not 0), and a finding says it was not asked for.'),
        text_detection: flag('text_detection').describe('Find text regions (true by default). false: text_region_count is null (not 0), and a finding says it was not asked for.'),
      },
      ` Analyse takes ${analyseKeys.join(', ')}.`,
    ).describe('Start an analysis on an analyse session: every step-1 file is analysed and graded.'),
    {
      ...codes(),
      fields: { ...fields, forensic_depth: 'invalid_option', face_sensitivity: 'invalid_option', tips: 'invalid_option', face_detection: 'invalid_option', text_detection: 'invalid_option' },
    },
  );

  const c = CONVERT_FIELDS;
  const convert = withCodes(
    options(
      {
        ...base,
        image_format: nullable(c.image_format, `The output of images: ${IMAGE_TARGETS.join(', ')}.`),
        video_format: nullable(c.video_format, `The output of videos: ${VIDEO_TARGETS.join(', ')}.`),
        quality: nullable(c.quality, "1 to 100; absent: the encoder's default."),
        width: nullable(c.width, 'Pixels.'),
        height: nullable(c.height, 'Pixels.'),
        fit: nullable(c.fit, 'How width and height are met; inside by default.'),
        upscale: nullable(c.upscale, 'Enlarge a smaller input; false by default.'),
        lossless: nullable(c.lossless, 'Where the format has a lossless mode; false by default.'),
        redact: nullable(c.redact, 'Blur (or fill) every detected face and/or text region before encoding, in images and in every frame of a video: ["faces"], ["text"] or both. The job message says how many regions were redacted.'),
        redact_style: nullable(c.redact_style, 'blur (the default): a smooth blur with no detail left; fill: solid black boxes.'),
      },
      ` Convert takes ${CONVERT_KEYS.join(', ')}, upload_uid and expiry.`,
    )
      // what concerns several fields (one format, not both; lossless where the format has it) is
      // the convert options' own rule, asked here so the route refuses with its words
      .superRefine((body, ctx) => {
        const { upload_uid: _u, expiry: _e, ...rest } = body;
        try {
          parseConvertOptions(rest);
        } catch (err) {
          if (!(err instanceof MediaError)) throw err;
          ctx.addIssue({ code: 'custom', message: err.message, input: body });
        }
      })
      .describe('Start a conversion on a convert session. Exactly one of image_format and video_format.'),
    { ...codes('invalid_option'), fields: { ...fields, ...Object.fromEntries(CONVERT_KEYS.map((k) => [k, 'invalid_option'])) } },
  );

  return { hide, reveal, analyse, convert };
}

export type JobStartBodies = ReturnType<typeof jobStartBodies>;

const iso = z.iso.datetime();
const product = z.enum(['hide', 'reveal', 'analyse', 'convert']);
const state = z.enum(['queued', 'processing', 'completed', 'partial', 'failed']);

export const JobStarted = z.object({ job_uid: z.string(), job_type: product, status: state, upload_uid: z.string() });

export const JobView = z.object({
  job_uid: z.string(),
  job_type: product,
  status: state.describe('queued, processing, then completed, partial (some files failed) or failed.'),
  progress: z.int().min(0).max(100).describe('Percent; 100 once completed.'),
  progress_message: z.string().describe('The reason of a failure, in words.'),
  error: z.string().nullable(),
  retry_after: z.int().optional().describe('While the job runs: seconds to wait before the next poll (also in Retry-After).'),
  created_at: iso,
  started_at: iso.nullable(),
  finished_at: iso.nullable(),
  expires_at: iso.nullable().describe('When the results are destroyed.'),
});
