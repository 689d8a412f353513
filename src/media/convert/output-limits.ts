// The limits a conversion must keep, on its input and on its output, checked from the probe
// before any work. The options can make the output far larger than the input (a 286-byte JPEG
// asked for 16384×16384), so the output is planned here with the backends' own geometry
// (fitGeometry, the animation rule) and held to the same settings as inputs: validation at job
// start and the encoding cannot disagree. Messages name the setting that sets each limit. The
// memory the work needs is estimated from the same plan (media/memory.ts) and held to the
// per-job memory limit here too.
import { MediaError } from '../errors.ts';
import type { MediaLimits } from '../limits.ts';
import { imageConvertNeed, refuseOverMemory, videoConvertNeed, type MemoryNeed } from '../memory.ts';
import { formatDuration, megapixels, type DetailedProbe } from '../probe.ts';
import { sharpBackend } from './backends/sharp.ts';
import { codecArgs } from './backends/ffmpeg-video.ts';
import { fitGeometry } from './geometry.ts';
import { FORMAT_NAME } from '../format-names.ts';
import { type ConvertOptions, type ImageTarget } from './options.ts';

/** No limit at all: the header is read for its numbers, which checkLimits() then holds to the real limits. */
export const UNBOUNDED: MediaLimits = Object.freeze({
  maxPixels: Infinity,
  maxFrames: Infinity,
  maxDurationS: Infinity,
  maxVideoWidth: Infinity,
  maxVideoHeight: Infinity,
});

export interface PlannedOutput {
  width: number;
  height: number;
  /** Frames written: every frame of a kept animation, else 1. */
  frames: number;
}

/**
 * What happens to an animated image: kept (WebP output through sharp, all frames within the
 * pixel limit), or only its first frame converted, and why.
 */
export function animation(probed: DetailedProbe, target: ImageTarget, limits: MediaLimits): 'still' | 'kept' | 'not_webp' | 'too_many_pixels' {
  const d = probed.image!;
  if (!probed.probe.animated) return 'still';
  if (target !== 'webp' || !sharpBackend.canDecode(d.format)) return 'not_webp';
  return d.storedWidth * d.storedHeight * d.pages > limits.maxPixels ? 'too_many_pixels' : 'kept';
}

/** The output's size, exactly as the backends will make it; undefined when the file and the target's kind differ. */
export function plannedOutput(probed: DetailedProbe, o: ConvertOptions, limits: MediaLimits): PlannedOutput | undefined {
  const p = probed.probe;
  if (p.kind !== o.target) return undefined;
  if (o.target === 'image') {
    // as convertImage resizes: with one side given, the other follows the aspect ratio
    const fit = o.width !== undefined && o.height !== undefined ? o.fit : 'inside';
    const g = fitGeometry(p.width, p.height, { ...o, fit }, false);
    const frames = animation(probed, o.format, limits) === 'kept' ? probed.image!.pages : 1;
    return { width: g.outW, height: g.outH, frames };
  }
  const g = fitGeometry(p.width, p.height, o, codecArgs(o).even);
  return { width: g.outW, height: g.outH, frames: 1 };
}

/** The memory the conversion needs, from its input and its planned output; undefined when the file and the target's kind differ. */
export function memoryNeed(probed: DetailedProbe, o: ConvertOptions, limits: MediaLimits): MemoryNeed | undefined {
  const out = plannedOutput(probed, o, limits);
  if (!out) return undefined;
  const what = `Converting this ${o.target} to ${FORMAT_NAME[o.format]}`;
  const redact = !!o.redact?.length;
  if (o.target === 'video') return videoConvertNeed(Math.max(probed.probe.width * probed.probe.height, out.width * out.height), redact, what);
  const d = probed.image!;
  const encoder = o.format === 'jxl' ? 'jxl' : o.format === 'heic' ? 'heic' : 'sharp';
  return imageConvertNeed(d.storedWidth * d.storedHeight * out.frames, out.width * out.height * out.frames, { decodeTool: !sharpBackend.canDecode(d.format), encoder, redact }, what);
}

/** The long side against the long limit and the short against the short: portrait is as welcome as landscape. */
function videoFits(w: number, h: number, limits: MediaLimits): boolean {
  return Math.max(w, h) <= Math.max(limits.maxVideoWidth, limits.maxVideoHeight) && Math.min(w, h) <= Math.min(limits.maxVideoWidth, limits.maxVideoHeight);
}

// exact counts beside the megapixels: near the limit both sides round to the same MP
const count = (n: number) => `${n.toLocaleString('en-US')} pixels (${megapixels(n)})`;
const pixels = (max: number) => `OBSCURA_MAX_PIXELS allows ${count(max)}`;
const resolution = (limits: MediaLimits) => `OBSCURA_MAX_VIDEO_RESOLUTION allows ${limits.maxVideoWidth}×${limits.maxVideoHeight}`;

/**
 * Throws MediaError 'limit_exceeded' when the input is over a limit, 'output_too_large' when
 * the output the options ask for would be, 'too_much_memory' when the work would need more
 * memory than one job may have. Video output is as long as its input (never longer).
 */
export function checkLimits(probed: DetailedProbe, o: ConvertOptions, limits: MediaLimits): void {
  const p = probed.probe;
  const d = probed.image;
  if (d) {
    const n = d.storedWidth * d.storedHeight;
    if (n > limits.maxPixels) throw new MediaError('limit_exceeded', `The image is ${d.storedWidth}×${d.storedHeight}, ${count(n)}; ${pixels(limits.maxPixels)}.`);
    if (p.animated && d.pages > limits.maxFrames) throw new MediaError('limit_exceeded', `The animation has ${d.pages} frames; OBSCURA_MAX_FRAMES allows ${limits.maxFrames}.`);
  } else {
    if (!videoFits(p.width, p.height, limits)) throw new MediaError('limit_exceeded', `The video is ${p.width}×${p.height}; ${resolution(limits)}.`);
    if (p.durationS !== undefined && p.durationS > limits.maxDurationS) {
      throw new MediaError('limit_exceeded', `The video is ${formatDuration(p.durationS)} long; OBSCURA_MAX_VIDEO_DURATION allows ${formatDuration(limits.maxDurationS)}.`);
    }
  }

  const out = plannedOutput(probed, o, limits);
  if (!out) return;
  const smaller = 'Ask for a smaller width or height';
  if (o.target === 'video') {
    if (!videoFits(out.width, out.height, limits)) throw new MediaError('output_too_large', `The result would be a ${out.width}×${out.height} video; ${resolution(limits)}. ${smaller}.`);
    refuseOverMemory(memoryNeed(probed, o, limits)!, limits);
    return;
  }
  const total = out.width * out.height * out.frames;
  if (total > limits.maxPixels) {
    const message =
      out.frames > 1
        ? `The result would be ${out.frames} frames of ${out.width}×${out.height}, ${count(total)} in all; ${pixels(limits.maxPixels)} for all frames together. ${smaller}, or a still format such as png, which keeps the first frame.`
        : `The result would be ${out.width}×${out.height}, ${count(total)}; ${pixels(limits.maxPixels)}. ${smaller}.`;
    throw new MediaError('output_too_large', message);
  }
  refuseOverMemory(memoryNeed(probed, o, limits)!, limits);
}
