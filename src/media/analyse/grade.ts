// The A-F grade of one analysed file, from the rubric in the README: points are taken off
// for provenance, manipulation, hidden content and privacy exposure; a check that gave no
// answer never counts as clean, so a file whose key checks could not run cannot get an A.
import type { Finding } from './detector.ts';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

export interface GradeInput {
  c2pa: { verdict: string; trusted?: boolean } | null;
  aiGeneration: { verdict: string } | null;
  forensic: { verdict: string } | null;
  /** lsb.evidence 'weak': one steganalysis family only, never points, but no A either */
  hiddenContent: { suspected: boolean | null; lsb?: { evidence?: string | null } | null } | null;
  privacy: { highest: string | null } | null;
  /** What readable text exposes (e-mail, phone: high; plate, badge, sign: medium). */
  text?: { exposures: { severity: string }[] } | null;
  /** Videos only (images: absent, or { applicable: false }). */
  videoTamper?: { applicable: boolean; suspected?: boolean; breaks?: { kind: string }[] } | null;
  audioSplice?: { applicable: boolean; suspected?: boolean } | null;
}

export interface GradeResult {
  grade: Grade;
  points: number;
  /** Why the grade is what it is, in plain words: each reason took points off or capped it. */
  reasons: { points: number; reason: string }[];
}

export function grade(v: GradeInput): GradeResult {
  const reasons: GradeResult['reasons'] = [];
  const off = (points: number, reason: string) => reasons.push({ points, reason });

  if (v.c2pa?.verdict === 'invalid') off(3, 'C2PA provenance is present but does not validate: the file changed after it was signed, or the signature is broken.');
  if (v.aiGeneration?.verdict === 'declared_aigc') off(2, 'The file declares that it was made by a generative AI.');
  else if (v.aiGeneration?.verdict === 'possible_aigc') off(1, 'Metadata points to a generative AI tool.');

  if (v.forensic?.verdict === 'likely_manipulated') off(3, 'Forensic maps show likely manipulation.');
  else if (v.forensic?.verdict === 'possibly_manipulated') off(1, 'Forensic maps show possible manipulation.');

  if (v.hiddenContent?.suspected === true) off(3, 'Hidden content is suspected.');

  if (v.privacy?.highest === 'high') off(2, 'The metadata exposes the location, the device or the people behind the file.');
  else if (v.privacy?.highest === 'medium') off(1, 'The metadata exposes details about the device or the editing.');

  const said = v.text?.exposures ?? [];
  if (said.some((x) => x.severity === 'high')) off(2, 'Readable text in the picture exposes its owner (an e-mail address or a phone number).');
  else if (said.length) off(1, 'Readable text in the picture may identify a person or a place (a plate, a name tag or a street sign).');

  if (v.videoTamper?.applicable && v.videoTamper.suspected) {
    // a broken stream (timestamps, frame size) is stronger evidence than a picture jump alone
    const structural = v.videoTamper.breaks?.some((b) => b.kind !== 'scene_discontinuity');
    if (structural) off(2, 'The video stream breaks (timestamp gaps, or a frame size, format or encoder change): frames may have been removed, or recordings joined.');
    else off(1, 'The picture jumps abruptly where two recordings may have been joined.');
  }
  if (v.audioSplice?.applicable && v.audioSplice.suspected) off(1, 'The audio breaks abruptly: another recording may have been spliced in.');

  const points = reasons.reduce((n, r) => n + r.points, 0);
  let g: Grade = points === 0 ? 'A' : points === 1 ? 'B' : points === 2 ? 'C' : points <= 4 ? 'D' : 'F';
  const unanswered = [v.forensic === null && 'manipulation', v.hiddenContent === null || v.hiddenContent.suspected === null ? 'hidden content' : false].filter(Boolean);
  if (g === 'A' && !unanswered.length && v.hiddenContent?.lsb?.evidence === 'weak') {
    g = 'B';
    reasons.push({ points: 0, reason: 'Capped at B: the steganalysis saw weak signs of LSB replacement that a second method did not confirm.' });
  }
  if (g === 'A' && unanswered.length) {
    g = 'B';
    reasons.push({ points: 0, reason: `Capped at B: the ${unanswered.join(' and ')} check${unanswered.length > 1 ? 's' : ''} gave no answer, and no answer is not a clean result.` });
  }
  return { grade: g, points, reasons };
}

/** Severity order, worst first, for sorting findings. */
export const SEVERITY_ORDER: Record<Finding['severity'], number> = { high: 0, medium: 1, low: 2, info: 3 };
