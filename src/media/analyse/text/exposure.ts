// Text that exposes the owner: e-mail addresses, phone numbers, social handles, licence
// plates, names on badges and street signs. Each kind is named, never its value: findings
// say what sort of thing is readable, and the text itself stays in the verdict alone.
// Patterns are strict on purpose: OCR of photos reads stray characters, and a false alarm
// about someone's privacy is worse than useless.
import { finding, type Finding, type Severity } from '../detector.ts';
import type { TextRegion } from './types.ts';
import { API_WORDS } from '../api-words.ts';

export type ExposureKind = 'email' | 'phone' | 'handle' | 'licence_plate' | 'badge_name' | 'street_sign';

export interface Exposure {
  kind: ExposureKind;
  severity: Severity;
  /** How many regions show one. */
  count: number;
}

/** The privacy finding for one kind of exposing text (finding.privacy.readable_<kind>, its tip
 *  tip.privacy.readable_<kind>): the kind is named, never the text. */
export function exposureFinding(x: Exposure): Finding {
  const tip = `tip.privacy.readable_${x.kind}` as const;
  return finding('privacy', x.severity, `finding.privacy.readable_${x.kind}`, undefined, REDACTABLE.has(x.kind) ? { id: tip, values: { redact: API_WORDS.redactText } } : tip);
}

/** The kinds whose tip names the redaction option. */
const REDACTABLE = new Set<ExposureKind>(['email', 'phone', 'licence_plate']);

const SEVERITY: Record<ExposureKind, Severity> = { email: 'high', phone: 'high', handle: 'medium', licence_plate: 'medium', badge_name: 'medium', street_sign: 'medium' };

/** Confidence (0..1) a region needs before its text can raise an alarm. */
const MIN_CONFIDENCE = 0.7;

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/u;
// after an e-mail is ruled out: @ then 3+ name characters, not inside a word
const HANDLE = /(^|[\s(])@[A-Za-z0-9_][A-Za-z0-9_.]{2,29}\b/;
// international (+41 79 123 45 67), grouped (079 123 45 67, (555) 123-4567, 555.123.4567)
const PHONE = /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,4}){1,4}|\+\d{9,14}\b|\b0\d{9,10}\b/g;
const DATE_OR_TIME = /^\d{1,4}[-./]\d{1,2}[-./]\d{1,4}$|^\d{1,2}[:h]\d{2}/;
const PHONE_WORD = /\b(tel|tél|phone|mobile|mob|fax|call|cell|whatsapp|telefon|téléphone|handy|natel)\b/i;
const BADGE = /\b(hello,? my name is|my name is|name\s*:|visitor|employee|staff|volunteer|security|press|badge|nurse|doctor|dr\.|id\s*(no|card|#))\b/i;
const PERSON = /\b\p{Lu}\p{Ll}+(?:[- ]\p{Lu}\p{Ll}+){1,2}\b/u;
// "Baker Street", "Sunset Blvd", "12 Abbey Road"; "Rue de Lyon", "Via Roma"; "Hauptstrasse 12"
const STREET_AFTER = /\s(street|st\.|avenue|ave\.?|road|rd\.?|boulevard|blvd\.?|lane)(?=$|[\s,.])/i;
const STREET_BEFORE = /(?:^|\s)(?:rue|chemin|route|allée|avenue|place|via|viale|piazza|calle|plaza|carrer|rua)\s+(?:(?:de|du|des|la|le|del|della|di|dei|l')\s*)*(\S+)/i;
const STREET_JOINED = /\p{Lu}\p{Ll}{2,}(strasse|straße|gasse|platz|weg|straat|laan|gracht)\b/u;

export function exposures(regions: TextRegion[]): Exposure[] {
  const counts = new Map<ExposureKind, number>();
  const hit = (k: ExposureKind) => counts.set(k, (counts.get(k) ?? 0) + 1);
  const sure = regions.filter((r) => r.confidence >= MIN_CONFIDENCE);
  const all = sure.map((r) => r.text).join('\n');
  for (const r of sure) {
    const t = r.text;
    if (EMAIL.test(t)) hit('email');
    else if (HANDLE.test(t)) hit('handle');
    if (phone(t)) hit('phone');
    if (plate(r)) hit('licence_plate');
    if (street(t)) hit('street_sign');
  }
  // a badge: a badge word somewhere and a person's name on its own short line
  if (BADGE.test(all) && sure.some((r) => r.text.length <= 40 && PERSON.test(r.text) && !street(r.text))) hit('badge_name');
  return [...counts].map(([kind, count]) => ({ kind, count, severity: SEVERITY[kind] }));
}

function phone(t: string): boolean {
  for (const m of t.matchAll(PHONE)) {
    const s = m[0].trim();
    const digits = s.replace(/\D/g, '').length;
    if (digits < 9 || digits > 15 || DATE_OR_TIME.test(s)) continue;
    // grouped digits alone could be a price, a serial or a date: ask for a + or a phone word
    if (s.startsWith('+') || s.startsWith('(') || PHONE_WORD.test(t) || /^0\d/.test(s)) return true;
  }
  return false;
}

/** A plate alone on its line: 6-8 letters and digits, both kinds, in 1-3 groups, on a wide box. */
function plate(r: TextRegion): boolean {
  const t = r.text.trim();
  if (!/^[A-Z0-9]+(?:[ ·•-][A-Z0-9]+){0,2}$/.test(t)) return false;
  const compact = t.replace(/[^A-Z0-9]/g, '');
  const letters = compact.replace(/\d/g, '').length;
  const digits = compact.length - letters;
  const ratio = r.box.width / Math.max(1, r.box.height);
  return compact.length >= 6 && compact.length <= 8 && letters >= 1 && letters <= 4 && digits >= 2 && ratio >= 2 && ratio <= 8;
}

function street(t: string): boolean {
  if (t.length > 60) return false;
  if (STREET_JOINED.test(t)) return true;
  const after = STREET_AFTER.exec(t);
  if (after) {
    const before = t.slice(0, after.index).trim().split(/\s+/).pop() ?? '';
    if (/^\p{Lu}\p{L}{2,}$/u.test(before)) return true;
  }
  const name = STREET_BEFORE.exec(t)?.[1] ?? '';
  return /^\p{Lu}\p{L}{2,}/u.test(name);
}
