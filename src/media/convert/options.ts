// The convert options of the API body, checked once at job start. Anything a format cannot
// honour is refused here with a message naming the field: never a silent fallback.
import { z } from 'zod';
import { MediaError } from '../errors.ts';

export const IMAGE_TARGETS = ['jpeg', 'png', 'webp', 'avif', 'heic', 'jxl'] as const;
export const VIDEO_TARGETS = ['mp4h264', 'mp4h265', 'webm', 'mkv', 'mov'] as const;
export const FITS = ['inside', 'cover', 'contain', 'fill', 'outside'] as const;
export const MAX_DIMENSION = 16384;

export const REDACT_TARGETS = ['faces', 'text'] as const;
export const REDACT_STYLES = ['blur', 'fill'] as const;

export type ImageTarget = (typeof IMAGE_TARGETS)[number];
export type RedactTarget = (typeof REDACT_TARGETS)[number];
export type RedactStyle = (typeof REDACT_STYLES)[number];
export type VideoTarget = (typeof VIDEO_TARGETS)[number];
export type Fit = (typeof FITS)[number];

interface Common {
  /** 1–100; absent means the encoder's own default. */
  quality?: number;
  width?: number;
  height?: number;
  fit: Fit;
  upscale: boolean;
  lossless: boolean;
  /** Faces and/or text to blur or fill in every picture (each frame of a video) before encoding. */
  redact?: RedactTarget[];
  redactStyle?: RedactStyle;
}

export type ConvertOptions = (Common & { target: 'image'; format: ImageTarget }) | (Common & { target: 'video'; format: VideoTarget });

/** Which targets have a lossless mode, and what to say when one has not. */
const NO_LOSSLESS: Partial<Record<ImageTarget | VideoTarget, string>> = {
  jpeg: 'lossless: JPEG has no lossless mode; choose png, webp, avif or jxl for lossless output.',
  mp4h264:
    'lossless: lossless H.264 needs a profile most players cannot play, so mp4h264 is lossy only; choose mkv (FFV1) or webm (VP9 lossless) for lossless video.',
  mp4h265: 'lossless: mp4h265 is lossy only here; choose mkv (FFV1) or webm (VP9 lossless) for lossless video.',
  mov: 'lossless: mov is lossy only here (H.264); choose mkv (FFV1) or webm (VP9 lossless) for lossless video.',
};

const shown = (v: unknown): string => {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : typeof v;
};

const oneOf = (field: string, values: readonly string[]) =>
  z.enum(values as [string, ...string[]], { error: (iss) => `${field} must be one of ${values.join(', ')} (got ${shown(iss.input)}).` });

const integer = (field: string, min: number, max: number) =>
  z
    .number({ error: (iss) => `${field} must be a whole number from ${min} to ${max} (got ${shown(iss.input)}).` })
    .int({ error: (iss) => `${field} must be a whole number from ${min} to ${max} (got ${shown(iss.input)}).` })
    .min(min, { error: (iss) => `${field} must be a whole number from ${min} to ${max} (got ${shown(iss.input)}).` })
    .max(max, { error: (iss) => `${field} must be a whole number from ${min} to ${max} (got ${shown(iss.input)}).` });

const flag = (field: string) => z.boolean({ error: (iss) => `${field} must be true or false (got ${shown(iss.input)}).` });

/** The convert options' fields; the API's job-start schema (http/schemas/jobs.ts) is built from them too. */
export const CONVERT_FIELDS = {
  image_format: oneOf('image_format', IMAGE_TARGETS).optional(),
  video_format: oneOf('video_format', VIDEO_TARGETS).optional(),
  quality: integer('quality', 1, 100).optional(),
  width: integer('width', 1, MAX_DIMENSION).optional(),
  height: integer('height', 1, MAX_DIMENSION).optional(),
  fit: oneOf('fit', FITS).optional(),
  upscale: flag('upscale').optional(),
  lossless: flag('lossless').optional(),
  redact: z
    .array(oneOf('redact', REDACT_TARGETS), { error: (iss) => `redact must be a list of ${REDACT_TARGETS.join(', ')} (got ${shown(iss.input)}).` })
    .max(REDACT_TARGETS.length, { error: `redact lists each of ${REDACT_TARGETS.join(', ')} at most once.` })
    .optional(),
  redact_style: oneOf('redact_style', REDACT_STYLES).optional(),
};

const schema = z.object(CONVERT_FIELDS);

/** The convert fields as the start's schema gives them (null: not set, as JSON clients send it). */
export type ConvertFields = { [K in keyof typeof CONVERT_FIELDS]?: z.output<(typeof CONVERT_FIELDS)[K]> | null };

/** Parses the convert fields of an API body (the caller refuses unknown keys). Throws MediaError('invalid_option'). */
export function parseConvertOptions(raw: Record<string, unknown>): ConvertOptions {
  // JSON clients send null for "not set".
  const present = Object.fromEntries(Object.entries(raw ?? {}).filter(([, v]) => v !== null && v !== undefined));
  const r = schema.safeParse(present);
  if (!r.success) throw new MediaError('invalid_option', r.error.issues[0]?.message ?? 'The convert options are not valid.');
  return convertOptionsOf(r.data);
}

/** The options from fields each already checked: what concerns several fields is refused here. Throws MediaError('invalid_option'). */
export function convertOptionsOf(o: ConvertFields): ConvertOptions {
  if (o.image_format && o.video_format) {
    throw new MediaError('invalid_option', 'Give either image_format or video_format, not both.');
  }
  if (!o.image_format && !o.video_format) {
    throw new MediaError(
      'invalid_option',
      `Give image_format (${IMAGE_TARGETS.join(', ')}) for images or video_format (${VIDEO_TARGETS.join(', ')}) for videos.`,
    );
  }
  const lossless = o.lossless ?? false;
  const format = (o.image_format ?? o.video_format) as ImageTarget | VideoTarget;
  if (lossless && NO_LOSSLESS[format]) throw new MediaError('invalid_option', NO_LOSSLESS[format]);

  const redact = [...new Set(o.redact ?? [])] as RedactTarget[];
  if (redact.length !== (o.redact ?? []).length) throw new MediaError('invalid_option', `redact lists each of ${REDACT_TARGETS.join(', ')} at most once.`);
  if (o.redact_style && !redact.length) throw new MediaError('invalid_option', 'redact_style needs redact: give redact ["faces"], ["text"] or both.');

  const common: Common = {
    ...(o.quality != null ? { quality: o.quality } : {}),
    ...(o.width != null ? { width: o.width } : {}),
    ...(o.height != null ? { height: o.height } : {}),
    fit: (o.fit ?? 'inside') as Fit,
    upscale: o.upscale ?? false,
    lossless,
    ...(redact.length ? { redact, redactStyle: (o.redact_style ?? 'blur') as RedactStyle } : {}),
  };
  return o.image_format
    ? { target: 'image', format: o.image_format as ImageTarget, ...common }
    : { target: 'video', format: o.video_format as VideoTarget, ...common };
}
