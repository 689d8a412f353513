// Tells what a file is by its content and enforces every limit from its headers, before any
// pixel or frame is decoded: a 100 kB PNG declaring 100000×100000 pixels is refused here.
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import sharp from 'sharp';
import { z } from 'zod';
import { MediaError, throwIfAborted } from './errors.ts';
import type { MediaLimits } from './limits.ts';
import { FORMAT_NAME, article } from './format-names.ts';
import {
  IMAGE_MIME,
  SNIFF_BYTES,
  VIDEO_DEMUXER,
  VIDEO_MIME,
  isRefused,
  sniff,
  type ImageFormat,
  type MediaKind,
  type Refused,
  type Sniffed,
  type VideoFormat,
} from './sniff.ts';
import { runTool } from './tools.ts';

export { sniff, SNIFF_BYTES } from './sniff.ts';
export type { ImageFormat, MediaKind, Refused, Sniffed, VideoFormat } from './sniff.ts';

// libvips' operation cache would keep decoded inputs (and open handles on deleted scratch
// files) in memory after a job ends: plaintext must not outlive its job. Every media module
// that uses sharp imports this one.
sharp.cache(false);

export interface Probe {
  kind: MediaKind;
  format: string;
  mime: string;
  /** As displayed: orientation and rotation applied. */
  width: number;
  height: number;
  frames?: number;
  durationS?: number;
  hasAudio?: boolean;
  animated?: boolean;
}

export interface ProbeOptions {
  signal?: AbortSignal;
  onSpawn?: (pid: number) => void;
  onReap?: (pid: number) => void;
}

/** What the converters need beyond the public Probe. */
export interface ImageDetail {
  format: ImageFormat;
  /** Pixels as the decoder gives them, before any EXIF orientation. */
  storedWidth: number;
  storedHeight: number;
  /** EXIF orientation that sharp applies (1–8); 1 when the decoder orients by itself. */
  orientation: number;
  pages: number;
  hasAlpha: boolean;
}

export interface VideoDetail {
  format: VideoFormat;
  demuxer: string;
  videoStream: number;
  audioStream?: number;
  codedWidth: number;
  codedHeight: number;
  /** Degrees from the display matrix, as ffprobe reports them. */
  rotation: number;
  /** Sample aspect ratio (1 for square pixels). */
  sar: number;
  /** Streams beyond the first video and audio (subtitles, data, more tracks, cover art). */
  extraStreams: number;
  pixFmt?: string;
}

export interface DetailedProbe {
  probe: Probe;
  image?: ImageDetail;
  video?: VideoDetail;
}

const SHARP_FORMATS = new Set<ImageFormat>(['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff']);
const PROBE_TIMEOUT_MS = 60_000;
// A probe runs before the job's memory is estimated (it is what the estimate comes from), so it
// has no share yet: it gets this much address space, which a header read needs a tenth of
// (ffprobe on an 8K HEVC: 55 MiB resident, fine under 512 MiB), so nothing it inflates can grow.
const PROBE_MEMORY = 1 << 30;

export const SUPPORTED_SUMMARY =
  'images: JPEG, PNG, WebP, AVIF, HEIC, JPEG XL, GIF, TIFF, BMP; videos: MP4, MOV, MKV, WebM, AVI, MPEG-TS, Ogg and other common containers';

// ---- messages -------------------------------------------------------------------------

export function megapixels(pixels: number): string {
  const mp = pixels / 1e6;
  if (mp >= 100) return `${Math.round(mp)} MP`;
  return `${Number(mp.toFixed(1))} MP`;
}

export function formatDuration(s: number): string {
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h) return m ? `${h} h ${m} min` : `${h} h`;
  if (m) return sec ? `${m} min ${sec} s` : `${m} min`;
  return `${s < 10 ? Number(s.toFixed(1)) : sec} s`;
}

function checkPixels(w: number, h: number, limits: MediaLimits, what = 'image'): void {
  if (w * h > limits.maxPixels) {
    throw new MediaError(
      'limit_exceeded',
      `The ${what} is ${w}×${h} pixels (${megapixels(w * h)}); the limit is ${megapixels(limits.maxPixels)}.`,
    );
  }
}

