// Video tampering: where the stream's own structure breaks. Frame timing (timestamp gaps where
// frames were dropped or cut out, repeated or backwards timestamps), a frame size, pixel
// format or encoder (its version string) changing mid-stream, and scene-statistics jumps far above the video's own variation
// (a join of two recordings). A hard cut in an edited film is such a jump too: the finding
// says so, and the break's at_keyframe and strength help tell them apart.
import { throwIfAborted } from '../../errors.ts';
import type { Detector, DetectorResult, Finding } from '../detector.ts';
import { encoderBreaks, encoderMarks } from '../video/encoder.ts';
import { frameTimings, sceneDistances } from '../video/decode.ts';
import { MAX_TIMING_FRAMES } from '../video/stream.ts';
import { sceneBreaks, timingBreaks, type VideoBreak } from '../video/timing.ts';

export type VideoTamperVerdict =
  | { applicable: false; reason: string }
  | { applicable: true; suspected: boolean; breaks: VideoBreak[]; frames_read: number; keyframes: number; truncated: boolean };

const NAME = 'video_tamper';
/** Breaks listed at most (the count of the rest is in a finding). */
const MAX_LISTED = 50;

const KIND_LABEL: Record<VideoBreak['kind'], string> = {
  timestamp_gap: 'a timestamp gap (frames missing)',
  duplicate_timestamp: 'a repeated timestamp',
  timestamp_reversal: 'timestamps going backwards',
  resolution_change: 'a change of frame size',
  format_change: 'a change of pixel format',
  encoder_change: 'another encoder or other encoder settings',
  encoder_restart: 'a second start of the encoder',
  scene_discontinuity: 'an abrupt change of picture',
};

export const videoTamperDetector: Detector<VideoTamperVerdict> = {
  name: NAME,
  verdictOrder: 100,
  grade: {
    section: 'splicing',
    points: (v) => {
      if (!v?.applicable || !v.suspected) return [];
      // a broken stream (timestamps, frame size) is stronger evidence than a picture jump alone
      if (v.breaks.some((b) => b.kind !== 'scene_discontinuity')) return [{ points: 2, reason: 'The video stream breaks (timestamp gaps, or a frame size, format or encoder change): frames may have been removed, or recordings joined.' }];
      return [{ points: 1, reason: 'The picture jumps abruptly where two recordings may have been joined.' }];
    },
  },
  async run(input, options): Promise<DetectorResult<VideoTamperVerdict>> {
    if (input.probe.kind !== 'video') {
      return { verdict: { applicable: false, reason: 'Only videos are checked for frame-timing and scene breaks.' }, findings: [], assets: [] };
    }
    throwIfAborted(options.signal);
    const [{ frames, truncated }, distances, marks] = await Promise.all([frameTimings(input, options), sceneDistances(input, options), encoderMarks(input, options)]);
    if (frames.length < 2) throw new Error('too few frames');
    const all = [...timingBreaks(frames), ...encoderBreaks(marks), ...sceneBreaks(distances, frames)].sort((a, b) => a.time_s - b.time_s);
    const findings: Finding[] = [];
    const add = (severity: Finding['severity'], label: string, tip?: string) => findings.push({ detector: NAME, severity, label, ...(tip ? { tip } : {}) });
    const structural = all.filter((b) => b.kind !== 'scene_discontinuity');
    const scenes = all.filter((b) => b.kind === 'scene_discontinuity');
    const where = (bs: VideoBreak[]) => bs.slice(0, 5).map((b) => `${KIND_LABEL[b.kind]} at ${b.time_s.toFixed(2)} s`).join('; ') + (bs.length > 5 ? `; and ${bs.length - 5} more` : '');
    if (structural.length) add('high', `The video stream breaks: ${where(structural)}. Frames may have been removed, or recordings joined.`, 'Ask for the original recording; a camera writes even timestamps and one frame size throughout.');
    if (scenes.length) add('medium', `The picture changes abruptly, far beyond the video's usual frame-to-frame change: ${where(scenes)}. Two recordings may have been joined there (an edited film's hard cuts look the same).`, 'Look at the video around these times.');
    if (!all.length) add('info', `No frame-timing, format or scene break found in ${frames.length} frames. This does not prove the video is unedited.`);
    if (truncated) add('info', `Only the first ${MAX_TIMING_FRAMES} frames were checked for breaks.`);
    const keyframes = frames.filter((f) => f.key).length;
    return { verdict: { applicable: true, suspected: all.length > 0, breaks: all.slice(0, MAX_LISTED), frames_read: frames.length, keyframes, truncated }, findings, assets: [] };
  },
};
