// Job starts of the four products (checked by api/stego.ts, api/analyse.ts, api/convert.ts) and
// the job's own answers. The domain checks again what only it can see (the session, its files,
// the cover's capacity); these are the checks of the body's shape.
import { z } from 'zod';
import type { ErrorCode } from '../../domain/errors.ts';
import { MediaError } from '../../media/errors.ts';
import { CONVERT_FIELDS, IMAGE_TARGETS, VIDEO_TARGETS, parseConvertOptions } from '../../media/convert/options.ts';
import { STEGO_IMAGE_FORMATS } from '../../media/stego/image.ts';
import { STEGO_VIDEO_FORMATS } from '../../media/stego/video.ts';
import { strictBody, withCodes } from './validate.ts';

const UPLOAD_UID = 'upload_uid is required: the upload_uid of the session to work on.';
const EXPIRY = /^(?:(\d{1,4})([mhd]))?$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_PASSPHRASE = 1024;

/**
 * A start's expiry: a duration from 10m up to `expiryMaxMs` (a setting). Without the setting
 * (the MCP tools, registered before it is known) only its shape is checked; the job engine
 * refuses one out of range.
 */
export function expiryField(expiryMaxMs?: number) {
  const maxDays = expiryMaxMs === undefined ? undefined : Math.round(expiryMaxMs / 86_400_000);
  const upTo = maxDays === undefined ? 'up to the maximum get_capabilities gives' : `up to ${maxDays} days`;
  const expiry = `expiry must be a duration such as "1h", "1d" or "7d", from 10 minutes ${upTo}.`;
  const inRange = (v: string) => {
    const m = EXPIRY.exec(v);
    if (!m || v === '') return true; // '' is "not set"; a bad shape is the regex's to report
    const ms = Number(m[1]) * UNIT_MS[m[2]];
    return ms >= 10 * 60_000 && (expiryMaxMs === undefined || ms <= expiryMaxMs);
  };
  return z
    .string({ error: expiry })
    .regex(EXPIRY, { error: expiry })
    .refine(inRange, { error: expiry })
    .nullable()
    .optional()
    .describe(`How long the results stay downloadable: 10m up to ${maxDays === undefined ? 'the maximum get_capabilities gives' : `${maxDays}d`} (minutes, hours or days); absent, null or empty is 1 day.`);
}

/** The fields every start takes, reported before unknown ones (as the job engine always did). */
function common(expiryMaxMs: number) {
  return {
    upload_uid: z.string({ error: UPLOAD_UID }).min(1, { error: UPLOAD_UID }).describe('The session to work on.'),
    expiry: expiryField(expiryMaxMs),
  };
}

const codes = (body?: ErrorCode) => ({ unknown: 'unknown_option' as const, unknownAfter: 2, body });

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
const ANALYSE_KEYS = ['face_detection', 'text_detection', 'face_sensitivity', 'forensic_depth', 'tips'];

/**
 * What each start takes beside upload_uid and expiry, and the words after "Unknown option: x.".
 * They are the same whatever the settings, so the MCP start tools take them too
 * (mcp/tools/inputs.ts derives its input schemas from these).
 */
export const START_OPTIONS = {
  hide: {
    tail: '',
    shape: {
      password,
      output_format: z
        .enum([...STEGO_IMAGE_FORMATS, ...STEGO_VIDEO_FORMATS], {
          error: `output_format must be one of ${STEGO_IMAGE_FORMATS.join(', ')} for an image cover or ${STEGO_VIDEO_FORMATS.join(', ')} for a video cover (the result is lossless).`,
        })
        .nullable()
        .optional()
        .describe(`Lossless output: ${STEGO_IMAGE_FORMATS.join(', ')} for an image cover (png by default), ${STEGO_VIDEO_FORMATS.join(', ')} for a video cover (mkv by default).`),
    },
  },
  reveal: { tail: '', shape: { password } },
  analyse: {
    tail: ` Analyse takes ${ANALYSE_KEYS.join(', ')}.`,
    shape: {
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
  },
  convert: {
    tail: ` Convert takes ${CONVERT_KEYS.join(', ')}, upload_uid and expiry.`,
    shape: {
      image_format: nullable(CONVERT_FIELDS.image_format, `The output of images: ${IMAGE_TARGETS.join(', ')}.`),
      video_format: nullable(CONVERT_FIELDS.video_format, `The output of videos: ${VIDEO_TARGETS.join(', ')}.`),
      quality: nullable(CONVERT_FIELDS.quality, "1 to 100; absent: the encoder's default."),
      width: nullable(CONVERT_FIELDS.width, 'Pixels.'),
      height: nullable(CONVERT_FIELDS.height, 'Pixels.'),
      fit: nullable(CONVERT_FIELDS.fit, 'How width and height are met; inside by default.'),
      upscale: nullable(CONVERT_FIELDS.upscale, 'Enlarge a smaller input; false by default.'),
      lossless: nullable(CONVERT_FIELDS.lossless, 'Where the format has a lossless mode; false by default.'),
      redact: nullable(CONVERT_FIELDS.redact, 'Blur (or fill) every detected face and/or text region before encoding, in images and in every frame of a video: ["faces"], ["text"] or both. The job message says how many regions were redacted.'),
      redact_style: nullable(CONVERT_FIELDS.redact_style, 'blur (the default): a smooth blur with no detail left; fill: solid black boxes.'),
    },
  },
};

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
  const fields = { upload_uid: 'missing_upload_uid', expiry: 'invalid_expiry' } as const;
  const { hide: h, reveal: r, analyse: a, convert: c } = START_OPTIONS;

  const hide = withCodes(
    strictBody({ ...base, ...h.shape }, 'option', h.tail).describe('Start a hide on a hide session: step-1 files are hidden in the step-2 cover.'),
    { ...codes(), fields: { ...fields, password: passwordCode, output_format: 'invalid_option' } },
  );

  const reveal = withCodes(
    strictBody({ ...base, ...r.shape }, 'option', r.tail).describe('Start a reveal on a reveal session: every hidden file comes back under its name.'),
    { ...codes(), fields: { ...fields, password: passwordCode } },
  );

  const analyse = withCodes(
    strictBody({ ...base, ...a.shape }, 'option', a.tail).describe('Start an analysis on an analyse session: every step-1 file is analysed and graded.'),
    {
      ...codes(),
      fields: { ...fields, forensic_depth: 'invalid_option', face_sensitivity: 'invalid_option', tips: 'invalid_option', face_detection: 'invalid_option', text_detection: 'invalid_option' },
    },
  );

  const convert = withCodes(
    strictBody({ ...base, ...c.shape }, 'option', c.tail)
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