function checkFrames(frames: number, limits: MediaLimits): void {
  if (frames > limits.maxFrames) {
    throw new MediaError('limit_exceeded', `The animation has ${frames} frames; the limit is ${limits.maxFrames}.`);
  }
}

const corruptImage = (label: string) =>
  new MediaError('corrupt', `The ${label} image could not be read: the file is damaged or incomplete.`);
const corruptVideo = (label: string) =>
  new MediaError('corrupt', `The ${label} video could not be read: the file is damaged or incomplete.`);

// ---- entry points ---------------------------------------------------------------------

export async function readHead(path: string, n = SNIFF_BYTES): Promise<{ head: Buffer; size: number }> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(n, size));
    if (head.length) await fh.read(head, 0, head.length, 0);
    return { head, size };
  } finally {
    await fh.close();
  }
}

/** Recognises the file (or its bytes in memory) by content, or throws 'empty' / 'unsupported_media'. */
export async function identify(input: string | Buffer): Promise<Sniffed> {
  const { head, size } = typeof input === 'string' ? await readHead(input) : { head: input.subarray(0, SNIFF_BYTES), size: input.length };
  if (size === 0) throw new MediaError('empty', 'The file is empty (0 bytes).');
  const s = sniff(head);
  if (s === undefined) {
    throw new MediaError('unsupported_media', `The file is not an image or a video this service recognises. Supported are ${SUPPORTED_SUMMARY}.`);
  }
  if (isRefused(s)) {
    throw new MediaError('unsupported_media', `The file is ${article(s.known)} ${s.known}, which is not supported. Supported are ${SUPPORTED_SUMMARY}.`);
  }
  return s;
}

export async function probe(path: string, limits: MediaLimits, opts: ProbeOptions = {}): Promise<Probe> {
  return (await probeDetailed(path, limits, opts)).probe;
}

/**
 * Probes a file, or a file's bytes in memory (read once by the caller, header only here). Bytes
 * in memory must be of a format probed without a tool (probesInMemory); the rest need a file.
 */
export async function probeDetailed(input: string | Buffer, limits: MediaLimits, opts: ProbeOptions = {}): Promise<DetailedProbe> {
  throwIfAborted(opts.signal);
  if (typeof input === 'string') input = resolve(input); // tools get absolute paths: never one that could read as an option
  const s = await identify(input);
  if (typeof input !== 'string' && !probesInMemory(s)) throw new Error(`a ${s.format} file is probed from a file, not from memory`);
  return s.kind === 'image' ? probeImage(input, s.format as ImageFormat, limits, opts) : probeVideo(input as string, s.format as VideoFormat, limits, opts);
}

/** Whether probeDetailed() reads this format from bytes in memory: images sharp reads (and BMP), with no tool. */
export function probesInMemory(s: Sniffed | Refused | undefined): boolean {
  return !!s && !isRefused(s) && s.kind === 'image' && (SHARP_FORMATS.has(s.format as ImageFormat) || s.format === 'bmp');
}

// ---- images ---------------------------------------------------------------------------

async function probeImage(input: string | Buffer, format: ImageFormat, limits: MediaLimits, opts: ProbeOptions): Promise<DetailedProbe> {
  const label = FORMAT_NAME[format];
  let d: ImageDetail;
  if (SHARP_FORMATS.has(format)) d = await sharpHeader(input, format, label);
  else if (format === 'bmp') d = bmpDetail(typeof input === 'string' ? (await readHead(input, 64)).head : input.subarray(0, 64));
  else if (typeof input !== 'string') throw new Error(`a ${format} file is probed from a file`);
  else if (format === 'heic') d = await heifHeader(input, opts, limits);
  else d = await jxlHeader(input, opts);
  return imageProbe(d, limits);
}

