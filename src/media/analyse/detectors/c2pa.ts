// C2PA provenance: is there a manifest, does it validate (the file unchanged since it was
// signed, the signature and claim intact), and is its signer on the trust list. No manifest is
// a real answer ('none'); a format the library cannot read gives no answer.
import { c2paOf, UNTRUSTED_CODE, type C2paAction } from '../c2pa-reader.ts';
import { throwIfAborted } from '../../errors.ts';
import { finding, noAnswer, type Detector, type DetectorResult, type Finding, type TipMessage } from '../detector.ts';
import { gradeReason } from '../grade.ts';
import { listOf, type Message, type MessageId, type MessageValue } from '../../../i18n/findings-format.ts';
import { formatName } from '../../format-names.ts';

export interface C2paVerdict {
  verdict: 'valid' | 'invalid' | 'none';
  applicable: true;
  has_manifest: boolean;
  /** The signer chains to a configured trust anchor; false when none is configured. */
  trusted: boolean;
  claim_generator: string | null;
  /** Common name (and organisation) of the signing certificate. */
  signer: string | null;
  signed_at: string | null;
  /** Every action of the provenance chain, earlier versions (ingredients) first. */
  actions: C2paAction[];
  /** IPTC digital source type (a URL) of the created action, or of the manifest's assertions. */
  digital_source_type: string | null;
  /** Validation failure codes ("assertion.dataHash.mismatch"); "signingCredential.untrusted"
   *  only when a trust list was configured (without one, `trusted: false` says it). */
  validation_errors: string[];
}

const NAME = 'c2pa';

const empty = (verdict: 'none' | 'invalid', validationErrors: string[] = []): C2paVerdict => ({
  verdict,
  applicable: true,
  has_manifest: verdict === 'invalid',
  trusted: false,
  claim_generator: null,
  signer: null,
  signed_at: null,
  actions: [],
  digital_source_type: null,
  validation_errors: validationErrors,
});

const REASONS: [RegExp, MessageId][] = [
  [/^assertion\.(dataHash|boxesHash|bmffHash|collectionHash)\.mismatch$/, 'finding.c2pa.reason.content_changed'],
  [/^claimSignature\.mismatch$/, 'finding.c2pa.reason.signature_mismatch'],
  [/^assertion\.hashedURI\.mismatch$|^assertion\.(missing|notRedacted|cbor\.invalid|json\.invalid)/, 'finding.c2pa.reason.statement_altered'],
  [/^signingCredential\.revoked$/, 'finding.c2pa.reason.revoked'],
  [/^signingCredential\.expired$|^claimSignature\.outsideValidity$/, 'finding.c2pa.reason.outside_validity'],
  [/^signingCredential\.(invalid|ocsp\.revoked)$/, 'finding.c2pa.reason.certificate_invalid'],
  [/^signingCredential\.untrusted$/, 'finding.c2pa.reason.untrusted'],
  [/^timeStamp\./, 'finding.c2pa.reason.time_stamp'],
  [/^ingredient\./, 'finding.c2pa.reason.ingredient'],
  [/^claim\.|^manifest\./, 'finding.c2pa.reason.malformed'],
];

/** Why the manifest does not validate, each reason once ("a; b"), from the failure codes. */
function reasons(codes: string[]): Message {
  const out: Message[] = [];
  const said = new Set<string>();
  for (const code of codes) {
    const id = REASONS.find(([re]) => re.test(code))?.[1];
    const m: Message = id ? { id } : { id: 'finding.c2pa.reason.other', values: { code } };
    const key = id ?? `other:${code}`;
    if (!said.has(key)) out.push(m);
    said.add(key);
  }
  return out.length ? listOf(out, 'finding.part.semicolon') : { id: 'finding.c2pa.reason.library' };
}

/** Who signed and when, as the trusted and untrusted findings' values. */
const by = (signer: string | null, at: string | null): Record<string, MessageValue> => ({
  signed: signer && at ? 'by_on' : signer ? 'by' : at ? 'on' : 'none',
  signer: signer ?? '',
  date: at ? at.slice(0, 10) : '',
});

export const c2paDetector: Detector<C2paVerdict> = {
  name: NAME,
  verdictOrder: 20,
  explainNoAnswerOnVideo: true,
  grade: {
    section: 'provenance',
    points: (v) => (v?.verdict === 'invalid' ? [gradeReason(3, 'grade.c2pa.invalid')] : []),
  },
  async run(input, options): Promise<DetectorResult<C2paVerdict>> {
    throwIfAborted(options.signal);
    const reading = await c2paOf(input, options);
    const findings: Finding[] = [];
    const add = (severity: Finding['severity'], id: MessageId, values?: Record<string, MessageValue>, tip?: TipMessage) => findings.push(finding(NAME, severity, id, values, tip));
    const format = formatName(input.probe.format);

    switch (reading.status) {
      case 'unreadable': {
        if (reading.reason === 'remote_manifest') {
          return noAnswer(NAME, reading.remote_host ? { id: 'finding.c2pa.remote_at', values: { host: reading.remote_host } } : 'finding.c2pa.remote');
        }
        const why: Message =
          reading.reason === 'unsupported_format' ? { id: 'finding.c2pa.unsupported_format', values: { format } }
          : reading.reason === 'unparseable_file' ? { id: 'finding.c2pa.unparseable', values: { format } }
          : reading.reason === 'timed_out' ? { id: 'finding.c2pa.timed_out' }
          : { id: 'finding.c2pa.failed' };
        return noAnswer(NAME, why);
      }
      case 'none':
        add('info', 'finding.c2pa.none', undefined, 'tip.c2pa.none');
        return { verdict: empty('none'), findings, assets: [] };
      case 'broken':
        add('high', 'finding.c2pa.broken', { code: reading.code }, 'tip.c2pa.broken');
        return { verdict: empty('invalid', [reading.code]), findings, assets: [] };
    }

    const anchorsUsed = Boolean(options.c2paTrustAnchors?.trim()) && !reading.anchors_rejected;
    const errors = reading.failure_codes.filter((c) => anchorsUsed || c !== UNTRUSTED_CODE);
    const invalid = reading.validation_state ? reading.validation_state === 'Invalid' : reading.failure_codes.some((c) => c !== UNTRUSTED_CODE);
    const verdict: C2paVerdict = {
      verdict: invalid ? 'invalid' : 'valid',
      applicable: true,
      has_manifest: true,
      trusted: !invalid && reading.trusted,
      claim_generator: reading.claim_generator,
      signer: reading.signer,
      signed_at: reading.signed_at,
      actions: reading.actions,
      digital_source_type: reading.digital_source_type,
      validation_errors: errors,
    };
    if (invalid) {
      add('high', 'finding.c2pa.invalid', { reasons: reasons(reading.failure_codes.filter((c) => c !== UNTRUSTED_CODE)) }, 'tip.c2pa.invalid');
    } else if (verdict.trusted) {
      add('info', 'finding.c2pa.trusted', by(verdict.signer, verdict.signed_at));
    } else {
      add('low', 'finding.c2pa.untrusted', by(verdict.signer, verdict.signed_at), 'tip.c2pa.untrusted');
    }
    if (reading.anchors_rejected) add('info', 'finding.c2pa.anchors_rejected');
    return { verdict, findings, assets: [] };
  },
};
