// An analysis's start: its options, checked once, become the runner's AnalyseJobOptions.
import { z } from 'zod';
import { defineStart } from '../start.ts';

const SENSITIVITY_WORDS = 'face_sensitivity must be a number from 0 to 1, or "low", "medium" or "high".';
const SENSITIVITY: Record<string, number> = { low: 0.3, medium: 0.5, high: 0.7 };
const KEYS = ['face_detection', 'text_detection', 'face_sensitivity', 'forensic_depth', 'tips'];
const flag = (name: string) => z.boolean({ error: `${name} must be true or false.` }).optional();

/** An analysis's options, as its runner gets them: every default applied. */
export interface AnalyseJobOptions {
  /** Plain-language tips with each finding (v1's enableTips; on by default here). */
  tips: boolean;
  face_detection: boolean;
  text_detection: boolean;
  face_sensitivity: number;
  forensic_depth: 'standard' | 'deep';
}

export const analyseStart = defineStart({
  product: 'analyse',
  sessionTypes: ['analyse'],
  description: 'Start an analysis on an analyse session: every step-1 file is analysed and graded.',
  tail: ` Analyse takes ${KEYS.join(', ')}.`,
  shape: {
    forensic_depth: z
      .enum(['standard', 'deep'], { error: 'forensic_depth must be "standard" or "deep".' })
      .nullable()
      .optional()
      .describe('deep adds copy-move detection, Sample Pairs steganalysis and full-resolution maps; standard by default.'),
    face_sensitivity: z
      .union(
        [z.number({ error: SENSITIVITY_WORDS }).min(0, { error: SENSITIVITY_WORDS }).max(1, { error: SENSITIVITY_WORDS }), z.enum(['low', 'medium', 'high'], { error: SENSITIVITY_WORDS })],
        { error: SENSITIVITY_WORDS },
      )
      .nullable()
      .optional()
      .describe(
        'Face detection: 0 to 1, or low (0.3), medium (0.5, the default), high (0.7). Below 0.5 the tiny detector (fast), from 0.5 SSD MobileNet (thorough); higher finds fainter faces (score threshold 0.55 − 0.4 × sensitivity for tiny, 0.7 − 0.4 × sensitivity for SSD).',
      ),
    tips: flag('tips').describe('Keep the tip of each finding (true by default).'),
    face_detection: flag('face_detection').describe('Find faces (true by default): face_count, the faces verdict with boxes, and a faces asset. false: face_count is null (not 0), and a finding says it was not asked for.'),
    text_detection: flag('text_detection').describe('Find text regions (true by default). false: text_region_count is null (not 0), and a finding says it was not asked for.'),
  },
  codes: { forensic_depth: 'invalid_option', face_sensitivity: 'invalid_option', tips: 'invalid_option', face_detection: 'invalid_option', text_detection: 'invalid_option' },
  options(f): AnalyseJobOptions {
    const s = f.face_sensitivity ?? 'medium';
    return {
      tips: f.tips ?? true,
      face_detection: f.face_detection ?? true,
      text_detection: f.text_detection ?? true,
      face_sensitivity: typeof s === 'string' ? SENSITIVITY[s] : s,
      forensic_depth: f.forensic_depth ?? 'standard',
    };
  },
});
