// What the service offers, from the tables the API itself checks against: session step rules,
// convert formats and options (each probed through the API's own parser), hide outputs, input
// formats recognised by content, and the limits in force.
import { z } from 'zod';
import { SESSION_TYPES, stepRules } from '../../domain/sessions.ts';
import { FITS, IMAGE_TARGETS, MAX_DIMENSION, parseConvertOptions, VIDEO_TARGETS } from '../../media/convert/options.ts';
import { IMAGE_MIME, VIDEO_MIME } from '../../media/sniff.ts';
import { STEGO_IMAGE_FORMATS } from '../../media/stego/image.ts';
import { STEGO_VIDEO_FORMATS } from '../../media/stego/video.ts';
import type { SessionType } from '../../domain/ports.ts';
import type { McpDeps } from './call.ts';
import { analyseInput, convertInput, hideInput, revealInput } from './tools/inputs.ts';

const PRODUCTS: Record<SessionType, { does: string; start_tool: string; input: z.ZodObject; rest: Record<string, string> }> = {
  convert: {
    does: 'converts images and videos between formats, with quality and resize controls; metadata is stripped',
    start_tool: 'start_convert_job',
    input: convertInput,
    rest: {
      session: 'POST /api/convert/session',
      start: 'POST /api/convert/job',
      poll: 'GET /api/convert/job/{upload_uid}?wait=30',
      results: 'GET /api/convert/job/{upload_uid}/results',
      download: 'GET /api/convert/download/{asset_id}',
    },
  },
  analyse: {
    does: 'inspects media for manipulation, AI generation, hidden content, C2PA provenance, camera fingerprint and privacy exposure; graded A-F per file',
    start_tool: 'start_analyse_job',
    input: analyseInput,
    rest: {
      session: 'POST /api/analyse/session',
      start: 'POST /api/analyse/job',
      poll: 'GET /api/analyse/job/{upload_uid}?wait=30',
      results: 'GET /api/analyse/result/{job_uid}',
      download: 'GET /api/analyse/asset/{asset_id}',
    },
  },
  hide: {
    does: 'encrypts files under a passphrase and hides them losslessly in a cover image or video',
    start_tool: 'start_hide_job',
    input: hideInput,
    rest: {
      session: 'POST /api/session {"type":"hide"}',
      start: 'POST /api/job',
      poll: 'GET /api/job/{upload_uid}?wait=30',
      results: 'GET /api/job/{upload_uid}/results',
      download: 'GET /api/job/download/{asset_id}',
    },
  },
  reveal: {
    does: 'recovers the files hidden in a file with the passphrase, under their original names',
    start_tool: 'start_reveal_job',
    input: revealInput,
    rest: {
      session: 'POST /api/session {"type":"reveal"}',
      start: 'POST /api/job',
      poll: 'GET /api/job/{upload_uid}?wait=30',
      results: 'GET /api/job/{upload_uid}/results',
      download: 'GET /api/job/download/{asset_id}',
    },
  },
};

/** A duration as the API's expiry takes it ("90m", "1d"). */
function duration(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${Math.round(ms / 60_000)}m`;
}

const losslessIn = (key: 'image_format' | 'video_format', formats: readonly string[]) =>
  formats.filter((f) => {
    try {
      parseConvertOptions({ [key]: f, lossless: true });
      return true;
    } catch {
      return false;
    }
  });

export function capabilities(deps: McpDeps): Record<string, unknown> {
  const { limits, jobs, media, abuse, convert } = deps.config;
  return {
    service: deps.service.name,
    version: deps.service.version,
    products: SESSION_TYPES.map((type) => {
      const p = PRODUCTS[type];
      const { upload_uid: _u, ...options } = (z.toJSONSchema(p.input, { io: 'input' }).properties ?? {}) as Record<string, unknown>;
      const steps = Object.entries(stepRules(type, limits.sessionMaxFiles)).map(([step, r]) => ({ step: Number(step), what: r.what, min_files: r.min, max_files: r.max }));
      return { product: type, session_type: type, does: p.does, steps, start_tool: p.start_tool, options, rest: p.rest };
    }),
    input_formats: { image: Object.keys(IMAGE_MIME), video: Object.keys(VIDEO_MIME), recognised_by: 'content, never the name' },
    convert: {
      image_formats: IMAGE_TARGETS,
      video_formats: VIDEO_TARGETS,
      lossless_formats: [...losslessIn('image_format', IMAGE_TARGETS), ...losslessIn('video_format', VIDEO_TARGETS)],
      fits: FITS,
      default_fit: 'inside',
      quality: { min: 1, max: 100 },
      max_dimension: MAX_DIMENSION,
    },
    hide: { output_formats: { image_cover: STEGO_IMAGE_FORMATS, video_cover: STEGO_VIDEO_FORMATS } },
    job_states: { running: ['queued', 'processing'], ended: ['completed', 'partial', 'failed'] },
    limits: {
      direct_upload_max_bytes: Math.min(limits.directUploadMax, limits.fileMax),
      file_max_bytes: limits.fileMax,
      tus_chunk_max_bytes: limits.chunkMax,
      session_max_files: limits.sessionMaxFiles,
      session_life: duration(limits.sessionLifeMs),
      result_expiry: { min: '10m', default: duration(jobs.expiryDefaultMs), max: duration(jobs.expiryMaxMs) },
      job_time_limit: duration(jobs.timeLimitMs),
      convert_cpu_budget_seconds_per_file: Math.round(convert.cpuBudgetMs / 1000),
      max_pixels: media.maxPixels,
      max_frames: media.maxFrames,
      max_video_duration_seconds: media.maxDurationS,
      max_video_resolution: `${media.maxVideoWidth}x${media.maxVideoHeight}`,
      max_reveal_bytes: media.maxRevealBytes,
      per_account: {
        requests_per_minute: abuse.requestsPerMinute,
        job_starts_per_hour: abuse.jobsPerHour,
        upload_bytes_per_hour: abuse.uploadBytesPerHour,
        uploads_at_once: abuse.maxUploadsPerAccount,
      },
    },
  };
}
