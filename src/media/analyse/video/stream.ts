// What ffprobe says about a video's container and streams (codecs, tags, frame timing), read
// once per file and shared by the video detectors. Timing comes from decoded frames (pts,
// key flag, size), read up to a bound so a long video costs a bounded amount of work.
import { runTool } from '../../tools.ts';
import type { AnalyseInput, AnalyseOptions } from '../detector.ts';

/** Frames whose timing is read (about 11 minutes at 30 fps); the rest of a longer video is not checked. */
export const MAX_TIMING_FRAMES = 20_000;

export interface StreamInfo {
  container: string | null;
  formatTags: Record<string, string>;
  streams: { index: number; type: string; codec: string | null; profile: string | null; pixFmt: string | null; tags: Record<string, string> }[];
}

export interface FrameTiming {
  /** Presentation time, seconds (NaN when the frame has none). */
  t: number;
  duration: number;
  key: boolean;
  width: number;
  height: number;
  pixFmt: string;
}

const toolOpts = (o: AnalyseOptions, timeoutMs: number, maxStdout = 64 << 20) => ({ signal: o.signal, onSpawn: o.onSpawn, onReap: o.onReap, timeoutMs, maxStdout });

/** Memoised per input: several detectors read the same video. */
export function perInput<T>(load: (input: AnalyseInput, options: AnalyseOptions) => Promise<T>): (input: AnalyseInput, options: AnalyseOptions) => Promise<T> {
  const cache = new WeakMap<AnalyseInput, Promise<T>>();
  return (input, options) => {
    let p = cache.get(input);
    if (!p) cache.set(input, (p = load(input, options)));
    return p;
  };
}

const strTags = (t: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (t && typeof t === 'object') for (const [k, v] of Object.entries(t)) if (typeof v === 'string') out[k] = v;
  return out;
};

export const streamInfo = perInput(async (input, options): Promise<StreamInfo> => {
  const r = await runTool('ffprobe', ['-v', 'error', '-protocol_whitelist', 'file', '-print_format', 'json', '-show_format', '-show_streams', '-i', `file:${input.path}`], toolOpts(options, 60_000, 8 << 20));
  if (r.code !== 0) throw new Error('ffprobe could not read the video');
  const j = JSON.parse(r.stdout.toString('utf8')) as { format?: { format_name?: string; tags?: unknown }; streams?: Record<string, unknown>[] };
  return {
    container: typeof j.format?.format_name === 'string' ? j.format.format_name : null,
    formatTags: strTags(j.format?.tags),
    streams: (j.streams ?? []).map((s) => ({
      index: Number(s.index),
      type: String(s.codec_type ?? ''),
      codec: typeof s.codec_name === 'string' ? s.codec_name : null,
      profile: typeof s.profile === 'string' ? s.profile : null,
      pixFmt: typeof s.pix_fmt === 'string' ? s.pix_fmt : null,
      tags: strTags(s.tags),
    })),
  };
});

/** Per-frame timing of the first video stream, in the order the decoder gives them (presentation order), at most MAX_TIMING_FRAMES. */
export const frameTimings = perInput(async (input, options): Promise<{ frames: FrameTiming[]; truncated: boolean }> => {
  const args = ['-v', 'error', '-protocol_whitelist', 'file', '-select_streams', 'v:0', '-show_entries', 'frame=pts_time,best_effort_timestamp_time,duration_time,pkt_duration_time,key_frame,width,height,pix_fmt', '-read_intervals', `%+#${MAX_TIMING_FRAMES + 1}`, '-of', 'csv=p=0:nk=0', '-i', `file:${input.path}`];
  const r = await runTool('ffprobe', args, toolOpts(options, 300_000));
  if (r.code !== 0) throw new Error('ffprobe could not read the frames');
  const frames: FrameTiming[] = [];
  for (const line of r.stdout.toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    const f: Record<string, string> = {};
    for (const kv of line.split(',')) {
      const i = kv.indexOf('=');
      if (i > 0) f[kv.slice(0, i)] = kv.slice(i + 1);
    }
    if (f.key_frame === undefined) continue; // a side-data line
    const t = Number(f.pts_time !== undefined && f.pts_time !== 'N/A' ? f.pts_time : f.best_effort_timestamp_time);
    const d = Number(f.duration_time ?? f.pkt_duration_time);
    frames.push({ t: Number.isFinite(t) ? t : NaN, duration: Number.isFinite(d) ? d : NaN, key: f.key_frame === '1', width: Number(f.width), height: Number(f.height), pixFmt: f.pix_fmt ?? '' });
  }
  const truncated = frames.length > MAX_TIMING_FRAMES;
  if (truncated) frames.length = MAX_TIMING_FRAMES;
  // times from the start, as a player shows them (MPEG-TS starts at 1.4 s, say); ffmpeg's -ss counts the same way
  const t0 = frames.reduce((m, f) => (Number.isFinite(f.t) && f.t < m ? f.t : m), Infinity);
  if (Number.isFinite(t0) && t0 !== 0) for (const f of frames) f.t -= t0;
  return { frames, truncated };
});
