// Breaks a video's own structure shows: frame-timing breaks (a timestamp gap where frames
// were dropped or cut out, repeated or backwards timestamps), a change of frame size or pixel
// format mid-stream (two recordings joined), and scene-statistics jumps far above the video's
// own frame-to-frame variation. Pure: fed with what stream.ts and scenes.ts read.
import type { FrameTiming } from './stream.ts';

export type VideoBreakKind = 'timestamp_gap' | 'duplicate_timestamp' | 'timestamp_reversal' | 'resolution_change' | 'format_change' | 'encoder_change' | 'encoder_restart' | 'scene_discontinuity';

export interface VideoBreak {
  time_s: number;
  kind: VideoBreakKind;
  /** Whether the frame there is a keyframe (a cut at a non-keyframe is the odder one). */
  at_keyframe: boolean;
  /** How far the break stands out: the jump over the video's usual step (x times). */
  strength: number;
}

/** A jump must be this many times the 90th percentile of the video's own frame-to-frame steps ... */
const SCENE_RATIO = 6;
/** ... and at least this large (histograms about half disjoint: another picture). */
const SCENE_FLOOR = 0.6;
/** A step of more than this many usual frame durations is a gap. */
const GAP_RATIO = 2.5;

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

function quantile(xs: number[], q: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

export function timingBreaks(frames: FrameTiming[]): VideoBreak[] {
  const out: VideoBreak[] = [];
  const steps: number[] = [];
  for (let i = 1; i < frames.length; i++) if (Number.isFinite(frames[i].t) && Number.isFinite(frames[i - 1].t)) steps.push(frames[i].t - frames[i - 1].t);
  const usual = quantile(steps.filter((s) => s > 0), 0.5);
  for (let i = 1; i < frames.length; i++) {
    const a = frames[i - 1];
    const b = frames[i];
    const at = { time_s: round(Number.isFinite(b.t) ? b.t : a.t), at_keyframe: b.key };
    if (a.width !== b.width || a.height !== b.height) out.push({ ...at, kind: 'resolution_change', strength: 1 });
    else if (a.pixFmt !== b.pixFmt) out.push({ ...at, kind: 'format_change', strength: 1 });
    if (!Number.isFinite(a.t) || !Number.isFinite(b.t) || !(usual > 0)) continue;
    const dt = b.t - a.t;
    if (dt < 0) out.push({ ...at, kind: 'timestamp_reversal', strength: round(-dt / usual, 1) });
    else if (dt < usual * 0.05) out.push({ ...at, kind: 'duplicate_timestamp', strength: 1 });
    else if (dt > usual * GAP_RATIO && dt - usual > 0.05) out.push({ ...at, time_s: round(a.t + usual), kind: 'timestamp_gap', strength: round(dt / usual, 1) });
  }
  return out;
}

/** Scene jumps: steps[i] is frame i's distance to frame i-1, settled[i] frame i-1's to a few
 *  frames later (scenes.ts). A jump the picture comes back from (a flash) is left out. */
export function sceneBreaks({ steps: distances, settled }: { steps: number[]; settled: number[] }, frames: FrameTiming[]): VideoBreak[] {
  const usual = quantile(distances.slice(1), 0.9);
  const bar = Math.max(SCENE_FLOOR, usual * SCENE_RATIO);
  const out: VideoBreak[] = [];
  // from the third frame: sources and cameras often settle over their first frames, and a
  // join there would join nothing
  for (let i = 3; i < distances.length && i < frames.length; i++) {
    if (distances[i] > bar && settled[i] > bar / 2) out.push({ time_s: round(frames[i].t), kind: 'scene_discontinuity', at_keyframe: frames[i].key, strength: round(distances[i] / Math.max(usual, 1e-3), 1) });
  }
  return out;
}
