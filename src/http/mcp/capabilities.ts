// What the service offers, from the tables the API itself checks against: session step rules,
// convert formats and options (each probed through the API's own parser), hide outputs, input
// formats recognised by content, and the limits in force.
import { z } from 'zod';
import { SESSION_TYPES, stepRules } from '../../domain/sessions.ts';
import { IMAGE_MIME, VIDEO_MIME } from '../../media/sniff.ts';
import { CARDS } from '../../products/index.ts';
import type { McpDeps } from './call.ts';
import { START_INPUTS } from './tools/inputs.ts';

/** A duration as the API's expiry takes it ("90m", "1d"). */
function duration(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${Math.round(ms / 60_000)}m`;
}

export function capabilities(deps: McpDeps): Record<string, unknown> {
  const { limits, jobs, media, abuse, convert } = deps.config;
  return {
    service: deps.service.name,
    version: deps.service.version,
    products: SESSION_TYPES.map((type) => {
      const card = CARDS.find((c) => c.product === type)!;
      const { upload_uid: _u, ...options } = (z.toJSONSchema(START_INPUTS[type], { io: 'input' }).properties ?? {}) as Record<string, unknown>;
      const steps = Object.entries(stepRules(type, limits.sessionMaxFiles)).map(([step, r]) => ({ step: Number(step), what: r.what, min_files: r.min, max_files: r.max }));
      return { product: type, session_type: type, does: card.does, steps, start_tool: card.tool.name, options, rest: card.rest };
    }),
    input_formats: { image: Object.keys(IMAGE_MIME), video: Object.keys(VIDEO_MIME), recognised_by: 'content, never the name' },
    ...Object.fromEntries(CARDS.flatMap((c) => (c.capabilities ? [[c.product, c.capabilities()]] : []))),
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
      stegosuite_max_pixels: media.stegosuiteMaxPixels,
      per_account: {
        requests_per_minute: abuse.requestsPerMinute,
        job_starts_per_hour: abuse.jobsPerHour,
        upload_bytes_per_hour: abuse.uploadBytesPerHour,
        uploads_at_once: abuse.maxUploadsPerAccount,
      },
    },
  };
}
