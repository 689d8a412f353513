// The convert targets, checked before any network call. The companion keeps its own copy
// rather than importing the service's option parser (which brings zod schemas and media
// errors along): it stays a pure client. test/companion.test.ts keeps the two lists equal.
import { CompanionError } from './errors.ts';

export const IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'heic', 'jxl'] as const;
export const VIDEO_FORMATS = ['mp4h264', 'mp4h265', 'webm', 'mkv', 'mov'] as const;
export const ALL_FORMATS = [...IMAGE_FORMATS, ...VIDEO_FORMATS];

const ALIASES: Record<string, string> = { jpg: 'jpeg' };

/** The job option that names the target: {image_format} or {video_format}. */
export function formatOption(given: string): { image_format: string } | { video_format: string } {
  const f = given.trim().toLowerCase().replace(/^\./, '');
  const name = ALIASES[f] ?? f;
  if ((IMAGE_FORMATS as readonly string[]).includes(name)) return { image_format: name };
  if ((VIDEO_FORMATS as readonly string[]).includes(name)) return { video_format: name };
  throw new CompanionError(
    'unknown_output_format',
    `output_format ${JSON.stringify(given.slice(0, 40))} is not one the service makes. Images: ${IMAGE_FORMATS.join(', ')}. Videos: ${VIDEO_FORMATS.join(', ')} (mp4h264 is the most widely playable MP4).`,
    { image_formats: [...IMAGE_FORMATS], video_formats: [...VIDEO_FORMATS] },
  );
}
