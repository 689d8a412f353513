// Resource limits, checked from headers before any pixel or frame is decoded (imgproxy-style).
export interface MediaLimits {
  /** Pixels of one image or frame. */
  maxPixels: number;
  /** Frames of an animated image. */
  maxFrames: number;
  /** Length of a video, in seconds. */
  maxDurationS: number;
  maxVideoWidth: number;
  maxVideoHeight: number;
  /** Frames of a video sampled for the still-image analyses (OBSCURA_ANALYSE_VIDEO_FRAMES). */
  analyseVideoFrames?: number;
  /** Bytes a reveal may give back, all hidden files together (OBSCURA_MAX_REVEAL_BYTES). */
  maxRevealBytes?: number;
  /** Files a reveal may give back: no hide takes more secrets (OBSCURA_SESSION_MAX_FILES). */
  maxRevealFiles?: number;
  /** Time each of steghide, outguess and stegosuite may take in a reveal (OBSCURA_REVEAL_TOOL_TIMEOUT). */
  revealToolTimeoutMs?: number;
  /** Largest picture a reveal gives to stegosuite (OBSCURA_STEGOSUITE_MAX_PIXELS). */
  stegosuiteMaxPixels?: number;
  /** Memory one job may reserve (media/memory.ts): the smaller of OBSCURA_MEDIA_MEMORY_PER_JOB and OBSCURA_MEDIA_MEMORY_BUDGET. Absent: no cap. */
  memoryPerJob?: { bytes: number; setting: string };
}

export const DEFAULT_LIMITS: MediaLimits = Object.freeze({
  maxPixels: 50_000_000,
  maxFrames: 1000,
  maxDurationS: 3600,
  maxVideoWidth: 7680,
  maxVideoHeight: 4320,
  maxRevealBytes: 512 * 1024 * 1024,
  maxRevealFiles: 20,
  revealToolTimeoutMs: 120_000,
  stegosuiteMaxPixels: 4_000_000,
});
