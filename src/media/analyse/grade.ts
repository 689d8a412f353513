// The A-F grade of one analysed file, from the rubric in docs/design.md: points are taken off
// for provenance, manipulation, hidden content and privacy exposure; a check that gave no
// answer never counts as clean, so a file whose key checks could not run cannot get an A.
// Each detector declares its own part of the rubric (Detector.grade: the points its verdict
// takes off and why, whether its no-answer or its weak evidence rules out an A); this file
// only adds them up, orders the reasons and turns points into a letter.
import { listOf, say, type Message, type MessageId } from '../../i18n/findings-format.ts';
import type { Finding } from './detector.ts';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

/** The rubric's sections, in the order their reasons are listed in grade_reasons (within a
 *  section: the order the detectors run in). */
export const GRADE_SECTIONS = ['provenance', 'manipulation', 'hidden_content', 'privacy', 'splicing'] as const;
export type GradeSection = (typeof GRADE_SECTIONS)[number];

/** Points taken off the grade (0 for a cap), with the plain-language reason (English, the
 *  API's) and the same reason as a message (for the pages; left out of the API). */
export interface GradeReason {
  points: number;
  reason: string;
  message: Message;
}

/** A grade reason from its catalogue message. */
export function gradeReason(points: number, id: MessageId): GradeReason {
  const r = say(id);
  return { points, reason: r.text, message: r.message };
}

/** A detector's part of the grade, from its own verdict (null: the check gave no answer). */
export interface GradeRule<V> {
  section: GradeSection;
  /** What the verdict takes off, each with its reason; [] when it takes nothing. */
  points(verdict: V | null): GradeReason[];
  /** The check's name in the cap reason (grade.check.*: "manipulation") when it gave no answer
   *  and a file without its answer cannot get an A; null when it answered (or its answer is
   *  not needed). */
  unanswered?(verdict: V | null): MessageId | null;
  /** A reason the file cannot get an A although nothing took points off and every needed
   *  check answered ("Capped at B: ..."); null when there is none. */
  noA?(verdict: V | null): MessageId | null;
}

export interface GradeResult {
  grade: Grade;
  points: number;
  /** Why the grade is what it is, in plain words: each reason took points off or capped it. */
  reasons: GradeReason[];
}

/** Grades a file from its detectors' rules and verdicts, given in the order the detectors ran. */
export function grade(parts: readonly { rule: GradeRule<unknown>; verdict: unknown }[]): GradeResult {
  // a stable sort: within a section, the run order
  const ordered = [...parts].sort((a, b) => GRADE_SECTIONS.indexOf(a.rule.section) - GRADE_SECTIONS.indexOf(b.rule.section));
  const reasons: GradeReason[] = ordered.flatMap((p) => p.rule.points(p.verdict));
  const points = reasons.reduce((n, r) => n + r.points, 0);
  let g: Grade = points === 0 ? 'A' : points === 1 ? 'B' : points === 2 ? 'C' : points <= 4 ? 'D' : 'F';
  const unanswered = ordered.map((p) => p.rule.unanswered?.(p.verdict) ?? null).filter((x): x is MessageId => !!x);
  const noA = unanswered.length ? [] : ordered.map((p) => p.rule.noA?.(p.verdict) ?? null).filter((x): x is MessageId => !!x);
  if (g === 'A' && noA.length) {
    g = 'B';
    reasons.push(...noA.map((id) => gradeReason(0, id)));
  }
  if (g === 'A' && unanswered.length) {
    g = 'B';
    const checks = listOf(unanswered.map((id) => ({ id })), 'finding.part.and');
    const r = say('grade.capped_unanswered', { checks, count: unanswered.length });
    reasons.push({ points: 0, reason: r.text, message: r.message });
  }
  return { grade: g, points, reasons };
}

/** Severity order, worst first, for sorting findings. */
export const SEVERITY_ORDER: Record<Finding['severity'], number> = { high: 0, medium: 1, low: 2, info: 3 };
