// Strict stripping, checked the way mat2 does it: one dirty input per format, metadata read
// with exiftool before and after, and nothing but structural tags may remain. Orientation is
// applied to the pixels first, so the output is upright without any tag.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { convert } from '../src/media/convert/index.ts';
import type { ImageTarget, VideoTarget } from '../src/media/convert/options.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { C2PA_PNG, encodeAs, exif, ffprobe, photoCrop, pngChunkTypes, psnr, rgb, run, testVideo, withIrot, workDir, type Raw } from './helpers/media-kit.ts';

const OUTPUTS: ImageTarget[] = ['jpeg', 'png', 'webp', 'avif', 'heic', 'jxl'];
const ctx = { limits: DEFAULT_LIMITS };

// What exiftool may report on an output: the file's own structure, nothing about its maker,
// place, time, device or history.
const ALLOWED = new Set([
  'SourceFile',
  'File:FileType', 'File:FileTypeExtension', 'File:MIMEType', 'File:ImageWidth', 'File:ImageHeight',
  'File:EncodingProcess', 'File:BitsPerSample', 'File:ColorComponents', 'File:YCbCrSubSampling',
  'JFIF:JFIFVersion', 'JFIF:ResolutionUnit', 'JFIF:XResolution', 'JFIF:YResolution',
  'PNG:ImageWidth', 'PNG:ImageHeight', 'PNG:BitDepth', 'PNG:ColorType', 'PNG:Compression', 'PNG:Filter', 'PNG:Interlace',
  'PNG-pHYs:PixelsPerUnitX', 'PNG-pHYs:PixelsPerUnitY', 'PNG-pHYs:PixelUnits',
  'RIFF:VP8Version', 'RIFF:ImageWidth', 'RIFF:ImageHeight', 'RIFF:HorizontalScale', 'RIFF:VerticalScale',
  'RIFF:WebP_Flags', 'RIFF:AlphaPreprocessing', 'RIFF:AlphaFiltering', 'RIFF:AlphaCompression',
  'QuickTime:MajorBrand', 'QuickTime:MinorVersion', 'QuickTime:CompatibleBrands', 'QuickTime:HandlerType',
  'QuickTime:ImageSpatialExtent', 'QuickTime:ImagePixelDepth', 'QuickTime:MediaDataSize', 'QuickTime:MediaDataOffset',
  'QuickTime:AV1ConfigurationVersion', 'QuickTime:ChromaFormat', 'QuickTime:ChromaSamplePosition',
  'QuickTime:ColorProfiles', 'QuickTime:ColorPrimaries', 'QuickTime:TransferCharacteristics', 'QuickTime:MatrixCoefficients', 'QuickTime:VideoFullRangeFlag',
  'QuickTime:HEVCConfigurationVersion', 'QuickTime:GeneralProfileSpace', 'QuickTime:GeneralTierFlag', 'QuickTime:GeneralProfileIDC',
  'QuickTime:GenProfileCompatibilityFlags', 'QuickTime:ConstraintIndicatorFlags', 'QuickTime:GeneralLevelIDC',
  'QuickTime:MinSpatialSegmentationIDC', 'QuickTime:ParallelismType', 'QuickTime:BitDepthLuma', 'QuickTime:BitDepthChroma',
  'QuickTime:AverageFrameRate', 'QuickTime:ConstantFrameRate', 'QuickTime:NumTemporalLayers', 'QuickTime:TemporalIDNested',
  'QuickTime:AuxiliaryImageType',
  'Meta:PrimaryItemReference', 'Meta:MetaImageSize',
  'Composite:ImageSize', 'Composite:Megapixels',
]);
const IGNORED_GROUPS = new Set(['ExifTool', 'System']); // exiftool's own version and the file system's view

function unexpectedTags(info: Record<string, unknown>): string[] {
  return Object.keys(info).filter((k) => !ALLOWED.has(k) && !IGNORED_GROUPS.has(k.split(':')[0]));
}

const SECRETS = ['SecretCam', 'SpyPhone', 'SN123456', 'AliceSecret', 'xmpsecret', 'iptcsecret', 'IptcAuthor', 'commentsecret', 'ArtistSecret', '2021:05:06'];

