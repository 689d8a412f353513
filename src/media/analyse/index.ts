// The analyse pipeline for one file: probe, run every detector (each on its own; one that
// fails or does not apply gives a null verdict and a finding, and the others go on), write a
// stripped display image, and grade. Returns plain data; asset files stay in the out folder.
// Nothing here is about one detector in particular: each declares its verdict key (its name),
// its place among the verdicts and its part of the grade (detector.ts), except for the four
// summary counts, which are fields of the result's schema (summary() below).
import path from 'node:path';
import sharp from 'sharp';
import { SHARP_DECODES } from '../decode.ts';
import type { MediaLimits } from '../limits.ts';
import { analyseNeed, refuseOverMemory } from '../memory.ts';
import { probe } from '../probe.ts';
import { finding, type AnalyseInput, type AnalyseOptions, type AssetFile, type Detector, type DetectorResult, type Finding } from './detector.ts';
import { aiGenerationDetector } from './detectors/ai-generation.ts';
import { c2paDetector } from './detectors/c2pa.ts';
import { facesDetector, type FacesVerdict } from './detectors/faces.ts';
import { fingerprintDetector } from './detectors/fingerprint.ts';
import { hiddenContentDetector, type HiddenContentVerdict } from './detectors/hidden-content.ts';
import { manipulationDetector } from './detectors/manipulation.ts';
import { privacyDetector } from './detectors/privacy.ts';
import { watermarkDetector, type WatermarkVerdict } from './detectors/watermark.ts';
import { textDetector, type TextVerdict } from './detectors/text.ts';
import { audioSpliceDetector } from './detectors/audio-splice.ts';
import { videoTamperDetector } from './detectors/video-tamper.ts';
import { notApplicable } from './video/not-applicable.ts';
import { grade, SEVERITY_ORDER, type Grade, type GradeResult } from './grade.ts';
import { analyseInput } from './input.ts';
import { isAborted } from '../errors.ts';

/** In the order they run (their findings, of one severity, and their assets come in this
 *  order); names are the keys of their verdicts. */
export const DETECTORS: readonly Detector<unknown>[] = [privacyDetector, fingerprintDetector, c2paDetector, aiGenerationDetector, hiddenContentDetector, manipulationDetector, facesDetector, textDetector, watermarkDetector, videoTamperDetector, audioSpliceDetector];

const DISPLAY_MAX = 1280;

export interface FileAnalysis {
  grade: Grade;
  grade_reasons: GradeResult['reasons'];
  /** null: not asked for, or could not run (a finding says which). */
  face_count: number | null;
  text_region_count: number | null;
  watermark_flagged: boolean | null;
  steganography_suspected: boolean | null;
  verdicts: Record<string, unknown> & { findings: Finding[] };
  assets: AssetFile[];
  media: { kind: string; format: string; width: number; height: number };
  timings_ms: Record<string, number>;
}