/** The limits checked against what a header reader found; the public Probe of it. Pure. */
export function imageProbe(d: ImageDetail, limits: MediaLimits): DetailedProbe {
  const format = d.format;
  // a tool that read 0 (or nothing) for a side read a damaged header; a huge side is the limit's
  if (!(d.storedWidth >= 1 && d.storedHeight >= 1)) throw corruptImage(FORMAT_NAME[format]);
  checkPixels(d.storedWidth, d.storedHeight, limits);
  const animated = d.pages > 1 && format !== 'tiff';
  if (animated) checkFrames(d.pages, limits);

  const swap = d.orientation >= 5;
  return {
    probe: {
      kind: 'image',
      format,
      mime: IMAGE_MIME[format],
      width: swap ? d.storedHeight : d.storedWidth,
      height: swap ? d.storedWidth : d.storedHeight,
      frames: d.pages,
      animated,
    },
    image: d,
  };
}

async function sharpHeader(input: string | Buffer, format: ImageFormat, label: string): Promise<ImageDetail> {
  let m: sharp.Metadata;
  try {
    // Header only: libvips opens lazily, and the pixel limit is ours to check, with a clear message.
    m = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw Object.assign(corruptImage(label), { cause: e });
  }
  const expected = format === 'avif' ? 'heif' : format;
  if (m.format !== expected || !m.width || !m.height) throw corruptImage(label);
  // libvips applies HEIF transforms itself and ignores EXIF orientation there, as the format says.
  const orientation = format === 'avif' ? 1 : (m.orientation ?? 1);
  return {
    format,
    storedWidth: m.width,
    storedHeight: m.pageHeight ?? m.height,
    orientation: orientation >= 1 && orientation <= 8 ? orientation : 1,
    pages: m.pages ?? 1,
    hasAlpha: m.hasAlpha ?? false,
  };
}

async function heifHeader(path: string, opts: ProbeOptions, limits: MediaLimits): Promise<ImageDetail> {
  const r = await runTool('heif-info', [path], { signal: opts.signal, onSpawn: opts.onSpawn, onReap: opts.onReap, timeoutMs: PROBE_TIMEOUT_MS, memoryLimit: PROBE_MEMORY, maxStdout: 1 << 20 });
  return heifDetail(r.code, r.stdout.toString('utf8'), r.stderr, limits);
}

/** Reads heif-info's report (exit code, stdout, stderr). Pure, so it is fuzzed without the tool. */
export function heifDetail(code: number, out: string, stderr: string, limits: MediaLimits): ImageDetail {
  const label = FORMAT_NAME.heic;
  // "image: 4032x3024 (id=1), primary" — libheif's size with irot/imir applied.
  const m = /^image: (\d+)x(\d+) \(id=\d+\), primary/m.exec(out);
  // libheif refuses sizes past its own security limit before we see them: still a size limit.
  const huge = /Security limit exceeded: Image size (\d+)x(\d+) exceeds the maximum image size (\d+x\d+)/.exec(stderr);
  if (huge) {
    checkPixels(Number(huge[1]), Number(huge[2]), limits);
    throw new MediaError('limit_exceeded', `The image is ${huge[1]}×${huge[2]} pixels; HEIC decoding is limited to ${huge[3].replace('x', '×')}.`);
  }
  if (code !== 0 || !m) throw corruptImage(label);
  const primary = out.slice(m.index).split(/^image: /m)[1] ?? '';
  return {
    format: 'heic',
    storedWidth: Number(m[1]),
    storedHeight: Number(m[2]),
    orientation: 1,
    pages: 1,
    hasAlpha: /alpha channel: yes/.test(primary),
  };
}

async function jxlHeader(path: string, opts: ProbeOptions): Promise<ImageDetail> {
  const r = await runTool('jxlinfo', [path], { signal: opts.signal, onSpawn: opts.onSpawn, onReap: opts.onReap, timeoutMs: PROBE_TIMEOUT_MS, memoryLimit: PROBE_MEMORY, maxStdout: 4 << 20 });
  return jxlDetail(r.code, r.stdout.toString('utf8'));
}