const DIRTY_TAGS = [
  '-GPSLatitude=48.8584', '-GPSLatitudeRef=N', '-GPSLongitude=2.2945', '-GPSLongitudeRef=E', '-GPSAltitude=35',
  '-Make=SecretCam', '-Model=SpyPhone', '-SerialNumber=SN123456', '-DateTimeOriginal=2021:05:06 07:08:09',
  '-Artist=ArtistSecret', '-Software=SecretCam Firmware 1.0',
  '-XMP:Creator=AliceSecret', '-XMP:Description=xmpsecret',
  '-IPTC:Keywords=iptcsecret', '-IPTC:By-line=IptcAuthor',
  '-Comment=commentsecret',
];

let work: { dir: string; done: () => Promise<void> };
let upright: string;
let upRaw: Raw;

test.before(async () => {
  work = await workDir('strip');
  upright = await photoCrop(path.join(work.dir, 'upright.png'));
  upRaw = await rgb(upright, work.dir);
});
test.after.always(() => work?.done());

/**
 * A dirty input: the picture is stored turned 90° anticlockwise and tagged to be shown turned
 * back (EXIF Orientation 6; for HEIF also an irot box, as phones write both), plus GPS,
 * camera, serial, dates, XMP, IPTC and a comment.
 */
async function dirty(format: 'jpeg' | 'png' | 'webp' | 'tiff' | 'avif' | 'heic' | 'jxl' | 'gif', dir: string): Promise<string> {
  const stored = path.join(dir, 'stored.png');
  await sharp(upright).rotate(270).png().toFile(stored);
  const file = path.join(dir, `dirty.${format}`);
  const rotated = format !== 'gif';
  if (format === 'jxl') {
    // cjxl turns the JPEG's EXIF orientation into the codestream's (which is what JXL decoders obey).
    const jpg = await dirty('jpeg', dir);
    const r = await run('cjxl', [jpg, file, '--quiet']);
    if (r.code !== 0) throw new Error(r.stderr);
  } else await encodeAs(format === 'gif' ? upright : stored, format, file);
  {
    const tags = [...DIRTY_TAGS, ...(rotated ? ['-Orientation=6'] : [])];
    const r = await run('exiftool', ['-q', '-m', '-n', '-overwrite_original', ...tags, file]);
    if (r.code !== 0) throw new Error(r.stderr);
    if (format === 'heic' || format === 'avif') await writeFile(file, withIrot(await readFile(file), 3));
  }
  return file;
}

for (const format of ['jpeg', 'png', 'webp', 'tiff', 'avif', 'heic', 'jxl', 'gif'] as const) {
  test(`a dirty ${format} comes out of every format clean and upright`, async (t) => {
    const dir = path.join(work.dir, format);
    await mkdir(dir);
    const input = await dirty(format, dir);
    // The input really is dirty, and really is stored turned.
    const before = (await exif([input]))[0];
    const beforeText = JSON.stringify(before);
    t.true(beforeText.includes('SecretCam') || format === 'gif', 'camera tags were written');
    t.true(beforeText.includes('AliceSecret'), 'XMP was written');
    t.true(beforeText.includes('48 deg') || beforeText.includes('48.8'), 'GPS was written');
    t.true(unexpectedTags(before).length > 5, 'the allow-list check sees the dirt on the input');

    const outs = [];
    for (const to of OUTPUTS) {
      outs.push(await convert(input, dir, { target: 'image', format: to, quality: 90, fit: 'inside', upscale: false, lossless: false }, ctx));
    }
    const infos = await exif(outs.map((o) => o.path));
    for (const [i, o] of outs.entries()) {
      const to = OUTPUTS[i];
      t.deepEqual(unexpectedTags(infos[i]), [], `${format}→${to}: only structural tags remain`);
      const bytes = await readFile(o.path);
      for (const s of SECRETS) t.false(bytes.includes(s), `${format}→${to} holds no "${s}"`);
      for (const s of ['x265', 'x264', 'libheif', 'libjxl', 'libvips', 'Lavc', 'Lavf']) t.false(bytes.includes(s), `${format}→${to} names no encoder ("${s}")`);
      for (const s of ['Exif\0', 'http://ns.adobe.com/xap', 'Photoshop 3.0', 'c2pa', 'jumb']) t.false(bytes.includes(s), `${format}→${to} holds no ${JSON.stringify(s)} block`);
      t.is(`${o.width}×${o.height}`, '320×240', `${format}→${to} is upright (landscape)`);
      const px = await rgb(o.path, dir);
      const db = psnr(px, upRaw);
      t.true(db > 30, `${format}→${to} pixels match the upright picture (${db.toFixed(1)} dB)`);
    }
    const png = await readFile(outs[OUTPUTS.indexOf('png')].path);
    t.deepEqual(
      pngChunkTypes(png).filter((c) => !['IHDR', 'IDAT', 'IEND', 'pHYs'].includes(c)),
      [],
      'the PNG has no text, eXIf, iCCP, time or caBX chunks',
    );
  });
}