export async function analyseFile(file: string, limits: MediaLimits, options: AnalyseOptions): Promise<FileAnalysis> {
  const p = await probe(file, limits, options);
  // the memory it needs, from the probe: refused over the per-job limit, else waits for room
  const need = analyseNeed(p.kind === 'video' ? 'video' : 'image', p.width * p.height, p.kind === 'video' || !SHARP_DECODES.has(p.format), options.depth === 'deep');
  refuseOverMemory(need, limits);
  await options.admit?.(need.bytes);
  options = { ...options, limits: options.limits ?? limits }; // detectors that make readings of their own (video frames) need them
  const input = analyseInput(file, p, limits, options);
  const results: Record<string, DetectorResult<unknown>> = {};
  const timings: Record<string, number> = {};
  if (p.kind === 'image') startEarly(input, options);
  for (const d of DETECTORS) {
    if (options.signal?.aborted) throw options.signal.reason;
    const t = performance.now();
    try {
      results[d.name] = await d.run(input, options);
    } catch (err) {
      if (isAborted(err)) throw err;
      results[d.name] = { verdict: null, findings: [finding(d.name, 'info', 'finding.check_failed', { check: d.name.replace(/_/g, ' ') })], assets: [] };
    }
    timings[d.name] = Math.round(performance.now() - t);
  }
  const assets = DETECTORS.flatMap((d) => results[d.name].assets);
  const display = await displayImage(input, options.outDir).catch(() => undefined);
  if (display) assets.unshift(display);

  const g = grade(DETECTORS.flatMap((d) => (d.grade ? [{ rule: d.grade, verdict: results[d.name].verdict }] : [])));
  const findings = DETECTORS.flatMap((d) => results[d.name].findings).sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  // a video's verdicts that do not apply are objects saying so, never a bare null (clients read them)
  const shown = (d: Detector<unknown>) => (p.kind === 'video' && d.explainNoAnswerOnVideo ? notApplicable(results[d.name].verdict, results[d.name].findings) : results[d.name].verdict);
  return {
    grade: g.grade,
    grade_reasons: g.reasons,
    ...summary(<V,>(d: Detector<V>) => results[d.name]?.verdict as V | null),
    verdicts: { ...Object.fromEntries(byVerdictOrder(DETECTORS).map((d) => [d.name, shown(d)])), findings },
    assets,
    media: { kind: p.kind, format: p.format, width: p.width, height: p.height },
    timings_ms: timings,
  };
}

/**
 * Starts the readings that run off this thread, so they overlap the detectors that run on it
 * (forensics, watermark): OCR on tesseract's own worker thread, faces on the faces thread, the
 * tags in exiftool's process.
 * Each is made once and awaited by the detectors that need it, in their turn; the order of the
 * findings and assets stays the detectors'. Their memory is small and bounded (OCR reads at
 * most 4 MP of grey; faces at most a 4096 px square, counted in analyseNeed), so the job's
 * estimate holds. An abort ends each (the OCR worker, the faces thread, the tool's process); a
 * failure is the detector's to report, so it is caught here.
 */
function startEarly(input: AnalyseInput, options: AnalyseOptions): void {
  if (!options.text || options.text.enabled) input.text().catch(() => {});
  if (!options.faces || options.faces.enabled) input.faces().catch(() => {});
  input.tags().catch(() => {});
}

/** The detectors in the order their verdicts are listed (a stable sort: ties keep the run order). */
export function byVerdictOrder<D extends { verdictOrder: number }>(detectors: readonly D[]): D[] {
  return [...detectors].sort((a, b) => a.verdictOrder - b.verdictOrder);
}

/**
 * The four counts beside the grade, each from one detector's verdict (null: that detector gave
 * no answer). Kept explicit rather than declared by the detectors: they are named fields of the
 * result's schema and of the report page, which a new detector could not add to anyway.
 */
function summary(verdictOf: <V>(d: Detector<V>) => V | null): Pick<FileAnalysis, 'face_count' | 'text_region_count' | 'watermark_flagged' | 'steganography_suspected'> {
  const faces: FacesVerdict | null = verdictOf(facesDetector);
  const text: TextVerdict | null = verdictOf(textDetector);
  const watermark: WatermarkVerdict | null = verdictOf(watermarkDetector);
  const hidden: HiddenContentVerdict | null = verdictOf(hiddenContentDetector);
  return {
    face_count: faces?.count ?? null,
    text_region_count: text?.region_count ?? null,
    watermark_flagged: watermark?.flagged ?? null,
    steganography_suspected: hidden ? hidden.suspected : null,
  };
}

/** A small JPEG of the picture as displayed, with no metadata at all. */
async function displayImage(input: ReturnType<typeof analyseInput>, outDir: string): Promise<AssetFile> {
  const px = await input.pixels();
  const out = path.join(outDir, 'display.jpg');
  const img = sharp(px.data, { raw: { width: px.width, height: px.height, channels: px.channels } });
  await (px.channels === 2 || px.channels === 4 ? img.flatten({ background: '#ffffff' }) : img)
    .resize(DISPLAY_MAX, DISPLAY_MAX, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 82 })
    .toFile(out);
  return { category: 'display_image', path: out, mime: 'image/jpeg' };
}
