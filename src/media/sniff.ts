// Recognises media by its first bytes, never by its name. Cheap enough for job start: give it
// the first 4 KiB of a file.
export type MediaKind = 'image' | 'video';

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'heic' | 'jxl' | 'gif' | 'tiff' | 'bmp';
export type VideoFormat = 'mp4' | 'mov' | '3gp' | 'mkv' | 'webm' | 'avi' | 'mpegts' | 'mpeg' | 'ogg' | 'flv' | 'asf' | 'mxf';

export interface Sniffed {
  kind: MediaKind;
  format: ImageFormat | VideoFormat;
  mime: string;
}

/** Recognised, but not something this service takes. `known` names it for the user. */
export interface Refused {
  known: string;
  allowed: false;
}

/** How many leading bytes sniff() wants. */
export const SNIFF_BYTES = 4096;

export const IMAGE_MIME: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  jxl: 'image/jxl',
  gif: 'image/gif',
  tiff: 'image/tiff',
  bmp: 'image/bmp',
};

export const VIDEO_MIME: Record<VideoFormat, string> = {
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  '3gp': 'video/3gpp',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  avi: 'video/x-msvideo',
  mpegts: 'video/mp2t',
  mpeg: 'video/mpeg',
  ogg: 'video/ogg',
  flv: 'video/x-flv',
  asf: 'video/x-ms-asf',
  mxf: 'application/mxf',
};

/** The ffmpeg demuxer for each container, forced so ffmpeg never guesses (no playlists, no concat). */
export const VIDEO_DEMUXER: Record<VideoFormat, string> = {
  mp4: 'mov',
  mov: 'mov',
  '3gp': 'mov',
  mkv: 'matroska',
  webm: 'matroska',
  avi: 'avi',
  mpegts: 'mpegts',
  mpeg: 'mpeg',
  ogg: 'ogg',
  flv: 'flv',
  asf: 'asf',
  mxf: 'mxf',
};

const image = (format: ImageFormat): Sniffed => ({ kind: 'image', format, mime: IMAGE_MIME[format] });
const video = (format: VideoFormat): Sniffed => ({ kind: 'video', format, mime: VIDEO_MIME[format] });
const refused = (known: string): Refused => ({ known, allowed: false });

function at(b: Buffer, offset: number, sig: string | number[]): boolean {
  const bytes = typeof sig === 'string' ? Buffer.from(sig, 'latin1') : Buffer.from(sig);
  return b.length >= offset + bytes.length && b.subarray(offset, offset + bytes.length).equals(bytes);
}

const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'heif']);
const QT_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

function isoBmff(b: Buffer): Sniffed | Refused | undefined {
  const size = b.readUInt32BE(0);
  const major = b.toString('latin1', 8, 12);
  const brands = new Set([major]);
  for (let o = 16; o + 4 <= Math.min(size, b.length); o += 4) brands.add(b.toString('latin1', o, o + 4));
  if (brands.has('avif') || brands.has('avis')) return image('avif');
  if (major === 'crx ') return refused('Canon RAW (CR3)');
  if ([...brands].some((x) => HEIF_BRANDS.has(x)) && !brands.has('isom') && !brands.has('mp41') && !brands.has('mp42')) return image('heic');
  if (major === 'qt  ') return video('mov');
  if (major.startsWith('3gp') || major.startsWith('3g2')) return video('3gp');
  return video('mp4');
}

function isBmp(b: Buffer): boolean {
  if (!at(b, 0, 'BM') || b.length < 26) return false;
  const dib = b.readUInt32LE(14);
  return [12, 16, 40, 52, 56, 64, 108, 124].includes(dib) && b.readUInt16LE(6) === 0 && b.readUInt16LE(8) === 0;
}

function isMpegTs(b: Buffer): boolean {
  const ts = (start: number, step: number) => b.length > start + step * 2 && b[start] === 0x47 && b[start + step] === 0x47 && b[start + step * 2] === 0x47;
  return ts(0, 188) || ts(4, 192);
}

function textStart(b: Buffer): string {
  let s = b.subarray(0, 1024).toString('utf8');
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  return s.trimStart();
}