test('C2PA provenance (a caBX chunk) is not carried into any output', async (t) => {
  const dir = path.join(work.dir, 'c2pa');
  await mkdir(dir);
  const src = await readFile(C2PA_PNG);
  t.true(src.includes('caBX'), 'the fixture carries a C2PA manifest');
  for (const to of OUTPUTS) {
    const r = await convert(C2PA_PNG, dir, { target: 'image', format: to, width: 344, fit: 'inside', upscale: false, lossless: false }, ctx);
    const bytes = await readFile(r.path);
    for (const s of ['caBX', 'c2pa', 'jumb', 'jumd', 'cbor']) t.false(bytes.includes(s), `${to} holds no ${s}`);
    t.deepEqual(unexpectedTags((await exif([r.path]))[0]), [], `${to}: only structural tags`);
    t.is(`${r.width}×${r.height}`, '344×192');
  }
});

test('a wide-gamut (Display P3) image is converted to sRGB and its ICC profile dropped', async (t) => {
  const dir = path.join(work.dir, 'icc');
  await mkdir(dir);
  const src = path.join(dir, 'p3.png');
  await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 0, g: 200, b: 0 } } }).withIccProfile('p3').png().toFile(src);
  const stored = (await sharp(src, { ignoreIcc: true }).raw().toBuffer()).subarray(0, 3);
  t.notDeepEqual([...stored], [0, 200, 0], 'the file stores P3 values, not sRGB ones');
  for (const to of OUTPUTS) {
    const r = await convert(src, dir, { target: 'image', format: to, quality: 95, fit: 'inside', upscale: false, lossless: to !== 'jpeg' }, ctx);
    const info = (await exif([r.path]))[0];
    t.false(Object.keys(info).some((k) => k.startsWith('ICC')), `${to} has no ICC profile`);
    const px = (await rgb(r.path, dir)).data.subarray(0, 3);
    t.true(Math.abs(px[0] - 0) <= 4 && Math.abs(px[1] - 200) <= 4 && Math.abs(px[2] - 0) <= 4, `${to} shows sRGB green, got ${[...px]}`);
  }
});

// ---- video ------------------------------------------------------------------------------

const VIDEO_OUTPUTS: { format: VideoTarget; lossless?: boolean }[] = [
  { format: 'mp4h264' },
  { format: 'mp4h265' },
  { format: 'webm' },
  { format: 'mkv' },
  { format: 'mov' },
  { format: 'mkv', lossless: true },
];

