// One decode of a video for everything that reads its frames. ffmpeg decodes the first video
// stream once and, of each frame, logs its timing (showinfo: pts, key flag, size, pixel
// format), scales it to a 64x36 grey thumbnail for the scene statistics (piped into this
// process, never written anywhere), and writes the frames sampled for the still-image checks
// as PNGs into the job's scratch folder (select). Which frames are sampled depends on every
// frame's timing, known only once decoded, so the pick is guessed first from the packets
// (their times and keyframe flags, read without decoding); when the decoded frames pick
// otherwise, or the stream changes frame size or format (which the select output does not
// follow), `sampled` is null and frames.ts seeks the right frames one by one instead.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_LIMITS } from '../../limits.ts';
import { runTool } from '../../tools.ts';
import type { AnalyseInput, AnalyseOptions } from '../detector.ts';
import { DEFAULT_VIDEO_FRAMES, pickedIndices, pickTimes, type Pickable } from './pick.ts';
import { SCENE_H, SCENE_W, sceneSteps, type SceneSteps } from './scenes.ts';
import { MAX_TIMING_FRAMES, packetList, perInput, type FrameTiming } from './stream.ts';

export interface SampledFile extends Pickable {
  /** The frame as a PNG in the scratch folder. */
  file: string;
}

export interface DecodePass {
  timings: { frames: FrameTiming[]; truncated: boolean };
  scenes: SceneSteps;
  /** The sampled frames in time order, or null when the packets' guess did not hold. */
  sampled: SampledFile[] | null;
  /** The frames to sample, in time order, and their places in decoding order (null when
   *  the stream changes frame size or format: select cannot pick those). */
  picked: Pickable[];
  at: number[] | null;
}

// showinfo's lines; anchored at the line start, where nothing from the file's own metadata
// (which ffmpeg prints indented) can be
const SHOWINFO = /^\[Parsed_showinfo_\d+ @ 0x[0-9a-f]+\] /;
const FRAME = /^n:\s*\d+ pts:\s*(\S+)\s+pts_time:(\S+)/;
const TIME_BASE = /^config in time_base: (\d+)\/(\d+)/;

/** Reads one frame's line of showinfo; `tb` is the input's time base. */
function frameOf(line: string, tb: [number, number] | undefined): FrameTiming | undefined {
  const m = FRAME.exec(line);
  if (!m) return undefined;
  const pts = Number(m[1]);
  // as ffprobe prints it (6 decimals), from the exact pts where the time base is known
  const t = m[1] === 'NOPTS' ? NaN : tb && Number.isInteger(pts) && tb[1] > 0 ? Number((pts * (tb[0] / tb[1])).toFixed(6)) : Number(m[2]);
  const size = /\bs:(\d+)x(\d+)/.exec(line);
  return { t: Number.isFinite(t) ? t : NaN, key: /\biskey:1\b/.test(line), width: Number(size?.[1]), height: Number(size?.[2]), pixFmt: /\bfmt:(\S+)/.exec(line)?.[1] ?? '' };
}

/** One decode: the timing and grey thumbnails of every frame when `scene`, and the frames at
 *  the places `pick` (decoding order) as PNGs named `${prefix}-1.png` on, in that order. */
async function decodeOnce(input: AnalyseInput, options: AnalyseOptions, scene: boolean, pick: number[], dir: string, prefix: string): Promise<{ code: number; frames: FrameTiming[]; grey: Buffer }> {
  const frame = SCENE_W * SCENE_H;
  const frames: FrameTiming[] = [];
  let tb: [number, number] | undefined;
  const onStderrLine = (raw: string) => {
    if (!SHOWINFO.test(raw) || frames.length > MAX_TIMING_FRAMES) return;
    const line = raw.replace(SHOWINFO, '');
    const base = TIME_BASE.exec(line);
    if (base) tb ??= [Number(base[1]), Number(base[2])];
    const f = frameOf(line, tb);
    if (f) frames.push(f);
  };
  const grey = `scale=${SCENE_W}:${SCENE_H}:flags=area,format=gray`;
  const select = `select='${pick.map((n) => `eq(n\\,${n})`).join('+')}'`;
  const graph = !scene ? `[0:v:0]${select}[pick]` : pick.length ? `[0:v:0]showinfo=checksum=0,split=2[s][p];[s]${grey}[scene];[p]${select}[pick]` : `[0:v:0]showinfo=checksum=0,${grey}[scene]`;
  // -reinit_filter 0: a mid-stream change of frame size does not rebuild the graph (which
  // would restart select's frame count); scale takes the new size as it comes
  const args = ['-hide_banner', '-nostats', '-v', scene ? 'info' : 'error', '-nostdin', '-protocol_whitelist', 'file', '-copyts', '-reinit_filter', '0', '-i', `file:${input.path}`, '-filter_complex', graph];
  if (scene) args.push('-map', '[scene]', '-fps_mode', 'passthrough', '-frames:v', String(MAX_TIMING_FRAMES + 1), '-f', 'rawvideo', 'pipe:1');
  if (pick.length) args.push('-map', '[pick]', '-fps_mode', 'passthrough', '-frames:v', String(pick.length), '-f', 'image2', '-c:v', 'png', '-compression_level', '1', '-y', `file:${path.join(dir, `${prefix}-%d.png`)}`);
  const r = await runTool('ffmpeg', args, { signal: options.signal, onSpawn: options.onSpawn, onReap: options.onReap, timeoutMs: 600_000, maxStdout: frame * (MAX_TIMING_FRAMES + 2), onStderrLine: scene ? onStderrLine : undefined });
  return { code: r.code, frames, grey: r.stdout };
}

