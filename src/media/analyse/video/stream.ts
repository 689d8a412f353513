// What ffprobe says about a video's container and streams (codecs, tags, frame timing), read
// once per file and shared by the video detectors, and its packets (read without decoding).
// The frames' timing (pts, key flag, size) comes from the one decode of decode.ts.
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
  /** Presentation time, seconds from the first frame's (NaN when the frame has none). */
  t: number;
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

export interface Packet {
  /** Presentation time, seconds, from the first packet's (NaN when it has none). */
  t: number;
  pos: number;
  size: number;
  key: boolean;
}

/** The first video stream's packets (at most MAX_TIMING_FRAMES), in file order: read without
 *  decoding, for the encoder strings (encoder.ts) and the guess of the sampled frames (decode.ts). */
export const packetList = perInput(async (input, options): Promise<Packet[]> => {
  const r = await runTool('ffprobe', ['-v', 'error', '-protocol_whitelist', 'file', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,pos,size,flags', '-read_intervals', `%+#${MAX_TIMING_FRAMES}`, '-of', 'csv=p=0:nk=1', '-i', `file:${input.path}`], toolOpts(options, 300_000));
  if (r.code !== 0) return [];
  const rows = r.stdout.toString('utf8').split('\n').map((l) => l.split(',')).filter((f) => f.length >= 4);
  const t0 = rows.reduce((m, f) => (Number.isFinite(Number(f[0])) && Number(f[0]) < m ? Number(f[0]) : m), Infinity);
  return rows.map((f) => {
    const t = Number(f[0]);
    return { t: Number.isFinite(t) ? t - (Number.isFinite(t0) ? t0 : 0) : NaN, size: Number(f[1]), pos: Number(f[2]), key: f[3].startsWith('K') };
  });
});
