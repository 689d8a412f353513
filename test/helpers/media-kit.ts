// Builds the media tests' inputs at run time (from the shared real photo and ffmpeg's test
// sources) and reads outputs back with independent tools. Nothing here mocks a codec.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

export const PHOTO = path.resolve(import.meta.dirname, '../fixtures/photo-mountain.jpg');
export const C2PA_PNG = path.resolve(import.meta.dirname, '../fixtures/c2pa-ai-generated.png');

export interface Ran {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** Runs a tool with an argument array (no shell) and never throws on a non-zero exit. */
export function run(cmd: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(cmd, args, { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      resolve({ stdout, stderr: stderr.toString('utf8'), code });
    });
  });
}

/** A private folder on the memory-backed filesystem, like the service's scratch. */
export async function workDir(name: string): Promise<{ dir: string; done: () => Promise<void> }> {
  const root = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const dir = await mkdtemp(path.join(root, `obscura-test-${name}-`));
  return { dir, done: () => rm(dir, { recursive: true, force: true }) };
}

/** A natural-looking crop of the real photo, as a PNG. */
export async function photoCrop(dest: string, width = 320, height = 240, left = 640, top = 420): Promise<string> {
  await sharp(PHOTO).extract({ left, top, width, height }).png().toFile(dest);
  return dest;
}

export const INPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'heic', 'jxl', 'gif', 'tiff', 'bmp'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];
export const EXT: Record<InputFormat, string> = { jpeg: 'jpg', png: 'png', webp: 'webp', avif: 'avif', heic: 'heic', jxl: 'jxl', gif: 'gif', tiff: 'tif', bmp: 'bmp' };

async function must(r: Promise<Ran>, what: string): Promise<void> {
  const x = await r;
  if (x.code !== 0) throw new Error(`${what} failed: ${x.stderr}`);
}

/** Encodes a PNG into an input format with the format's own tools. */
export async function encodeAs(srcPng: string, format: InputFormat, dest: string): Promise<string> {
  const s = sharp(srcPng);
  switch (format) {
    case 'jpeg':
      await s.jpeg({ quality: 92 }).toFile(dest);
      break;
    case 'png':
      await s.png().toFile(dest);
      break;
    case 'webp':
      await s.webp({ quality: 92 }).toFile(dest);
      break;
    case 'avif':
      await s.avif({ quality: 80 }).toFile(dest);
      break;
    case 'gif':
      await s.gif({ dither: 0 }).toFile(dest);
      break;
    case 'tiff':
      await s.tiff({ compression: 'lzw' }).toFile(dest);
      break;
    case 'heic':
      await must(run('heif-enc', ['-q', '90', '-o', dest, srcPng]), 'heif-enc');
      break;
    case 'jxl':
      await must(run('cjxl', [srcPng, dest, '-q', '95', '--quiet']), 'cjxl');
      break;
    case 'bmp':
      await must(run('ffmpeg', ['-v', 'error', '-y', '-i', srcPng, '-pix_fmt', 'bgr24', '-c:v', 'bmp', '-f', 'image2', dest]), 'ffmpeg bmp');
      break;
  }
  return dest;
}

/** Decodes any image file to a PNG that sharp reads, with the reference tool of its format. */
export async function toPng(file: string, dir: string): Promise<string> {
  const head = (await import('node:fs')).readFileSync(file).subarray(0, 32);
  const out = path.join(dir, `${path.basename(file)}.${Math.random().toString(36).slice(2)}.png`);
  if (head.includes(Buffer.from('ftypheic')) || head.includes(Buffer.from('ftypmif1'))) {
    await must(run('heif-convert', ['--quiet', file, out]), 'heif-convert');
    return out;
  }
  if ((head[0] === 0xff && head[1] === 0x0a) || head.subarray(4, 8).toString('latin1') === 'JXL ') {
    await must(run('djxl', [file, out, '--quiet']), 'djxl');
    return out;
  }
  if (head.subarray(0, 2).toString('latin1') === 'BM') {
    await must(run('ffmpeg', ['-v', 'error', '-y', '-f', 'bmp_pipe', '-i', file, out]), 'ffmpeg bmp decode');
    return out;
  }
  return file;
}

export interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

/** 8-bit RGB pixels of any image file (alpha dropped), decoded by the format's reference tool. */
export async function rgb(file: string, dir: string, pipe?: (s: sharp.Sharp) => sharp.Sharp): Promise<Raw> {
  const png = await toPng(file, dir);
  let s = sharp(png);
  if (pipe) s = pipe(s);
  const { data, info } = await s.removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export function psnr(a: Raw, b: Raw): number {
  if (a.width !== b.width || a.height !== b.height || a.data.length !== b.data.length) throw new Error(`sizes differ: ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  let se = 0;
  for (let i = 0; i < a.data.length; i++) {
    const d = a.data[i] - b.data[i];
    se += d * d;
  }
  if (se === 0) return Infinity;
  return 10 * Math.log10((255 * 255) / (se / a.data.length));
}

export function maxDiff(a: Raw, b: Raw): number {
  let m = 0;
  for (let i = 0; i < a.data.length; i++) m = Math.max(m, Math.abs(a.data[i] - b.data[i]));
  return m;
}

/** exiftool's view of files: every tag, by group (-G1), duplicates kept (-a). */
export async function exif(files: string[]): Promise<Record<string, unknown>[]> {
  const r = await run('exiftool', ['-j', '-a', '-G1', '-s', '-m', ...files]);
  return JSON.parse(r.stdout.toString('utf8') || '[]') as Record<string, unknown>[];
}

export async function ffprobe(file: string): Promise<{
  streams: { codec_name: string; codec_type: string; codec_tag_string?: string; width?: number; height?: number; tags?: Record<string, string>; side_data_list?: unknown[] }[];
  format: { format_name: string; duration?: string; tags?: Record<string, string> };
  chapters: unknown[];
}> {
  const r = await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-show_chapters', file]);
  return JSON.parse(r.stdout.toString('utf8'));
}

// ---- hand-built files -------------------------------------------------------------------

function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid-looking PNG (correct CRCs) whose IHDR declares width×height, with a tiny IDAT. */
export async function pngBomb(dest: string, width: number, height: number): Promise<string> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const idat = deflateSync(Buffer.alloc(64 * 1024)); // zeros: compresses to almost nothing
  await writeFile(dest, Buffer.concat([sig, pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]));
  return dest;
}

/** The chunk types of a PNG, in order. */
export function pngChunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  let o = 8;
  while (o + 8 <= png.length) {
    const len = png.readUInt32BE(o);
    types.push(png.toString('latin1', o + 4, o + 8));
    o += 12 + len;
  }
  return types;
}

/**
 * Turns the 16-byte 'pixi' property of a libheif-written HEIC/AVIF into an 'irot' property
 * (same size, same index, already associated with the primary image): the picture then
 * displays turned by quarterTurnsCcw × 90° anticlockwise, as phone photos do.
 */
export function withIrot(file: Buffer, quarterTurnsCcw: number): Buffer {
  const at = file.indexOf(Buffer.from('pixi')) - 4;
  if (at < 0 || file.readUInt32BE(at) !== 16) throw new Error('no 16-byte pixi box to replace');
  const out = Buffer.from(file);
  const irot = Buffer.alloc(16);
  irot.writeUInt32BE(16, 0);
  irot.write('irot', 4, 'latin1');
  irot[8] = quarterTurnsCcw & 3;
  irot.copy(out, at);
  return out;
}

/** A 2-second 320×240 video with a 440 Hz tone, from ffmpeg's test sources. */
export async function testVideo(dest: string, opts: { seconds?: number; size?: string; extra?: string[] } = {}): Promise<string> {
  const s = String(opts.seconds ?? 2);
  await must(
    run('ffmpeg', [
      '-v', 'error', '-y',
      '-f', 'lavfi', '-i', `testsrc2=size=${opts.size ?? '320x240'}:rate=25:duration=${s}`,
      '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${s}`,
      '-map', '0:v', '-map', '1:a',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac',
      ...(opts.extra ?? []),
      dest,
    ]),
    'ffmpeg test video',
  );
  return dest;
}
