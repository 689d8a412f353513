// Every video conversion, through ffmpeg spawned with an argument array. Only the first video
// and first audio stream are kept; container, stream and chapter metadata are dropped; encoder
// identification is removed (x264's settings SEI, x265's info SEI, "Lavc"/"Lavf" strings); the
// display matrix is applied to the pixels (ffmpeg autorotates) so the output needs no tag.
import { rm } from 'node:fs/promises';
import { MediaError } from '../../errors.ts';
import { FORMAT_NAME } from '../../format-names.ts';
import { ffprobeJson, type DetailedProbe } from '../../probe.ts';
import { runTool } from '../../tools.ts';
import type { Conversion, VideoBackend } from '../backend.ts';
import { scrubIsoBmff, scrubMatroska } from '../container-scrub.ts';
import { fitGeometry } from '../geometry.ts';
import type { ConvertOptions, VideoTarget } from '../options.ts';

const TARGETS = new Set<string>(['mp4h264', 'mp4h265', 'webm', 'mkv', 'mov']);

/** quality 1–100 onto a CRF range (low quality → high CRF). */
function crf(quality: number | undefined, worst: number, best: number, fallback: number): string {
  if (quality === undefined) return String(fallback);
  return String(Math.round(worst - ((quality - 1) * (worst - best)) / 99));
}

const X264_SEI_STRIP = ['-bsf:v', 'filter_units=remove_types=6']; // SEI: x264 writes its version and settings there

export function codecArgs(o: ConvertOptions & { format: VideoTarget }): { video: string[]; audio: string[]; muxer: string[]; even: boolean } {
  const x264 = ['-c:v', 'libx264', '-preset', 'medium', '-crf', crf(o.quality, 45, 15, 23), '-pix_fmt', 'yuv420p', ...X264_SEI_STRIP];
  const aac = ['-c:a', 'aac', '-b:a', '160k'];
  const faststart = ['-movflags', '+faststart'];
  switch (o.format) {
    case 'mp4h264':
      return { video: x264, audio: aac, muxer: [...faststart, '-f', 'mp4'], even: true };
    case 'mov':
      return { video: x264, audio: aac, muxer: [...faststart, '-f', 'mov'], even: true };
    case 'mp4h265':
      return {
        video: ['-c:v', 'libx265', '-preset', 'fast', '-crf', crf(o.quality, 48, 18, 28), '-pix_fmt', 'yuv420p', '-x265-params', 'info=0:log-level=error', '-tag:v', 'hvc1'],
        audio: aac,
        muxer: [...faststart, '-f', 'mp4'],
        even: true,
      };
    case 'webm':
      return {
        video: o.lossless
          ? ['-c:v', 'libvpx-vp9', '-lossless', '1', '-row-mt', '1', '-deadline', 'good', '-cpu-used', '4']
          : ['-c:v', 'libvpx-vp9', '-b:v', '0', '-crf', crf(o.quality, 60, 15, 32), '-pix_fmt', 'yuv420p', '-row-mt', '1', '-deadline', 'good', '-cpu-used', '4'],
        audio: ['-c:a', 'libopus', '-b:a', '128k'],
        muxer: ['-f', 'webm'],
        even: !o.lossless,
      };
    case 'mkv':
      return o.lossless
        ? { video: ['-c:v', 'ffv1', '-level', '3', '-g', '1', '-slicecrc', '1'], audio: ['-c:a', 'flac'], muxer: ['-f', 'matroska'], even: false }
        : { video: x264, audio: aac, muxer: ['-f', 'matroska'], even: true };
  }
}

const EXT: Record<VideoTarget, string> = { mp4h264: 'mp4', mp4h265: 'mp4', webm: 'webm', mkv: 'mkv', mov: 'mov' };
const MIME: Record<VideoTarget, string> = { mp4h264: 'video/mp4', mp4h265: 'video/mp4', webm: 'video/webm', mkv: 'video/x-matroska', mov: 'video/quicktime' };

export function videoTargetFile(format: VideoTarget): { extension: string; mime: string } {
  return { extension: EXT[format], mime: MIME[format] };
}

const INPUT_TROUBLE = /partial file|Invalid data|corrupt|truncat|moov atom not found|Error while decoding|error reading|End of file|invalid NAL|missing picture|decode_slice|concealing/i;

