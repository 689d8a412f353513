// One name for each format, as users know it, for every message that names one: the formats
// files come in (sniff.ts) and the ones convert writes (convert/options.ts). One table, so a
// message that names the file's format and the target's says the same word for the same thing
// ("MKV", never "Matroska (MKV)" here and "MKV" there).
import type { VideoTarget } from './convert/options.ts';
import type { ImageFormat, VideoFormat } from './sniff.ts';

export const FORMAT_NAME: Record<ImageFormat | VideoFormat | VideoTarget, string> = {
  jpeg: 'JPEG',
  png: 'PNG',
  webp: 'WebP',
  avif: 'AVIF',
  heic: 'HEIC',
  jxl: 'JPEG XL',
  gif: 'GIF',
  tiff: 'TIFF',
  bmp: 'BMP',
  mp4: 'MP4',
  mp4h264: 'MP4 (H.264)',
  mp4h265: 'MP4 (H.265)',
  mov: 'MOV',
  '3gp': '3GP',
  mkv: 'MKV',
  webm: 'WebM',
  avi: 'AVI',
  mpegts: 'MPEG-TS',
  mpeg: 'MPEG',
  ogg: 'Ogg',
  flv: 'Flash video (FLV)',
  asf: 'Windows Media (ASF/WMV)',
  mxf: 'MXF',
};

/** "a" or "an" before a format's name, as it is read out ("an MP4", "a PNG", "an AVIF"). */
export function article(label: string): string {
  const word = label.split(/\s/)[0];
  if (/^[aeiou]/i.test(word) && !/^(uni|eu)/i.test(word)) return 'an';
  if (/^[A-Z0-9][A-Z0-9-]+$/.test(word) && /^[FHLMNRSX]/.test(word)) return 'an';
  return 'a';
}

/** A probed format's name: the table's, or the format's own letters for one outside it. */
export function formatName(format: string): string {
  return (FORMAT_NAME as Record<string, string>)[format] ?? format.toUpperCase();
}
