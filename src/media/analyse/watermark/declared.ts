// Declared marks: what the file's metadata says about rights and watermarks. A rights notice
// is evidence that the picture is marked as someone's (often with a visible or invisible
// watermark too), never evidence of manipulation.
import type { C2paReading } from '../c2pa-reader.ts';
import type { Tags } from '../detector.ts';

export interface DeclaredMark {
  /** 'c2pa' for manifest statements, else the metadata family ("XMP-xmpRights", "IPTC"). */
  source: string;
  field: string;
  value: string;
}

/** Rights and watermark fields, by exiftool -G1 name. */
const RIGHTS = /^(XMP-xmpRights:(WebStatement|Marked|UsageTerms|Owner|Certificate)|IPTC:CopyrightNotice|XMP-dc:Rights|IFD0:Copyright|XMP-photoshop:Copyright|XMP-plus:(Licensor\w*|CopyrightOwner\w*|ImageSupplier\w*|CopyrightStatus|LicenseID|Licensee\w*)|XMP-iptcExt:(WebStatementOfRights|CopyrightOwner\w*|Licensor\w*))$/;
/** Any field that names a watermark (PLUS, vendor schemas, PNG text). */
const WATERMARK_FIELD = /watermark/i;
/** C2PA statements about a watermark: the action (C2PA 2.x) and soft-binding assertions,
 *  which bind the manifest to a watermark or fingerprint in the pixels. */
const C2PA_ACTION = /^c2pa\.watermarked(\.|$)/;
const C2PA_ASSERTION = /^c2pa\.soft-binding(\.v\d+)?$|watermark/i;

const text = (v: unknown) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

export function declaredMarks(tags: Tags | undefined, c2pa: C2paReading | undefined): DeclaredMark[] {
  const out: DeclaredMark[] = [];
  for (const [key, value] of Object.entries(tags ?? {})) {
    if (value === '' || value === null || value === undefined) continue;
    const group = key.slice(0, key.indexOf(':'));
    const field = key.slice(key.indexOf(':') + 1);
    // Marked False is a declaration of public domain, not of a mark
    if (key === 'XMP-xmpRights:Marked' && !(value === true || value === 1 || /^(true|1)$/i.test(String(value)))) continue;
    if (RIGHTS.test(key) || WATERMARK_FIELD.test(field)) out.push({ source: group, field, value: text(value) });
  }
  if (c2pa?.status === 'manifest') {
    for (const a of c2pa.actions) if (C2PA_ACTION.test(a.action)) out.push({ source: 'c2pa', field: 'action', value: a.action });
    for (const label of c2pa.assertion_labels ?? []) if (C2PA_ASSERTION.test(label)) out.push({ source: 'c2pa', field: 'assertion', value: label });
  }
  return out;
}
