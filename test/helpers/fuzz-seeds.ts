// The real files the fuzzers start from: the repository's photos, small pictures of every
// input format made from them by the formats' own encoders, and small videos from ffmpeg
// (small, so 10,000 mutated copies go through a parser in seconds).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { seed } from './fuzz-fields.ts';
import type { Seed } from './fuzz.ts';
import { C2PA_PNG, PHOTO, encodeAs, run } from './media-kit.ts';

const SECRET_PNG = path.resolve(import.meta.dirname, '../fixtures/secret-small.png');

async function must(cmd: string, args: string[]): Promise<Buffer> {
  const r = await run(cmd, args);
  if (r.code !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return r.stdout;
}

/** Small pictures of every input format, with metadata, several encodings of each. */
export async function imageSeeds(dir: string): Promise<Record<string, Seed[]>> {
  const crop = sharp(PHOTO).resize(40, 28, { fit: 'fill' }); // the whole scene: texture in every row
  const src = path.join(dir, 'crop.png');
  await crop.clone().png().toFile(src);
  const exif = { IFD0: { Make: 'FuzzCam', Software: 'fuzz' }, IFD3: { GPSLatitudeRef: 'N' } };
  const jpeg = [
    await crop.clone().jpeg({ quality: 80 }).withExif(exif).toBuffer(),
    await crop.clone().jpeg({ quality: 100, chromaSubsampling: '4:4:4', progressive: true }).withIccProfile('srgb').toBuffer(),
    await crop.clone().greyscale().jpeg({ quality: 50, optimiseCoding: false }).toBuffer(),
    await crop.clone().jpeg({ quality: 90, trellisQuantisation: true, overshootDeringing: true, quantisationTable: 3 }).toBuffer(),
    (await readFile(PHOTO)).subarray(0, 64 * 1024), // the real photo's headers and first scans
  ];
  const png = [
    await crop.clone().png().toBuffer(), // plain 8-bit RGB
    await crop.clone().greyscale().png({ compressionLevel: 1 }).toBuffer(),
    await crop.clone().ensureAlpha(0.5).png({ progressive: true }).toBuffer(),
    await crop.clone().png({ palette: true, colours: 16 }).toBuffer(),
    await crop.clone().toColourspace('rgb16').png().toBuffer(),
    await readFile(SECRET_PNG),
    (await readFile(C2PA_PNG)).subarray(0, 64 * 1024), // its C2PA chunk and the first IDATs
  ];
  const other = [
    seed('webp-lossy', await crop.clone().webp({ quality: 70 }).withExif(exif).toBuffer()),
    seed('webp-lossless', await crop.clone().webp({ lossless: true }).toBuffer()),
    seed('avif', await crop.clone().avif({ quality: 50, effort: 0 }).toBuffer()),
    seed('gif', await crop.clone().gif().toBuffer()),
    seed('tiff-lzw', await crop.clone().tiff({ compression: 'lzw' }).toBuffer()),
    seed('tiff-tiled', await crop.clone().tiff({ compression: 'none', tile: true, tileWidth: 16, tileHeight: 16 }).toBuffer()),
    seed('gif-animated', await must('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=24x16:rate=5:duration=0.6', '-f', 'gif', '-'])),
    seed('bmp', await readFile(await encodeAs(src, 'bmp', path.join(dir, 'a.bmp')))),
  ];
  const tools = [await readFile(await encodeAs(src, 'heic', path.join(dir, 'a.heic'))), await readFile(await encodeAs(src, 'jxl', path.join(dir, 'a.jxl')))];
  const named = (list: Buffer[], tag: string) => list.map((b, i) => seed(`${tag}${i}`, b));
  return { jpeg: named(jpeg, 'jpeg'), png: named(png, 'png'), other, tools: named(tools, 'tool') };
}

const LAVFI = ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=32x24:rate=10:duration=0.3', '-f', 'lavfi', '-i', 'sine=sample_rate=8000:duration=0.3'];
const TAGS = ['-metadata', 'title=fuzz title', '-metadata', 'encoder=fuzz', '-metadata:s:v', 'handler_name=FuzzHandler', '-metadata:s:v', 'title=track'];

/** Small videos in the containers the converter writes and scrubs, with titles, tags and chapters. */
export async function videoSeeds(dir: string): Promise<{ iso: Seed[]; matroska: Seed[]; other: Seed[] }> {
  const chapters = path.join(dir, 'chapters.txt');
  await writeFile(chapters, ';FFMETADATA1\ntitle=with chapters\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=200\ntitle=one\n');
  const make = async (name: string, args: string[]) => {
    const out = path.join(dir, name);
    await must('ffmpeg', [...LAVFI, ...args, out]);
    return readFile(out);
  };
  const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac'];
  const withChapters = ['-i', chapters, '-map', '0:v', '-map', '1:a', '-map_metadata', '2', '-map_chapters', '2'];
  const iso = [
    await make('a.mp4', [...h264, ...TAGS]),
    await make('b.mov', [...h264, ...TAGS, '-movflags', '+faststart']),
    await make('c.mp4', [...withChapters, ...h264, '-movflags', '+frag_keyframe+empty_moov']),
  ];
  const matroska = [
    await make('a.mkv', [...withChapters, ...h264, ...TAGS]),
    await make('b.webm', ['-c:v', 'libvpx', '-deadline', 'realtime', '-c:a', 'libopus', ...TAGS]),
    await make('c.mkv', ['-c:v', 'ffv1', '-c:a', 'flac', '-attach', chapters, '-metadata:s:t', 'mimetype=text/plain']),
  ];
  const other = [
    await make('a.avi', ['-c:v', 'mpeg4', '-c:a', 'pcm_s16le']),
    await make('a.ts', ['-c:v', 'mpeg2video', '-c:a', 'mp2']),
    await make('a.flv', ['-c:v', 'flv', '-ar', '11025', '-c:a', 'pcm_s16le']),
    await make('a.ogv', ['-c:v', 'libtheora', '-c:a', 'libvorbis']),
  ];
  const named = (list: Buffer[], tag: string) => list.map((b, i) => seed(`${tag}${i}`, b));
  return { iso: named(iso, 'iso'), matroska: named(matroska, 'mkv'), other: named(other, 'video') };
}
