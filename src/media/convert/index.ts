// Convert: probe first (every limit checked from headers, before any decode), then one image
// pipeline (decode → orient → resize → flatten if needed → encode) or one ffmpeg transcode.
// Every output is stripped: sharp writes no metadata unless asked, the HEIC/JXL encoders get a
// clean PNG, and video loses container, stream and chapter metadata and encoder strings.
import { access, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { MediaError, abortedError, throwIfAborted, untilAborted } from '../errors.ts';
import type { MediaLimits } from '../limits.ts';
import { megapixels, probeDetailed, type DetailedProbe } from '../probe.ts';
import { FORMAT_NAME, article } from '../format-names.ts';
import { IMAGE_MIME } from '../sniff.ts';
import { Conversion, type Decoded, type ImageBackend, type VideoBackend } from './backend.ts';
import { ffmpegImageBackend } from './backends/ffmpeg-image.ts';
import { ffmpegVideoBackend, videoTargetFile } from './backends/ffmpeg-video.ts';
import { heifBackend } from './backends/heif.ts';
import { jxlBackend } from './backends/jxl.ts';
import { decodesFromMemory, sharpBackend, sharpError } from './backends/sharp.ts';
import { fitGeometry } from './geometry.ts';
import { animation, checkLimits, memoryNeed } from './output-limits.ts';
import { cleanPng } from './png-clean.ts';
import { describeRedaction, redactPipeline, type Redacted } from './redact.ts';
import { videoRedaction } from './redact-video.ts';
import { IMAGE_TARGETS, VIDEO_TARGETS, type ConvertOptions, type ImageTarget } from './options.ts';

export { parseConvertOptions } from './options.ts';
export type { ConvertOptions, Fit, ImageTarget, VideoTarget } from './options.ts';

export interface ConvertContext {
  limits: MediaLimits;
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
  onSpawn?: (pid: number) => void;
  onReap?: (pid: number) => void;
  /** CPU time the file may use (OBSCURA_CONVERT_CPU_BUDGET); none when absent. */
  cpuBudgetMs?: number;
  /** Waits for the memory the conversion needs (the worker's; direct calls have no budget). */
  admit?: (bytes: number) => Promise<void>;
}

export interface ConvertResult {
  /** Inside outDir. */
  path: string;
  mime: string;
  extension: string;
  width: number;
  height: number;
  /** Remarks for the user, such as "quality does not apply to PNG; it is lossless." */
  notes: string[];
  /** With redact: how many regions were blurred or filled (all frames of a video together). */
  redacted?: Redacted;
}

/** Tried in order: the first backend that can decode (or encode) a format does it. */
export const imageBackends: readonly ImageBackend[] = [sharpBackend, heifBackend, jxlBackend, ffmpegImageBackend];
export const videoBackends: readonly VideoBackend[] = [ffmpegVideoBackend];

const IMAGE_EXT: Record<ImageTarget, string> = { jpeg: 'jpg', png: 'png', webp: 'webp', avif: 'avif', heic: 'heic', jxl: 'jxl' };
const ALPHA_TARGETS = new Set<ImageTarget>(['png', 'webp', 'avif', 'heic', 'jxl']);

async function freeName(dir: string, ext: string): Promise<string> {
  for (let i = 1; ; i++) {
    const p = path.join(dir, i === 1 ? `converted.${ext}` : `converted-${i}.${ext}`);
    const taken = await access(p).then(
      () => true,
      () => false,
    );
    if (!taken) return p;
  }
}

/**
 * Converts a file, or a file's bytes in memory (read once by the caller, and handed over rather
 * than copied into scratch): sharp decodes those from memory; any other format is written to
 * the scratch folder first, for the tools that read files.
 */
export async function convert(input: string | Buffer, outDir: string, options: ConvertOptions, ctx: ConvertContext): Promise<ConvertResult> {
  throwIfAborted(ctx.signal);
  // Tools run with the scratch folder as their working directory.
  outDir = path.resolve(outDir);
  const conversion = new Conversion({ dir: outDir, limits: ctx.limits, signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap, cpuBudgetMs: ctx.cpuBudgetMs });
  let out: string | undefined;
  try {
    const inputPath = typeof input === 'string' ? path.resolve(input) : decodesFromMemory(input) ? input : await toScratch(input, conversion);
    const probed = await probeDetailed(inputPath, ctx.limits, conversion.toolOptions);
    const p = probed.probe;
    const label = FORMAT_NAME[p.format as keyof typeof FORMAT_NAME];
    if (p.kind === 'image' && options.target === 'video') {
      throw new MediaError(
        'invalid_option',
        `video_format: the file is ${article(label)} ${label} image, not a video. Use image_format (${IMAGE_TARGETS.join(', ')}) to convert it.`,
      );
    }
    if (p.kind === 'video' && options.target === 'image') {
      throw new MediaError(
        'invalid_option',
        `image_format: the file is ${article(label)} ${label} video, not an image. Use video_format (${VIDEO_TARGETS.join(', ')}) to convert it.`,
      );
    }
    // checked at job start too; again here, for whatever calls convert() without that
    checkLimits(probed, options, ctx.limits);
    // the memory it needs, estimated from the probe: waits while other jobs hold too much
    const need = memoryNeed(probed, options, ctx.limits);
    if (need) await ctx.admit?.(need.bytes);
    throwIfAborted(ctx.signal);
    ctx.onProgress?.(0.05);

    let result: ConvertResult;
    if (options.target === 'image') {
      out = await freeName(outDir, IMAGE_EXT[options.format]);
      const size = await convertImage(inputPath, probed, options, out, conversion, ctx);
      result = { path: out, mime: IMAGE_MIME[options.format], extension: IMAGE_EXT[options.format], ...size, notes: conversion.notes };
    } else {
      // never met: bytes stay in memory only for images sharp decodes; videos were written to scratch above
      if (typeof inputPath !== 'string') throw new MediaError('engine_failed', 'The file could not be converted because of an error on our side.');
      const backend = videoBackends.find((b) => b.canDecode(p.format) && b.canEncode(options.format));
      if (!backend) throw new MediaError('invalid_option', `video_format: ${options.format} cannot be written here.`);
      const file = videoTargetFile(options.format);
      out = await freeName(outDir, file.extension);
      let redacted: Redacted | undefined;
      if (options.redact?.length) {
        const r = await videoRedaction(inputPath, probed, options.redact, options.redactStyle ?? 'blur', conversion);
        if (r.filter) conversion.sourceFilters.push(r.filter);
        redacted = r.redacted;
        conversion.note(`${describeRedaction(r.redacted.faces, r.redacted.text, options.redact)} Looked for in ${r.samples} frames sampled across the video; each region is covered from the sample before it was seen to the sample after.`);
        ctx.onProgress?.(0.3);
      }
      const size = await backend.transcode(inputPath, probed, options, out, conversion, ctx.onProgress ? (f) => ctx.onProgress!(0.05 + 0.95 * f) : undefined);
      result = { path: out, ...file, ...size, notes: conversion.notes, ...(redacted ? { redacted } : {}) };
    }
    throwIfAborted(ctx.signal);
    ctx.onProgress?.(1);
    return result;
  } catch (e) {
    if (out) await rm(out, { force: true });
    if (ctx.signal?.aborted) throw abortedError();
    if (e instanceof MediaError) throw e;
    throw new MediaError('engine_failed', 'The file could not be converted because of an error on our side.', { cause: e });
  } finally {
    await conversion.cleanup();
  }
}

/** Bytes of a format the tools decode, as a file in the scratch folder (removed by cleanup()). */
async function toScratch(bytes: Buffer, conversion: Conversion): Promise<string> {
  const file = conversion.temp('input');
  await writeFile(file, bytes, { mode: 0o600 });
  return file;
}

async function convertImage(
  input: string | Buffer,
  probed: DetailedProbe,
  o: ConvertOptions & { target: 'image' },
  out: string,
  conversion: Conversion,
  ctx: ConvertContext,
): Promise<{ width: number; height: number; redacted?: Redacted }> {
  const d = probed.image!;
  const p = probed.probe;
  const limits = conversion.limits;
  const srcLabel = `${FORMAT_NAME[d.format]} image`;
  const target = o.format;
  const decoder = imageBackends.find((b) => b.canDecode(d.format));
  const encoder = imageBackends.find((b) => b.canEncode(target));
  if (!decoder || !encoder) throw new MediaError('unsupported_media', `${FORMAT_NAME[d.format]} to ${FORMAT_NAME[target]} is not available here.`);

  // Animation is kept for WebP output only, and only while all frames together stay in the pixel budget.
  const kept = animation(probed, target, limits);
  // redaction works on one picture's pixels: an animation keeps its first frame only
  const animated = kept === 'kept' && !o.redact?.length;
  if (kept === 'kept' && !animated) conversion.note(`Redaction keeps no animation here: only the first of the ${d.pages} frames was redacted and converted.`);
  if (kept === 'not_webp') {
    conversion.note(`${FORMAT_NAME[target]} output keeps no animation here: only the first of the ${d.pages} frames was converted. Choose webp to keep the animation.`);
  } else if (kept === 'too_many_pixels') {
    const total = d.storedWidth * d.storedHeight * d.pages;
    conversion.note(
      `The animation has ${d.pages} frames of ${d.storedWidth}×${d.storedHeight} (${megapixels(total)} in all, over the ${megapixels(limits.maxPixels)} limit), so only its first frame was converted.`,
    );
  }
  if (d.format === 'tiff' && d.pages > 1) conversion.note(`Only the first page of the ${d.pages}-page TIFF was converted.`);
  if (o.quality !== undefined && target === 'png') conversion.note('quality does not apply to PNG; it is lossless.');
  else if (o.quality !== undefined && o.lossless) conversion.note('quality does not apply to lossless output.');

  // bytes in memory are of a format sharp decodes (convert() wrote any other to scratch)
  const decoded: Decoded = typeof input === 'string' ? await decoder.decode(input, d, conversion) : { path: input, autoOrient: true };
  throwIfAborted(conversion.signal);
  ctx.onProgress?.(0.3);

  let hasAlpha = d.hasAlpha;
  if (typeof decoded.path === 'string' && decoded.path !== input) {
    const clean = conversion.temp('png');
    if (await cleanPng(decoded.path, clean)) {
      await rm(decoded.path, { force: true });
      decoded.path = clean;
    }
    // The decoder's own output is checked again, from its header, before sharp decodes it.
    const m = await sharp(decoded.path, { limitInputPixels: false })
      .metadata()
      .catch((e: unknown) => {
        throw sharpError(e, target, srcLabel);
      });
    if ((m.width ?? 0) * (m.height ?? 0) > limits.maxPixels) {
      throw new MediaError('limit_exceeded', `The image is ${m.width}×${m.height} pixels (${megapixels(m.width! * m.height!)}); the limit is ${megapixels(limits.maxPixels)}.`);
    }
    hasAlpha = m.hasAlpha ?? hasAlpha;
  }

  let pl = sharp(decoded.path, { limitInputPixels: limits.maxPixels, animated, failOn: 'warning' });
  if (decoded.autoOrient) pl = pl.rotate();

  if (o.width !== undefined || o.height !== undefined) {
    const fit = o.width !== undefined && o.height !== undefined ? o.fit : 'inside';
    const g = fitGeometry(p.width, p.height, { ...o, fit }, false);
    if (g.notEnlarged) conversion.note(`The image was not enlarged (it is ${p.width}×${p.height}); set upscale to true to enlarge it.`);
    pl = pl.resize({
      width: o.width,
      height: o.height,
      fit,
      withoutEnlargement: !o.upscale,
      background: ALPHA_TARGETS.has(target) ? { r: 0, g: 0, b: 0, alpha: 0 } : { r: 255, g: 255, b: 255, alpha: 1 },
    });
  }
  if (target === 'jpeg') {
    pl = pl.flatten({ background: { r: 255, g: 255, b: 255 } });
    if (hasAlpha && !(await conversion.budget.sharp(sharp(decoded.path, { limitInputPixels: limits.maxPixels }), (q) => q.stats())).isOpaque) {
      conversion.note('JPEG has no transparency: transparent areas were filled with white.');
    }
  }

  let redacted: Redacted | undefined;
  if (o.redact?.length) {
    // after orientation, resize and flattening: the regions are found in the very pixels encoded
    ({ pipeline: pl, redacted } = await redactPipeline(pl, o.redact, o.redactStyle ?? 'blur', conversion));
    conversion.note(describeRedaction(redacted.faces, redacted.text, o.redact));
    throwIfAborted(conversion.signal);
  }

  const encoding = encoder.encode(pl, target, { quality: o.quality, lossless: o.lossless, animated }, out, conversion);
  const size = await untilAborted(encoding, conversion.signal, () => {
    void rm(out, { force: true });
    void conversion.cleanup();
  }).catch((e: unknown) => {
    throw sharpError(e, target, srcLabel);
  });
  throwIfAborted(conversion.signal);
  return redacted ? { ...size, redacted } : size;
}