/** The frames at `at` (places in decoding order, any order), decoded once more and picked by
 *  select: for a stream whose packets guessed wrong (an AVI's B-frames carry no times). */
export async function selectFrames(input: AnalyseInput, options: AnalyseOptions, at: number[]): Promise<string[] | null> {
  const sorted = [...at].sort((a, b) => a - b);
  const dir = path.join(options.outDir, 'frames');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const r = await decodeOnce(input, options, false, sorted, dir, 'picked');
  return r.code === 0 ? at.map((n) => path.join(dir, `picked-${sorted.indexOf(n) + 1}.png`)) : null;
}

export const decodePass = perInput(async (input, options): Promise<DecodePass> => {
  const budget = (options.limits ?? DEFAULT_LIMITS).analyseVideoFrames ?? DEFAULT_VIDEO_FRAMES;
  const duration = input.probe.durationS ?? 0;
  // the guess: the same pick on the packets in presentation order
  const order = (t: number) => (Number.isNaN(t) ? Infinity : t);
  const packets = [...(await packetList(input, options).catch(() => []))].sort((a, b) => order(a.t) - order(b.t) || 0);
  const guess = packets.length ? (pickedIndices(packets, pickTimes(packets, duration, budget)) ?? []).sort((a, b) => a - b) : [];
  const dir = path.join(options.outDir, 'frames');
  if (guess.length) await mkdir(dir, { recursive: true, mode: 0o700 });
  let wrote = guess;
  let run = await decodeOnce(input, options, true, wrote, dir, 'pass');
  // a frame the PNG output could not take must not cost the timing and scene readings
  if (run.code !== 0 && wrote.length) run = await decodeOnce(input, options, true, (wrote = []), dir, 'pass');
  if (run.code !== 0) throw new Error('the frames could not be decoded');
  const frames = run.frames;
  const truncated = frames.length > MAX_TIMING_FRAMES;
  if (truncated) frames.length = MAX_TIMING_FRAMES;
  // times from the start, as a player shows them (MPEG-TS starts at 1.4 s, say)
  const t0 = frames.reduce((m, f) => (Number.isFinite(f.t) && f.t < m ? f.t : m), Infinity);
  if (Number.isFinite(t0) && t0 !== 0) for (const f of frames) f.t -= t0;
  const grey = run.grey.subarray(0, Math.min(run.grey.length, SCENE_W * SCENE_H * MAX_TIMING_FRAMES));

  const picked = pickTimes(frames, duration, budget);
  const at = pickedIndices(frames, picked);
  const steady = frames.every((f) => f.width === frames[0].width && f.height === frames[0].height && f.pixFmt === frames[0].pixFmt);
  const held = at !== null && steady && wrote.length > 0 && at.length === wrote.length && [...at].sort((a, b) => a - b).every((n, i) => n === wrote[i]);
  // select writes the frames in decoding order, numbered from 1
  const sampled = held ? picked.map((p, i) => ({ t: p.t, key: p.key, file: path.join(dir, `pass-${wrote.indexOf(at[i]) + 1}.png`) })) : null;
  return { timings: { frames, truncated }, scenes: sceneSteps(grey), sampled, picked, at: steady ? at : null };
});

/** Per-frame timing of the first video stream, in decoding order, at most MAX_TIMING_FRAMES. */
export const frameTimings = async (input: AnalyseInput, options: AnalyseOptions) => (await decodePass(input, options)).timings;

/** Scene steps of the same frames (scenes.ts). */
export const sceneDistances = async (input: AnalyseInput, options: AnalyseOptions) => (await decodePass(input, options)).scenes;
