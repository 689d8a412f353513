// What a null field of an answered verdict means. A null verdict is always "no answer" (the check
// could not run or did not apply); inside an answered verdict many fields are null only because
// the file does not carry them (no GPS position, no camera make, no C2PA signer): a real answer.
// The API keeps null for both (its contract); the report page reads this table to say so in
// words, and shows "no answer" for every null field not listed here.
import type { C2paVerdict } from './detectors/c2pa.ts';
import type { CameraFingerprint } from './detectors/fingerprint.ts';
import type { PrivacyVerdict } from './detectors/privacy.ts';

/** absent: the file does not carry it; none: nothing was found; not_applicable: follows from
 *  another field's answer; unrecognised: present, but names nothing known. */
export type NullMeaning = 'absent' | 'none' | 'not_applicable' | 'unrecognised';

type Table<V> = { [K in keyof V]?: NullMeaning | ((verdict: V) => NullMeaning | undefined) };

// the double-compression figures are null when it was not found (then they do not apply) and
// when it could not be told (then they are no answer, as double_compressed is)
const afterDoubleCompression = (v: CameraFingerprint): NullMeaning | undefined => (v.double_compressed === false ? 'not_applicable' : undefined);

const PRIVACY: Table<PrivacyVerdict> = { gps: 'absent', highest: 'none' };
const C2PA: Table<C2paVerdict> = { claim_generator: 'absent', signer: 'absent', signed_at: 'absent', digital_source_type: 'absent' };
const FINGERPRINT: Table<CameraFingerprint> = {
  make: 'absent',
  model: 'absent',
  software: 'absent',
  encoder_name: 'unrecognised',
  estimated_first_quality: afterDoubleCompression,
  estimated_first_family: afterDoubleCompression,
  double_compression_note: (v) => (v.double_compressed !== null ? 'not_applicable' : undefined),
};

const TABLES: Record<string, Table<any>> = { privacy: PRIVACY, c2pa: C2PA, camera_fingerprint: FINGERPRINT };

/** What `field` being null means in this answered verdict of `detector`; undefined: no answer. */
export function nullMeaning(detector: string, field: string, verdict: Record<string, unknown>): NullMeaning | undefined {
  const m = TABLES[detector]?.[field];
  return typeof m === 'function' ? m(verdict) : m;
}