/** Reads jxlinfo's report (exit code, stdout). Pure, so it is fuzzed without the tool. */
export function jxlDetail(code: number, out: string): ImageDetail {
  const label = FORMAT_NAME.jxl;
  // "JPEG XL image, 1920x1440, lossy, 8-bit RGB" — jxlinfo reads headers, not pixels.
  const m = /^JPEG XL (image|animation), (\d+)x(\d+)/m.exec(out);
  if (code !== 0 || !m) throw corruptImage(label);
  const frames = m[1] === 'animation' ? Math.max(1, (out.match(/^frame:/gm) ?? []).length) : 1;
  return {
    format: 'jxl',
    storedWidth: Number(m[2]),
    storedHeight: Number(m[3]),
    orientation: 1, // djxl applies the codestream orientation itself
    pages: frames,
    hasAlpha: /RGBA|GrayA|alpha/i.test(out.split('\n')[0]),
  };
}

/** Reads a BMP's header (its first 64 bytes). Pure, so it is fuzzed on its own. */
export function bmpDetail(head: Buffer): ImageDetail {
  const label = FORMAT_NAME.bmp;
  if (head.length < 26) throw corruptImage(label);
  const dib = head.readUInt32LE(14);
  let w: number, h: number, bpp: number, compression = 0;
  if (dib === 12) {
    w = head.readUInt16LE(18);
    h = head.readInt16LE(20);
    bpp = head.readUInt16LE(24);
  } else {
    if (head.length < 34) throw corruptImage(label);
    w = head.readInt32LE(18);
    h = head.readInt32LE(22);
    bpp = head.readUInt16LE(28);
    compression = head.readUInt32LE(30);
  }
  if (compression === 4 || compression === 5) {
    throw new MediaError('unsupported_media', 'BMP files that wrap JPEG or PNG data are not supported; send the JPEG or PNG itself.');
  }
  if (w <= 0 || h === 0 || ![1, 2, 4, 8, 16, 24, 32].includes(bpp) || ![0, 1, 2, 3, 6].includes(compression)) throw corruptImage(label);
  return { format: 'bmp', storedWidth: w, storedHeight: Math.abs(h), orientation: 1, pages: 1, hasAlpha: bpp === 32 };
}

// ---- video ----------------------------------------------------------------------------

// ffprobe's JSON, as far as the probe reads it. A field of an unexpected type reads as absent
// and a stream without an index is dropped, so no string or zero ever stands for a width.
const maybe = <T extends z.ZodType>(t: T) => t.optional().catch(undefined);
const ffprobeStream = z.object({
  index: z.int().nonnegative(),
  codec_type: maybe(z.string()),
  codec_name: maybe(z.string()),
  width: maybe(z.int().positive()),
  height: maybe(z.int().positive()),
  pix_fmt: maybe(z.string()),
  sample_aspect_ratio: maybe(z.string()),
  duration: maybe(z.string()),
  nb_frames: maybe(z.string()),
  disposition: maybe(z.object({ attached_pic: maybe(z.number()) })),
  side_data_list: maybe(z.array(z.object({ side_data_type: maybe(z.string()), rotation: maybe(z.number()) }))),
  tags: maybe(z.record(z.string(), z.string())),
});
const ffprobeOutput = z.object({
  streams: maybe(z.array(ffprobeStream.optional().catch(undefined)).transform((all) => all.filter((s) => s !== undefined))),
  format: maybe(z.object({ duration: maybe(z.string()) })),
});
export type FfprobeStream = z.infer<typeof ffprobeStream>;
export type FfprobeOutput = z.infer<typeof ffprobeOutput>;

export async function ffprobeJson(path: string, demuxer: string | undefined, opts: ProbeOptions): Promise<FfprobeOutput | undefined> {
  const args = ['-v', 'error', '-hide_banner', '-protocol_whitelist', 'file', '-print_format', 'json', '-show_format', '-show_streams'];
  if (demuxer) args.push('-f', demuxer);
  args.push('-i', `file:${path}`);
  const r = await runTool('ffprobe', args, { signal: opts.signal, onSpawn: opts.onSpawn, onReap: opts.onReap, timeoutMs: PROBE_TIMEOUT_MS, memoryLimit: PROBE_MEMORY });
  return r.code === 0 ? parseFfprobe(r.stdout.toString('utf8')) : undefined;
}