export function sniff(b: Buffer): Sniffed | Refused | undefined {
  if (b.length < 4) return undefined;

  // Images.
  if (at(b, 0, [0xff, 0xd8, 0xff])) return image('jpeg');
  if (at(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return image('png');
  if (at(b, 0, 'GIF87a') || at(b, 0, 'GIF89a')) return image('gif');
  if (at(b, 0, 'RIFF') && at(b, 8, 'WEBP')) return image('webp');
  if (at(b, 0, [0xff, 0x0a]) || at(b, 0, [0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a])) return image('jxl');
  if (at(b, 0, 'II*\0') || at(b, 0, 'MM\0*') || at(b, 0, 'II+\0') || at(b, 0, 'MM\0+')) {
    if (at(b, 8, 'CR')) return refused('Canon RAW (CR2)');
    return image('tiff');
  }
  if (isBmp(b)) return image('bmp');

  // Video containers.
  if (b.length >= 12 && at(b, 4, 'ftyp')) return isoBmff(b);
  if (b.length >= 8 && QT_ATOMS.has(b.toString('latin1', 4, 8))) return video('mov');
  if (at(b, 0, [0x1a, 0x45, 0xdf, 0xa3])) return b.subarray(0, 64).includes('webm') ? video('webm') : video('mkv');
  if (at(b, 0, 'RIFF') && at(b, 8, 'AVI ')) return video('avi');
  if (isMpegTs(b)) return video('mpegts');
  if (at(b, 0, [0, 0, 1, 0xba])) return video('mpeg');
  if (at(b, 0, 'OggS')) return video('ogg');
  if (at(b, 0, 'FLV\x01')) return video('flv');
  if (at(b, 0, [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11])) return video('asf');
  if (at(b, 0, [0x06, 0x0e, 0x2b, 0x34, 0x02, 0x05, 0x01, 0x01])) return video('mxf');

  // Known, not taken: named so the user knows what they sent.
  if (at(b, 0, '%PDF-')) return refused('PDF document');
  if (at(b, 0, 'PK\x03\x04') || at(b, 0, 'PK\x05\x06')) return refused('ZIP archive (or an Office document)');
  if (at(b, 0, '8BPS')) return refused('Photoshop document (PSD)');
  if (at(b, 0, [0x1f, 0x8b])) return refused('gzip archive');
  if (at(b, 0, 'Rar!\x1a\x07')) return refused('RAR archive');
  if (at(b, 0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return refused('7-Zip archive');
  if (at(b, 0, '\x7fELF') || (at(b, 0, 'MZ') && b.length >= 64)) return refused('program file');
  if (at(b, 0, [0, 0, 0, 0x0c, 0x6a, 0x50, 0x20, 0x20]) || at(b, 0, [0xff, 0x4f, 0xff, 0x51])) return refused('JPEG 2000 image');
  if (at(b, 0, 'ID3') || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0)) return refused('audio file (MP3 or AAC)');
  if (at(b, 0, 'fLaC')) return refused('FLAC audio');
  if (at(b, 0, 'RIFF') && at(b, 8, 'WAVE')) return refused('WAV audio');
  if (at(b, 0, 'FORM') && (at(b, 8, 'AIFF') || at(b, 8, 'AIFC'))) return refused('AIFF audio');
  if (at(b, 0, 'MThd')) return refused('MIDI file');
  if (at(b, 0, [0, 0, 1, 0]) || at(b, 0, [0, 0, 2, 0])) return refused('Windows icon (ICO)');
  if (at(b, 0, 'gimp xcf')) return refused('GIMP image (XCF)');
  if (at(b, 0, 'v/1\x01')) return refused('OpenEXR image');
  if (at(b, 0, '#?RADIANCE') || at(b, 0, '#?RGBE')) return refused('Radiance HDR image');
  if (at(b, 0, 'qoif')) return refused('QOI image');
  if (at(b, 0, 'DDS ')) return refused('DirectDraw Surface (DDS)');
  if (at(b, 0, 'FUJIFILMCCD-RAW')) return refused('Fujifilm RAW (RAF)');
  if (at(b, 0, 'IIRO') || at(b, 0, 'IIU\0')) return refused('camera RAW image');
  if (at(b, 0, 'AT&TFORM')) return refused('DjVu document');
  if (at(b, 0, '.RMF')) return refused('RealMedia file');
  if (at(b, 128, 'DICM')) return refused('DICOM medical image');
  if (at(b, 0, 'SQLite format 3\0')) return refused('SQLite database');
  if (at(b, 0, '%!PS') || at(b, 0, [0xc5, 0xd0, 0xd3, 0xc6])) return refused('PostScript document');
  if (at(b, 0, '{\\rtf')) return refused('RTF document');
  if (/^P[1-7]\s/.test(b.toString('latin1', 0, 3))) return refused('Netpbm image');
  if (at(b, 0, 'wOFF') || at(b, 0, 'wOF2')) return refused('web font');

  const text = textStart(b);
  if (/^<(\?xml|!--|!doctype svg|svg)/i.test(text) && /<svg[\s>]/i.test(text)) return refused('SVG image');
  if (/^#EXTM3U/.test(text)) return refused('playlist (M3U/HLS)');
  if (/^<!doctype html|^<html/i.test(text)) return refused('HTML page');
  if (/^<\?xml/.test(text)) return refused('XML document');
  return undefined;
}

export function isRefused(s: Sniffed | Refused | undefined): s is Refused {
  return s !== undefined && 'allowed' in s;
}
