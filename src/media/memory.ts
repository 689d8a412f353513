// How much memory a piece of media work needs, estimated from its probe before any pixel is
// decoded, so that it is admitted under the service's memory budget (queue/memory-budget.ts)
// or refused with the figures. The factors are bytes per pixel measured on the cases
// (VmPeak of each tool, peak RSS of the process for sharp's in-process work; docs/design.md "Memory
// budget"): the estimate is also the address-space limit of every tool the job then starts
// (runTool), so it counts virtual memory, which is what that limit counts.
import os from 'node:os';
import { MediaError } from './errors.ts';
import type { MediaLimits } from './limits.ts';
import { megapixels } from './probe.ts';

const MiB = 1024 * 1024;

/** What one job's process work needs besides pixels (buffers, the models of the detectors). */
const JOB_BASE = 256 * MiB;
/**
 * What a media tool reserves before its first pixel: code, thread stacks and the encoders'
 * thread pools (an idle x265 maps 777 MiB; x264 at 1080p peaks at 1.4 GiB), more with more cores.
 */
const TOOL_BASE = 1280 * MiB + 48 * MiB * os.availableParallelism();

/** Bytes per pixel, by what touches the pixels. */
const PER_PIXEL = {
  /** sharp (libvips) decoding, resizing and encoding in the process: AVIF in 18, out 24. */
  sharp: 32,
  /** the analyse detectors on one picture's pixels (faces, text, forensics): 40 measured at 49 MP. */
  analyse: 48,
  /** cjxl: 173 (VmPeak 8.1 GiB at 49 MP, 2.0 GiB at 12 MP). */
  cjxl: 180,
  /** heif-enc (x265): 21 (VmPeak 1.0 GiB at 49 MP); heif-convert, djxl, ffmpeg decoding one picture: less. */
  imageTool: 24,
  /** ffmpeg decoding and encoding a video, per pixel of a frame, once the encoder's lookahead is full: 8K x264 (medium) 7.1 GiB, x265 5.5 GiB, VP9 4.3 GiB. */
  video: 224,
} as const;

/** Encoders keep more frames in flight with more threads: measured with 2 cores. */
const videoThreads = () => Math.max(1, os.availableParallelism() / 2);

export interface MemoryNeed {
  bytes: number;
  /** The work, in the users' words: "Converting this image to JPEG XL". */
  what: string;
  /** The largest picture (or frame) it handles. */
  pixels: number;
  /** What would need less, for the refusal. */
  hint: string;
}

const CONVERT_HINT = 'A smaller picture, or a smaller width or height, needs less.';

/** Pixels of the input (all kept frames) and of the output, and the steps that touch them. */
export function imageConvertNeed(inPixels: number, outPixels: number, steps: { decodeTool: boolean; encoder: 'sharp' | 'heic' | 'jxl'; redact: boolean }, what: string): MemoryNeed {
  const pixels = Math.max(inPixels, outPixels);
  const inProcess = JOB_BASE + pixels * (PER_PIXEL.sharp + (steps.redact ? PER_PIXEL.analyse : 0));
  const encode = steps.encoder === 'jxl' ? 512 * MiB + outPixels * PER_PIXEL.cjxl : steps.encoder === 'heic' ? TOOL_BASE + outPixels * PER_PIXEL.imageTool : 0;
  const decode = steps.decodeTool ? TOOL_BASE + inPixels * PER_PIXEL.imageTool : 0;
  return { bytes: Math.ceil(inProcess + Math.max(encode, decode)), what, pixels, hint: CONVERT_HINT };
}

/** framePixels: of the larger of a frame in and a frame out. */
export function videoConvertNeed(framePixels: number, redact: boolean, what: string): MemoryNeed {
  const bytes = TOOL_BASE + framePixels * (PER_PIXEL.video * videoThreads() + (redact ? PER_PIXEL.analyse : 0));
  return { bytes: Math.ceil(bytes), what, pixels: framePixels, hint: CONVERT_HINT };
}

/**
 * Keypoint copy-move at deep depth (analyse/forensics/keypoint-clone.ts): OpenCV's WebAssembly
 * memory (a fixed 128 MiB, kept by the worker once loaded) and the matching of up to 25,000
 * keypoints of a 1024 px copy, whatever the picture's size (RSS +75 MiB at load, up to +140 MiB
 * more while matching, measured on a 1024 x 768 copy).
 */
const DEEP_COPY_MOVE = 256 * MiB;

/** decodeTool: the pixels come from a tool (every video; HEIC, JPEG XL, BMP through their decoders). */
/**
 * Face detection runs on a thread of its own beside the other detectors, so its memory adds to
 * theirs: tfjs pads the picture to a square of float RGB (at most 4096 px: 192 MiB) beside the
 * models and the copy of the pixels it was sent.
 */
const FACES_THREAD = 320 * MiB;

export function analyseNeed(kind: 'image' | 'video', pixels: number, decodeTool: boolean, deep = false): MemoryNeed {
  const bytes = JOB_BASE + FACES_THREAD + (deep ? DEEP_COPY_MOVE : 0) + pixels * PER_PIXEL.analyse + (decodeTool ? TOOL_BASE + pixels * PER_PIXEL.imageTool : 0);
  return { bytes: Math.ceil(bytes), what: `Analysing this ${kind}`, pixels, hint: `A smaller ${kind === 'video' ? 'frame size' : 'picture'} needs less.` };
}

/**
 * Hide or reveal: an image's samples held while they are embedded or read (a 49 MP JPEG cover
 * written as WebP peaked at 1.8 GiB, 38 a pixel); a video's decoder and encoder at once.
 */
export function stegoNeed(action: 'hide' | 'reveal', kind: 'image' | 'video', pixels: number, decodeTool: boolean): MemoryNeed {
  const bytes =
    kind === 'video'
      ? 2 * TOOL_BASE + pixels * PER_PIXEL.video * videoThreads()
      : JOB_BASE + pixels * PER_PIXEL.analyse + (decodeTool ? TOOL_BASE + pixels * PER_PIXEL.imageTool : 0);
  const what = action === 'hide' ? `Hiding in this ${kind}` : `Revealing from this ${kind}`;
  return { bytes: Math.ceil(bytes), what, pixels, hint: `A smaller ${kind === 'video' ? 'frame size' : 'picture'} needs less.` };
}

/** "8.9 GiB", "512 MiB". */
export function formatBytes(n: number): string {
  if (n >= 1024 * MiB) return `${(n / (1024 * MiB)).toFixed(1)} GiB`;
  return `${Math.ceil(n / MiB)} MiB`;
}

/** Refuses work that needs more than one job may have, naming the estimate, the limit and its setting. */
export function refuseOverMemory(need: MemoryNeed, limits: MediaLimits): void {
  const cap = limits.memoryPerJob;
  if (!cap || need.bytes <= cap.bytes) return;
  throw new MediaError(
    'too_much_memory',
    `${need.what} needs about ${formatBytes(need.bytes)} of memory (${megapixels(need.pixels)} a picture); ${cap.setting} allows ${formatBytes(cap.bytes)} for one job. ${need.hint}`,
  );
}
