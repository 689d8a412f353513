// Sampled frames of a video: its keyframes and uniform samples (pick.ts), at most
// OBSCURA_ANALYSE_VIDEO_FRAMES of them, each a PNG in the job's scratch folder (written by the
// one decode of decode.ts) wrapped as an image input (input.ts), so every still-image reading
// (pixels, faces, text) works on it unchanged. The still-image forensics and, for lossless
// codecs, LSB steganalysis run on them.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { runTool } from '../../tools.ts';
import { DEFAULT_LIMITS, type MediaLimits } from '../../limits.ts';
import type { AnalyseInput, AnalyseOptions } from '../detector.ts';
import { analyseInput } from '../input.ts';
import { decodePass, selectFrames, type SampledFile } from './decode.ts';
import { DEFAULT_VIDEO_FRAMES, pickTimes, type Pickable } from './pick.ts';
import { perInput, streamInfo } from './stream.ts';

export { DEFAULT_VIDEO_FRAMES, pickTimes };

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

/** The picked frames one by one, each decoded from the keyframe before it (an accurate seek):
 *  for a stream that changes frame size or format, which select does not follow. */
async function seekFrames(input: AnalyseInput, options: AnalyseOptions, times: Pickable[]): Promise<SampledFile[]> {
  const dir = path.join(options.outDir, 'frames');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tool = { signal: options.signal, onSpawn: options.onSpawn, onReap: options.onReap, timeoutMs: 60_000 };
  const out: SampledFile[] = [];
  for (const [i, s] of times.entries()) {
    const file = path.join(dir, `frame-${i}.png`);
    const r = await runTool('ffmpeg', ['-v', 'error', '-nostdin', '-protocol_whitelist', 'file', '-ss', s.t.toFixed(6), '-i', `file:${input.path}`, '-map', '0:v:0', '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '-y', `file:${file}`], tool);
    if (r.code === 0) out.push({ t: s.t, key: s.key, file });
  }
  return out;
}

export const sampledFrames = perInput(async (input, options): Promise<SampledFrame[]> => {
  const limits: MediaLimits = options.limits ?? DEFAULT_LIMITS;
  const pass = await decodePass(input, options).catch(() => undefined);
  let files = pass?.sampled;
  if (!files && pass?.at?.length) {
    // the packets guessed wrong: one more decode picks the frames
    const picked = pass.picked;
    files = (await selectFrames(input, options, pass.at))?.map((file, i) => ({ t: picked[i].t, key: picked[i].key, file }));
  }
  files ??= await seekFrames(input, options, pass?.picked ?? pickTimes([], input.probe.durationS ?? 0, limits.analyseVideoFrames ?? DEFAULT_VIDEO_FRAMES));
  const out: SampledFrame[] = [];
  for (const s of files) {
    const m = await sharp(s.file).metadata().catch(() => undefined);
    if (!m?.width || !m.height) continue;
    const probe = { kind: 'image' as const, format: 'png', mime: 'image/png', width: m.width, height: m.height, frames: 1, animated: false };
    out.push({ time_s: Math.round(s.t * 1000) / 1000, keyframe: s.key, input: analyseInput(s.file, probe, limits, options) });
  }
  // the text detector reads every frame too: its OCR runs in a worker thread, so it starts now
  // and goes on beside the forensic maps and faces on this thread
  if (!options.text || options.text.enabled) for (const f of out) f.input.text().catch(() => {});
  // faces too, on the faces thread, one frame after another
  if (!options.faces || options.faces.enabled) for (const f of out) f.input.faces().catch(() => {});
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
