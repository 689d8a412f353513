// The analyse pipeline for one file: probe, run every detector (each on its own; one that
// fails or does not apply gives a null verdict and a finding, and the others go on), write a
// stripped display image, and grade. Returns plain data; asset files stay in the out folder.
import path from 'node:path';
import sharp from 'sharp';
import type { MediaLimits } from '../limits.ts';
import { probe } from '../probe.ts';
import type { AnalyseOptions, AssetFile, Detector, DetectorResult, Finding } from './detector.ts';
import { aiGenerationDetector } from './detectors/ai-generation.ts';
import { c2paDetector } from './detectors/c2pa.ts';
import { facesDetector } from './detectors/faces.ts';
import { fingerprintDetector } from './detectors/fingerprint.ts';
import { hiddenContentDetector } from './detectors/hidden-content.ts';
import { manipulationDetector } from './detectors/manipulation.ts';
import { privacyDetector } from './detectors/privacy.ts';
import { watermarkDetector } from './detectors/watermark.ts';
import { textDetector } from './detectors/text.ts';
import { audioSpliceDetector } from './detectors/audio-splice.ts';
import { videoTamperDetector } from './detectors/video-tamper.ts';
import { notApplicable } from './video/not-applicable.ts';
import { grade, SEVERITY_ORDER, type Grade, type GradeResult } from './grade.ts';
import { analyseInput } from './input.ts';

/** In the order they run; names are the keys of their verdicts. */
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
  options = { ...options, limits: options.limits ?? limits }; // detectors that make readings of their own (video frames) need them
  const input = analyseInput(file, p, limits, options);
  const results: Record<string, DetectorResult<unknown>> = {};
  const timings: Record<string, number> = {};
  for (const d of DETECTORS) {
    if (options.signal?.aborted) throw options.signal.reason;
    const t = performance.now();
    try {
      results[d.name] = await d.run(input, options);
    } catch (err) {
      if ((err as { code?: string }).code === 'aborted') throw err;
      results[d.name] = { verdict: null, findings: [{ detector: d.name, severity: 'info', label: `The ${d.name.replace(/_/g, ' ')} check failed on this file, so it gave no answer (not a clean result).` }], assets: [] };
    }
    timings[d.name] = Math.round(performance.now() - t);
  }
  const assets = DETECTORS.flatMap((d) => results[d.name].assets);
  const display = await displayImage(input, options.outDir).catch(() => undefined);
  if (display) assets.unshift(display);

  const v = (name: string) => results[name]?.verdict as never;
  const g = grade({ c2pa: v('c2pa'), aiGeneration: v('ai_generation'), forensic: v('forensic'), hiddenContent: v('hidden_content'), privacy: v('privacy'), text: v('text'), videoTamper: v('video_tamper'), audioSplice: v('audio_splice') });
  const findings = DETECTORS.flatMap((d) => results[d.name].findings).sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  const hidden = v('hidden_content') as { suspected: boolean | null } | null;
  // a video's verdicts that do not apply are objects saying so, never a bare null (clients read them)
  const shown = (name: string) => (p.kind === 'video' ? notApplicable(v(name), results[name]?.findings ?? []) : v(name));
  return {
    grade: g.grade,
    grade_reasons: g.reasons,
    face_count: (v('faces') as { count: number } | null)?.count ?? null,
    text_region_count: (v('text') as { region_count: number } | null)?.region_count ?? null,
    watermark_flagged: (v('watermark') as { flagged: boolean | null } | null)?.flagged ?? null,
    steganography_suspected: hidden ? hidden.suspected : null,
    verdicts: {
      ai_generation: shown('ai_generation'),
      c2pa: shown('c2pa'),
      camera_fingerprint: shown('camera_fingerprint'),
      forensic: shown('forensic'),
      privacy: shown('privacy'),
      hidden_content: shown('hidden_content'),
      faces: v('faces'),
      text: v('text'),
      watermark: v('watermark'),
      video_tamper: v('video_tamper'),
      audio_splice: v('audio_splice'),
      findings,
    },
    assets,
    media: { kind: p.kind, format: p.format, width: p.width, height: p.height },
    timings_ms: timings,
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