export const ffmpegVideoBackend: VideoBackend = {
  name: 'ffmpeg-video',
  canDecode: () => true, // every container sniff() lets through is an ffmpeg demuxer
  canEncode: (format) => TARGETS.has(format),

  async transcode(input, probed: DetailedProbe, o, out, conversion: Conversion, onProgress) {
    const v = probed.video!;
    const p = probed.probe;
    const { video, audio, muxer, even } = codecArgs(o);
    const g = fitGeometry(p.width, p.height, o, even);

    // Scale to the asked size (square pixels), then crop (cover) or pad (contain) to the box.
    const filters: string[] = [...conversion.sourceFilters];
    if (g.scaleW !== p.width || g.scaleH !== p.height || (v.sar !== undefined && v.sar !== 1)) {
      filters.push(`scale=${g.scaleW}:${g.scaleH}:flags=lanczos`, 'setsar=1');
    }
    if (g.outW < g.scaleW || g.outH < g.scaleH) filters.push(`crop=${g.outW}:${g.outH}`);
    if (g.outW > g.scaleW || g.outH > g.scaleH) filters.push(`pad=${g.outW}:${g.outH}:(ow-iw)/2:(oh-ih)/2:black`);
    if (g.notEnlarged) conversion.note(`The video was not enlarged (it is ${p.width}×${p.height}); set upscale to true to enlarge it.`);
    if (v.rotation && Math.round(v.rotation) % 360 !== 0) conversion.note('The video carried a rotation flag; its frames were turned upright and the flag removed.');
    if (v.extraStreams > 0) conversion.note('Only the first video and audio track were kept; subtitles, extra tracks, chapters and data streams were removed.');
    if (o.lossless && o.quality !== undefined) conversion.note('quality does not apply to lossless output.');
    if (o.lossless && o.format === 'webm' && p.hasAudio) conversion.note('WebM audio is Opus, which is lossy; choose mkv for lossless audio (FLAC).');

    const args = ['-nostdin', '-hide_banner', '-v', 'error', '-y', '-protocol_whitelist', 'file', '-f', v.demuxer, '-i', `file:${input}`];
    args.push('-map', `0:${v.videoStream}`);
    if (v.audioStream !== undefined) args.push('-map', `0:${v.audioStream}`);
    args.push('-map_metadata', '-1', '-map_chapters', '-1', '-t', String(conversion.limits.maxDurationS));
    if (filters.length) args.push('-vf', filters.join(','));
    args.push(...video);
    if (v.audioStream !== undefined) args.push(...audio);
    args.push('-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact', '-max_muxing_queue_size', '4096');
    args.push(...muxer, '-progress', 'pipe:1', '-nostats', `file:${out}`);

    const duration = p.durationS;
    let lastT = 0;
    let lastSent = -1;
    const r = await runTool('ffmpeg', args, {
      ...conversion.toolOptions,
      maxStdout: 1 << 20,
      onStdoutLine: (line) => {
        const m = /^out_time_us=(\d+)/.exec(line);
        if (m) lastT = Number(m[1]) / 1e6;
        if (!m || !onProgress || !duration) return;
        const f = Math.min(0.99, lastT / duration); // 1 is for when the output is checked
        if (f - lastSent >= 0.01) {
          lastSent = f;
          onProgress(f);
        }
      },
    }).catch(async (e: unknown) => {
      await rm(out, { force: true });
      throw e;
    });

    const label = FORMAT_NAME[v.format];
    const damaged = INPUT_TROUBLE.test(r.stderr);
    if (r.code !== 0) {
      await rm(out, { force: true });
      if (damaged || r.stderr.trim() === '') throw new MediaError('corrupt', `The ${label} video could not be decoded: the file is damaged or incomplete.`);
      throw new MediaError('engine_failed', 'The video encoder failed on this file.');
    }
    // ffmpeg treats a truncated file as a short one: an early end with errors means damage.
    if (duration && damaged && lastT < Math.min(duration, conversion.limits.maxDurationS) * 0.9 - 0.5) {
      await rm(out, { force: true });
      throw new MediaError('corrupt', `The ${label} video ends early (at ${lastT.toFixed(1)} s of ${duration.toFixed(1)} s): the file is damaged or incomplete.`);
    }

    if (o.format === 'webm' || o.format === 'mkv') await scrubMatroska(out);
    else await scrubIsoBmff(out);

    const check = await ffprobeJson(out, undefined, conversion.toolOptions);
    const vs = check?.streams?.find((s) => s.codec_type === 'video');
    if (!vs?.width || !vs.height) {
      await rm(out, { force: true });
      throw new MediaError('engine_failed', 'The converted video could not be verified.');
    }
    return { width: vs.width, height: vs.height };
  },
};
