// Sampled frames of a video: its keyframes and uniform samples, at most
// OBSCURA_ANALYSE_VIDEO_FRAMES of them, each written as a PNG into the job's scratch folder
// and wrapped as an image input (input.ts), so every still-image reading (pixels, faces, text)
// works on it unchanged. The still-image forensics and, for lossless codecs, LSB steganalysis
// run on them.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { runTool } from '../../tools.ts';
import { DEFAULT_LIMITS, type MediaLimits } from '../../limits.ts';
import type { AnalyseInput, AnalyseOptions } from '../detector.ts';
import { analyseInput } from '../input.ts';
import { frameTimings, perInput, streamInfo } from './stream.ts';

export const DEFAULT_VIDEO_FRAMES = 12;

export interface SampledFrame {
  time_s: number;
  keyframe: boolean;
  input: AnalyseInput;
}

/** Codecs whose decoded frames are exactly what was encoded (so LSB analysis means something). */
const LOSSLESS_CODECS = new Set(['ffv1', 'huffyuv', 'ffvhuff', 'utvideo', 'magicyuv', 'rawvideo', 'png', 'apng', 'qtrle', 'zlib', 'lagarith', 'flashsv', 'flashsv2']);

/** Whether the first video stream is lossless: a lossless codec, or VP9 in RGB (which libvpx
 *  writes only lossless, as this service's own hidden-file videos are). */
export async function losslessVideo(input: AnalyseInput, options: AnalyseOptions): Promise<boolean> {
  const v = (await streamInfo(input, options)).streams.find((s) => s.type === 'video');
  if (!v?.codec) return false;
  return LOSSLESS_CODECS.has(v.codec) || (v.codec === 'vp9' && /^gbr/.test(v.pixFmt ?? ''));
}

/** Keyframes (evenly picked, half the budget at most) and uniform samples, in time order. */
export function pickTimes(frames: { t: number; key: boolean }[], duration: number, budget: number): { t: number; key: boolean }[] {
  const usable = frames.filter((f) => Number.isFinite(f.t));
  const keys = usable.filter((f) => f.key);
  const nk = Math.min(keys.length, Math.ceil(budget / 2));
  const picked: { t: number; key: boolean }[] = [];
  for (let i = 0; i < nk; i++) picked.push(keys[Math.floor((i * keys.length) / nk)]);
  const end = usable.length ? usable[usable.length - 1].t : duration;
  const start = usable.length ? usable[0].t : 0;
  for (let i = 0; picked.length < budget && i < budget; i++) {
    const t = start + ((i + 0.5) * (end - start)) / budget;
    const near = usable.length ? usable.reduce((a, b) => (Math.abs(b.t - t) < Math.abs(a.t - t) ? b : a)) : { t, key: false };
    if (!picked.some((p) => Math.abs(p.t - near.t) < 1e-6)) picked.push(near);
  }
  return picked.sort((a, b) => a.t - b.t);
}

export const sampledFrames = perInput(async (input, options): Promise<SampledFrame[]> => {
  const limits: MediaLimits = options.limits ?? DEFAULT_LIMITS;
  const budget = limits.analyseVideoFrames ?? DEFAULT_VIDEO_FRAMES;
  const timings = await frameTimings(input, options).catch(() => ({ frames: [] }));
  const times = pickTimes(timings.frames, input.probe.durationS ?? 0, budget);
  const dir = path.join(options.outDir, 'frames');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tool = { signal: options.signal, onSpawn: options.onSpawn, onReap: options.onReap, timeoutMs: 60_000 };
  const out: SampledFrame[] = [];
  for (const [i, s] of times.entries()) {
    const file = path.join(dir, `frame-${i}.png`);
    // accurate seek: decoded from the keyframe before, so the frame is the one asked for
    const r = await runTool('ffmpeg', ['-v', 'error', '-nostdin', '-protocol_whitelist', 'file', '-ss', s.t.toFixed(6), '-i', `file:${input.path}`, '-map', '0:v:0', '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '-y', `file:${file}`], tool);
    if (r.code !== 0) continue;
    const m = await sharp(file).metadata().catch(() => undefined);
    if (!m?.width || !m.height) continue;
    const probe = { kind: 'image' as const, format: 'png', mime: 'image/png', width: m.width, height: m.height, frames: 1, animated: false };
    out.push({ time_s: Math.round(s.t * 1000) / 1000, keyframe: s.key, input: analyseInput(file, probe, limits, options) });
  }
  return out;
});

/** Runs a reading other parts add to the input (faces(), text()) on each sampled frame, when
 *  the reading exists; frames where it fails are left out. */
export async function overFrames<T>(input: AnalyseInput, options: AnalyseOptions, reading: string): Promise<{ time_s: number; value: T }[] | null> {
  const frames = await sampledFrames(input, options);
  if (!frames.length || typeof (frames[0].input as unknown as Record<string, unknown>)[reading] !== 'function') return null;
  const out: { time_s: number; value: T }[] = [];
  for (const f of frames) {
    try {
      out.push({ time_s: f.time_s, value: await ((f.input as unknown as Record<string, () => Promise<T>>)[reading])() });
    } catch {
      // a frame the reading cannot handle: the others still count
    }
  }
  return out;
}