test('a dirty phone-style video comes out of every format with no metadata, no chapters, no encoder strings, upright', async (t) => {
  const dir = path.join(work.dir, 'video');
  await mkdir(dir);
  const plain = await testVideo(path.join(dir, 'plain.mp4'));
  const chapters = path.join(dir, 'chapters.txt');
  await writeFile(chapters, ';FFMETADATA1\ntitle=SecretTitle\ncomment=SecretComment\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=SecretChapter\n');
  const input = path.join(dir, 'dirty.mp4');
  const made = await run('ffmpeg', [
    '-v', 'error', '-i', plain, '-i', chapters, '-map', '0', '-map_metadata', '1', '-map_chapters', '1', '-c', 'copy',
    '-metadata', 'creation_time=2021-05-06T07:08:09Z', '-metadata', 'location=+48.8584+002.2945/',
    '-metadata:s:v', 'handler_name=SecretHandler', '-movflags', '+use_metadata_tags', input,
  ]);
  t.is(made.code, 0, made.stderr);
  const tagged = await run('exiftool', ['-q', '-m', '-overwrite_original', '-Rotation=90', '-XMP:Creator=AliceSecret', '-UserData:Artist=ArtistSecret', input]);
  t.is(tagged.code, 0, tagged.stderr);
  const src = await ffprobe(input);
  t.is(src.chapters.length, 1);
  t.truthy(src.format.tags?.title);
  t.true(JSON.stringify(src.streams[0].side_data_list ?? []).includes('rotation'), 'the input carries a display matrix');

  // The frame as a player shows it (ffmpeg applies the display matrix when decoding).
  const shownPng = path.join(dir, 'shown.png');
  t.is((await run('ffmpeg', ['-v', 'error', '-i', input, '-frames:v', '1', shownPng])).code, 0);
  const shown = await rgb(shownPng, dir);
  t.is(`${shown.width}×${shown.height}`, '240×320');

  for (const o of VIDEO_OUTPUTS) {
    const r = await convert(input, dir, { target: 'video', format: o.format, quality: 80, fit: 'inside', upscale: false, lossless: o.lossless ?? false }, ctx);
    const name = `${o.format}${o.lossless ? ' lossless' : ''}`;
    const p = await ffprobe(r.path);
    t.deepEqual(p.chapters, [], `${name}: no chapters`);
    const fmtTags = Object.entries(p.format.tags ?? {}).filter(([k, v]) => !['major_brand', 'minor_version', 'compatible_brands'].includes(k) && !(k === 'encoder' && v === ''));
    t.deepEqual(fmtTags, [], `${name}: no container tags`);
    for (const s of p.streams) {
      const tags = Object.entries(s.tags ?? {}).filter(
        ([k, v]) => !(k === 'language' || k === 'DURATION' || (k === 'vendor_id' && v === '[0][0][0][0]') || (k === 'handler_name' && /^(Video|Sound)Handler$/.test(v))),
      );
      t.deepEqual(tags, [], `${name}: no ${s.codec_type} stream tags`);
      t.deepEqual(s.side_data_list ?? [], [], `${name}: no display matrix or other side data`);
    }
    t.deepEqual(p.streams.map((s) => s.codec_type), ['video', 'audio'], `${name}: one video and one audio stream, no data or subtitle streams`);
    const bytes = await readFile(r.path);
    for (const s of ['x264', 'x265', 'Lavf', 'Lavc', 'Secret', 'AliceSecret', 'ArtistSecret', '+48.8584', 'FFMP']) t.false(bytes.includes(s), `${name} holds no "${s}"`);
    const info = (await exif([r.path]))[0];
    const groups = new Set(Object.keys(info).map((k) => k.split(':')[0]));
    for (const g of ['Keys', 'UserData', 'ItemList', 'XMP-dc', 'XMP-x', 'GPS']) t.false(groups.has(g), `${name}: no ${g} metadata`);
    for (const [k, v] of Object.entries(info)) if (/Date/.test(k) && !k.startsWith('System:')) t.is(v, '0000:00:00 00:00:00', `${name}: ${k} is zeroed`);
    t.is(`${r.width}×${r.height}`, '240×320', `${name} is upright`);
    const framePng = path.join(dir, `frame-${o.format}${o.lossless ? '-ll' : ''}.png`);
    t.is((await run('ffmpeg', ['-v', 'error', '-i', r.path, '-frames:v', '1', framePng])).code, 0);
    const db = psnr(await rgb(framePng, dir), shown);
    t.true(db > 28, `${name}: the first frame matches the upright picture (${db.toFixed(1)} dB)`);
  }
});
