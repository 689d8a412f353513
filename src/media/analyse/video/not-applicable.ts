// A video's verdict that gave no answer is shown as {applicable: false, reason} rather than a
// bare null: clients read verdict fields on videos (camera_fingerprint, c2pa) and must not
// crash. The reason is the detector's own finding, which says why.
import type { Finding } from '../detector.ts';

export function notApplicable(verdict: unknown, findings: Finding[]): unknown {
  if (verdict !== null && verdict !== undefined) return verdict;
  return { applicable: false, reason: findings[0]?.label ?? 'This check does not apply to videos.' };
}
