// Encoder changes mid-stream: the version strings encoders write into the stream (an H.264 or
// HEVC user-data SEI: "x264 - core 164 ...", "x265 (build 199) ..."). x264 and x265 write
// theirs once, at the first frame of an encode, so a second one later in the stream means a
// second encode was joined on without re-encoding; a different string means another encoder
// or other settings. Read from the keyframe packets only (the SEI travels with them).
import { open } from 'node:fs/promises';
import type { AnalyseOptions } from '../detector.ts';
import { packetList, perInput } from './stream.ts';
import type { VideoBreak } from './timing.ts';

/** Encoders known to write their version string once per encode. */
const ENCODER_STRING = /(x264 - core \d+[^\0]{0,400}?options: [^\0]{0,2000})|(x265 \(build \d+\)[^\0]{0,200})/;
/** Keyframe packets read at most; bytes read from each at most. */
const MAX_KEY_PACKETS = 2000;
const MAX_READ = 64 << 10;

export interface EncoderMark {
  time_s: number;
  text: string;
}

export const encoderMarks = perInput(async (input, options: AnalyseOptions): Promise<EncoderMark[]> => {
  const keys = (await packetList(input, options)).filter((p) => p.key).slice(0, MAX_KEY_PACKETS);
  const marks: EncoderMark[] = [];
  const fh = await open(input.path, 'r');
  try {
    for (const { t, size, pos: at } of keys) {
      const n = Math.min(size, MAX_READ);
      if (!Number.isFinite(at) || at < 0 || !(n > 0)) continue;
      const buf = Buffer.alloc(n);
      await fh.read(buf, 0, n, at);
      const m = ENCODER_STRING.exec(buf.toString('latin1'));
      if (m) marks.push({ time_s: Math.round(t * 1000) / 1000, text: m[0] });
    }
  } finally {
    await fh.close();
  }
  return marks;
});

/** Every encoder string after the first is a break: a change when it differs, a restart when not. */
export function encoderBreaks(marks: EncoderMark[]): VideoBreak[] {
  return marks.slice(1).map((m) => ({ time_s: m.time_s, kind: m.text === marks[0].text ? ('encoder_restart' as const) : ('encoder_change' as const), at_keyframe: true, strength: 1 }));
}
