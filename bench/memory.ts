// The memory estimates (media/memory.ts) against what the tools really map, on the issue's
// cases: each tool run as its backend runs it, with no limit, its peak address space (VmPeak,
// what RLIMIT_AS counts) and peak RSS read from /proc while it runs. The estimate is the tool's
// address-space limit, so a ratio VmPeak / estimate over 1 means that work would be stopped
// (goal: every ratio below 1, and not far below, or the budget admits too little).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { imageConvertNeed, videoConvertNeed, formatBytes, type MemoryNeed } from '../src/media/memory.ts';
import { runTool } from '../src/media/tools.ts';

interface Peak {
  vmPeak: number;
  hwm: number;
}

/** Runs a tool and samples its /proc status every 50 ms. */
async function peakOf(cmd: string, args: string[], cwd: string): Promise<Peak> {
  const peak = { vmPeak: 0, hwm: 0 };
  let timer: NodeJS.Timeout | undefined;
  const sample = (pid: number) => {
    try {
      const s = readFileSync(`/proc/${pid}/status`, 'latin1');
      peak.vmPeak = Math.max(peak.vmPeak, Number(/VmPeak:\s+(\d+)/.exec(s)?.[1] ?? 0) * 1024);
      peak.hwm = Math.max(peak.hwm, Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) * 1024);
    } catch {
      /* gone */
    }
  };
  const r = await runTool(cmd, args, { cwd, maxStdout: 1 << 20, onSpawn: (pid) => (timer = setInterval(() => sample(pid), 50)) });
  clearInterval(timer);
  if (r.code !== 0) throw new Error(`${cmd} failed: ${r.stderr.slice(-300)}`);
  return peak;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-bench-mem-'));
  try {
    const picture = async (w: number, h: number) => {
      const file = path.join(dir, `${w}x${h}.png`);
      // one colour, as in the issue: cjxl maps twice as much for it as for noise
      await sharp({ create: { width: w, height: h, channels: 3, background: '#336699' } }).png({ compressionLevel: 1 }).toFile(file);
      return file;
    };
    const video = async (w: number, h: number) => {
      const file = path.join(dir, `${w}x${h}.mp4`);
      // 75 frames: enough to fill the encoders' lookahead (x264 medium: 40), where they peak
      await runTool('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=25:duration=3`, '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-y', file], { cwd: dir });
      return file;
    };
    const x264 = ['-c:v', 'libx264', '-preset', 'medium', '-pix_fmt', 'yuv420p'];
    const x265 = ['-c:v', 'libx265', '-preset', 'fast', '-pix_fmt', 'yuv420p', '-x265-params', 'info=0:log-level=error'];
    const vp9 = ['-c:v', 'libvpx-vp9', '-b:v', '0', '-crf', '32', '-pix_fmt', 'yuv420p', '-row-mt', '1', '-deadline', 'good', '-cpu-used', '4'];
    const transcode = (input: string, codec: string[], muxer: string) => ['-nostdin', '-v', 'error', '-y', '-i', `file:${input}`, ...codec, '-f', muxer, `file:${path.join(dir, 'out')}`];
    const cases: [string, () => Promise<[string, string[]]>, MemoryNeed][] = [
      ['cjxl, 12 MP', async () => ['cjxl', [await picture(4000, 3000), 'out.jxl', '--container=0', '--quiet']], imageConvertNeed(12e6, 12e6, { decodeTool: false, encoder: 'jxl', redact: false }, '')],
      ['cjxl, 49 MP', async () => ['cjxl', [await picture(7000, 7000), 'out.jxl', '--container=0', '--quiet']], imageConvertNeed(49e6, 49e6, { decodeTool: false, encoder: 'jxl', redact: false }, '')],
      ['heif-enc, 49 MP', async () => ['heif-enc', ['-q', '50', '-o', 'out.heic', await picture(7000, 7000)]], imageConvertNeed(49e6, 49e6, { decodeTool: false, encoder: 'heic', redact: false }, '')],
      ['ffmpeg x264, 1080p', async () => ['ffmpeg', transcode(await video(1920, 1080), x264, 'mp4')], videoConvertNeed(1920 * 1080, false, '')],
      ['ffmpeg x264, 8K', async () => ['ffmpeg', transcode(await video(7680, 4320), x264, 'mp4')], videoConvertNeed(7680 * 4320, false, '')],
      ['ffmpeg x265, 8K', async () => ['ffmpeg', transcode(await video(7680, 4320), x265, 'mp4')], videoConvertNeed(7680 * 4320, false, '')],
      ['ffmpeg VP9, 8K', async () => ['ffmpeg', transcode(await video(7680, 4320), vp9, 'webm')], videoConvertNeed(7680 * 4320, false, '')],
    ];
    process.stdout.write(`${os.availableParallelism()} cores\n`);
    for (const [name, make, need] of cases) {
      const [cmd, args] = await make();
      const p = await peakOf(cmd, args, dir);
      process.stdout.write(`${name}: VmPeak ${formatBytes(p.vmPeak)}, RSS ${formatBytes(p.hwm)}; estimate ${formatBytes(need.bytes)}; VmPeak / estimate ${(p.vmPeak / need.bytes).toFixed(2)}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
