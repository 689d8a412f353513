// Video tampering: where the stream's own structure breaks. Frame timing (timestamp gaps where
// frames were dropped or cut out, repeated or backwards timestamps), a frame size, pixel
// format or encoder (its version string) changing mid-stream, and scene-statistics jumps far above the video's own variation
// (a join of two recordings). A hard cut in an edited film is such a jump too: the finding
// says so, and the break's at_keyframe and strength help tell them apart.
import { throwIfAborted } from '../../errors.ts';
import { finding, type Detector, type DetectorResult, type Finding } from '../detector.ts';
import { gradeReason } from '../grade.ts';
import { listOf } from '../../../i18n/findings-format.ts';
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

/** The first five breaks ("a ... at 1.20 s; ...") and how many more: the findings' values. */
const where = (bs: VideoBreak[]) => ({
  breaks: listOf(bs.slice(0, 5).map((b) => ({ id: 'finding.video_tamper.part.at' as const, values: { kind: { id: `finding.video_tamper.kind.${b.kind}` as const }, time: b.time_s.toFixed(2) } })), 'finding.part.semicolon'),
  more: Math.max(0, bs.length - 5),
});

export const videoTamperDetector: Detector<VideoTamperVerdict> = {
  name: NAME,
  verdictOrder: 100,
  grade: {
    section: 'splicing',
    points: (v) => {
      if (!v?.applicable || !v.suspected) return [];
      // a broken stream (timestamps, frame size) is stronger evidence than a picture jump alone
      if (v.breaks.some((b) => b.kind !== 'scene_discontinuity')) return [gradeReason(2, 'grade.video_tamper.structural')];
      return [gradeReason(1, 'grade.video_tamper.scene')];
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
    const structural = all.filter((b) => b.kind !== 'scene_discontinuity');
    const scenes = all.filter((b) => b.kind === 'scene_discontinuity');
    if (structural.length) findings.push(finding(NAME, 'high', 'finding.video_tamper.stream_breaks', where(structural), 'tip.video_tamper.stream_breaks'));
    if (scenes.length) findings.push(finding(NAME, 'medium', 'finding.video_tamper.scene_breaks', where(scenes), 'tip.video_tamper.scene_breaks'));
    if (!all.length) findings.push(finding(NAME, 'info', 'finding.video_tamper.none', { frames: frames.length }));
    if (truncated) findings.push(finding(NAME, 'info', 'finding.video_tamper.truncated', { frames: MAX_TIMING_FRAMES }));
    const keyframes = frames.filter((f) => f.key).length;
    return { verdict: { applicable: true, suspected: all.length > 0, breaks: all.slice(0, MAX_LISTED), frames_read: frames.length, keyframes, truncated }, findings, assets: [] };
  },
};
