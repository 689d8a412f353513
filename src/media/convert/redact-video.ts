// Redaction of a video. Faces (and text) are looked for in frames sampled at up to 5 per
// second, decoded by ffmpeg; boxes that overlap from one sample to the next are merged into a
// track (the union of its boxes). Each track is then blurred or filled by ffmpeg filters in
// the transcode itself, from one sample interval before its first sighting to one after its
// last, so every frame between two samples is covered by both neighbours' boxes. Why not
// every frame through Node: the raw frames of a whole video would fill the memory-backed
// scratch, and the encoders already run in ffmpeg.
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { MediaError, throwIfAborted } from '../errors.ts';
import type { DetailedProbe } from '../probe.ts';
import { runTool } from '../tools.ts';
import type { Conversion } from './backend.ts';
import type { RedactStyle, RedactTarget } from './options.ts';
import { findRegions, type Region } from './redact.ts';
import type { Redacted } from './redact.ts';

const MAX_RATE = 5;
/** At most this many frames are examined; a longer video is sampled more sparsely. */
const MAX_SAMPLES = 300;

interface Track extends Region {
  kind: 'faces' | 'text';
  from: number;
  to: number;
}

/** The ffmpeg filter that redacts a video's tracks (empty when nothing was found), and the counts. */
export async function videoRedaction(input: string, probed: DetailedProbe, targets: readonly RedactTarget[], style: RedactStyle, conversion: Conversion): Promise<{ filter: string; redacted: Redacted; samples: number }> {
  const duration = Math.min(probed.probe.durationS ?? conversion.limits.maxDurationS, conversion.limits.maxDurationS);
  const rate = Math.max(0.05, Math.min(MAX_RATE, MAX_SAMPLES / Math.max(duration, 0.001)));
  const dir = conversion.temp('frames');
  await mkdir(dir, { mode: 0o700 });
  try {
    const r = await runTool(
      'ffmpeg',
      ['-nostdin', '-hide_banner', '-v', 'error', '-protocol_whitelist', 'file', '-i', `file:${input}`, '-map', `0:${probed.video!.videoStream}`, '-t', String(duration), '-vf', `fps=${rate}`, '-f', 'image2', '-c:v', 'png', '-compression_level', '1', `file:${path.join(dir, 'f-%06d.png')}`],
      { ...conversion.toolOptions, timeoutMs: 600_000 },
    );
    if (r.code !== 0) throw new MediaError('corrupt', 'The video could not be decoded for redaction: the file is damaged or incomplete.');
    const frames = (await readdir(dir)).filter((f) => f.endsWith('.png')).sort();
    const tracks: Track[] = [];
    let open: Track[] = [];
    let size = { width: probed.probe.width, height: probed.probe.height };
    for (const [i, f] of frames.entries()) {
      throwIfAborted(conversion.signal);
      const file = path.join(dir, f);
      const { data, info } = await sharp(file).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
      await rm(file, { force: true }); // one frame at a time in scratch
      size = { width: info.width, height: info.height }; // the frames as ffmpeg's filters see them
      const found = await findRegions({ data, width: info.width, height: info.height, channels: info.channels }, targets);
      const t = i / rate;
      const next: Track[] = [];
      for (const [kind, boxes] of [['faces', found.faces], ['text', found.text]] as const) {
        for (const b of boxes) {
          const prev = open.find((o) => o.kind === kind && overlaps(o, b) && !next.includes(o));
          if (prev) {
            Object.assign(prev, union(prev, b), { to: t });
            next.push(prev);
          } else {
            const track: Track = { ...b, kind, from: t, to: t };
            tracks.push(track);
            next.push(track);
          }
        }
      }
      open = next;
    }
    const pad = 1 / rate;
    const filter = tracks.map((tr, i) => redactFilter(even(tr, size.width, size.height), Math.max(0, tr.from - pad), tr.to + pad, style, i)).join(',');
    const redacted = { faces: tracks.filter((tr) => tr.kind === 'faces').length, text: tracks.filter((tr) => tr.kind === 'text').length };
    return { filter, redacted, samples: frames.length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const overlaps = (a: Region, b: Region) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

function union(a: Region, b: Region): Region {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

/** Even position and size (4:2:0 chroma), at least 2×2, inside the frame. */
function even(r: Region, w: number, h: number): Region {
  const x = Math.max(0, Math.floor(r.x / 2) * 2);
  const y = Math.max(0, Math.floor(r.y / 2) * 2);
  const x2 = Math.min(w, Math.ceil((r.x + r.width) / 2) * 2);
  const y2 = Math.min(h, Math.ceil((r.y + r.height) / 2) * 2);
  return { x, y, width: Math.max(2, x2 - x), height: Math.max(2, y2 - y) };
}

/** fill: a black box; blur: the region shrunk to 6×6 and stretched back (no detail left), overlaid. */
function redactFilter(r: Region, from: number, to: number, style: RedactStyle, i: number): string {
  const when = `enable='between(t,${from.toFixed(3)},${to.toFixed(3)})'`;
  if (style === 'fill') return `drawbox=x=${r.x}:y=${r.y}:w=${r.width}:h=${r.height}:color=black:t=fill:${when}`;
  return `split[r${i}a][r${i}b];[r${i}b]crop=${r.width}:${r.height}:${r.x}:${r.y},scale=6:6:flags=area,scale=${r.width}:${r.height}:flags=bilinear[r${i}c];[r${i}a][r${i}c]overlay=${r.x}:${r.y}:${when}`;
}