/** ffprobe's JSON; undefined when it is not a JSON object. Pure, so it is fuzzed without the tool. */
export function parseFfprobe(text: string): FfprobeOutput | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = ffprobeOutput.safeParse(json);
  return r.success ? r.data : undefined;
}

export function streamRotation(s: FfprobeStream): number {
  const r = s.side_data_list?.find((d) => d.side_data_type === 'Display Matrix')?.rotation;
  if (typeof r === 'number' && Number.isFinite(r)) return r;
  const tag = Number(s.tags?.rotate);
  return Number.isFinite(tag) ? -tag : 0;
}

const num = (v: string | undefined): number | undefined => {
  const n = Number(v);
  return v !== undefined && v !== 'N/A' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

async function probeVideo(path: string, format: VideoFormat, limits: MediaLimits, opts: ProbeOptions): Promise<DetailedProbe> {
  return videoProbe(await ffprobeJson(path, VIDEO_DEMUXER[format], opts), format, limits);
}

/** The limits checked against what ffprobe found; the public Probe of it. Pure. */
export function videoProbe(info: FfprobeOutput | undefined, format: VideoFormat, limits: MediaLimits): DetailedProbe {
  const label = FORMAT_NAME[format];
  const demuxer = VIDEO_DEMUXER[format];
  if (!info) throw corruptVideo(label);
  const streams = info.streams ?? [];
  const v = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic && s.width && s.height);
  if (!v) {
    const audioOnly = streams.some((s) => s.codec_type === 'audio');
    throw new MediaError(
      'unsupported_media',
      audioOnly ? `The ${label} file holds only audio; send a video or an image.` : `The ${label} file holds no video stream.`,
    );
  }
  if (!v.codec_name || v.codec_name === 'none') {
    throw new MediaError('unsupported_media', `The ${label} file uses a video codec this service cannot decode.`);
  }
  const a = streams.find((s) => s.codec_type === 'audio' && s.codec_name && s.codec_name !== 'none');
  const rotation = streamRotation(v);
  const sarMatch = /^(\d+):(\d+)$/.exec(v.sample_aspect_ratio ?? '');
  const ratio = sarMatch ? Number(sarMatch[1]) / Number(sarMatch[2]) : 1;
  const sar = Number.isFinite(ratio) && ratio > 0 ? ratio : 1; // 0:1, 1:0 and overlong digits mean square
  const shownW = Math.max(1, Math.round(v.width! * sar));
  const quarter = Math.abs(Math.round(rotation / 90)) % 2 === 1;
  const width = quarter ? v.height! : shownW;
  const height = quarter ? shownW : v.height!;

  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const maxLong = Math.max(limits.maxVideoWidth, limits.maxVideoHeight);
  const maxShort = Math.min(limits.maxVideoWidth, limits.maxVideoHeight);
  if (long > maxLong || short > maxShort) {
    throw new MediaError('limit_exceeded', `The video is ${width}×${height}; the limit is ${limits.maxVideoWidth}×${limits.maxVideoHeight}.`);
  }
  const durationS = num(info.format?.duration) ?? num(v.duration);
  if (durationS !== undefined && durationS > limits.maxDurationS) {
    throw new MediaError('limit_exceeded', `The video is ${formatDuration(durationS)} long; the limit is ${formatDuration(limits.maxDurationS)}.`);
  }
  const frames = num(v.nb_frames);
  return {
    probe: {
      kind: 'video',
      format,
      mime: VIDEO_MIME[format],
      width,
      height,
      ...(frames !== undefined ? { frames } : {}),
      ...(durationS !== undefined ? { durationS } : {}),
      hasAudio: a !== undefined,
    },
    video: {
      format,
      demuxer,
      videoStream: v.index,
      ...(a ? { audioStream: a.index } : {}),
      codedWidth: v.width!,
      codedHeight: v.height!,
      rotation,
      sar,
      extraStreams: streams.length - 1 - (a ? 1 : 0),
      pixFmt: v.pix_fmt,
    },
  };
}

