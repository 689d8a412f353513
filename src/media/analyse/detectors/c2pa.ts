// C2PA provenance: is there a manifest, does it validate (the file unchanged since it was
// signed, the signature and claim intact), and is its signer on the trust list. No manifest is
// a real answer ('none'); a format the library cannot read gives no answer.
import { c2paOf, UNTRUSTED_CODE, type C2paAction } from '../c2pa-reader.ts';
import { throwIfAborted } from '../../errors.ts';
import { noAnswer, type Detector, type DetectorResult, type Finding } from '../detector.ts';

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

const REASONS: [RegExp, string][] = [
  [/^assertion\.(dataHash|boxesHash|bmffHash|collectionHash)\.mismatch$/, 'the content changed after it was signed'],
  [/^claimSignature\.mismatch$/, 'the signature does not match the claim, so the manifest was altered'],
  [/^assertion\.hashedURI\.mismatch$|^assertion\.(missing|notRedacted|cbor\.invalid|json\.invalid)/, 'a statement of the manifest was altered or is missing'],
  [/^signingCredential\.revoked$/, 'the signing certificate was revoked'],
  [/^signingCredential\.expired$|^claimSignature\.outsideValidity$/, 'it was signed outside the validity of the signing certificate'],
  [/^signingCredential\.(invalid|ocsp\.revoked)$/, 'the signing certificate is not valid'],
  [/^signingCredential\.untrusted$/, 'the signer is not on the trust list'],
  [/^timeStamp\./, 'its time stamp does not check out'],
  [/^ingredient\./, 'the manifest of an earlier version does not validate'],
  [/^claim\.|^manifest\./, 'the manifest is malformed'],
];

function reasons(codes: string[]): string {
  const out: string[] = [];
  for (const code of codes) {
    const r = REASONS.find(([re]) => re.test(code))?.[1] ?? `the check ${code} failed`;
    if (!out.includes(r)) out.push(r);
  }
  return out.join('; ') || 'the library reports it invalid';
}

const by = (signer: string | null, at: string | null) => (signer ? ` by ${signer}` : '') + (at ? ` on ${at.slice(0, 10)}` : '');

export const c2paDetector: Detector<C2paVerdict> = {
  name: NAME,
  verdictOrder: 20,
  explainNoAnswerOnVideo: true,
  grade: {
    section: 'provenance',
    points: (v) => (v?.verdict === 'invalid' ? [{ points: 3, reason: 'C2PA provenance is present but does not validate: the file changed after it was signed, or the signature is broken.' }] : []),
  },
  async run(input, options): Promise<DetectorResult<C2paVerdict>> {
    throwIfAborted(options.signal);
    const reading = await c2paOf(input, options);
    const findings: Finding[] = [];
    const add = (severity: Finding['severity'], label: string, tip?: string) => findings.push({ detector: NAME, severity, label, ...(tip ? { tip } : {}) });
    const format = input.probe.format.toUpperCase();

    switch (reading.status) {
      case 'unreadable': {
        if (reading.reason === 'remote_manifest') {
          return noAnswer(NAME, `The file points to C2PA provenance stored online${reading.remote_host ? ` (at ${reading.remote_host})` : ''}. It was not fetched, because the analysis never goes online, so provenance was not checked.`);
        }
        const why =
          reading.reason === 'unsupported_format' ? `Provenance (C2PA) could not be checked for this format (${format}).`
          : reading.reason === 'unparseable_file' ? `Provenance (C2PA) could not be checked for this file: its ${format} structure could not be parsed.`
          : reading.reason === 'timed_out' ? 'Provenance (C2PA) could not be checked for this file: reading it took too long.'
          : 'Provenance (C2PA) could not be checked for this file.';
        return noAnswer(NAME, why);
      }
      case 'none':
        add('info', 'No C2PA provenance in this file.', 'Most files carry none; its absence says nothing about whether the file is authentic.');
        return { verdict: empty('none'), findings, assets: [] };
      case 'broken':
        add('high', `C2PA provenance is present but does not validate: the manifest is damaged and cannot be verified (${reading.code}).`, 'Treat the provenance claims as unverified; get the original file from its source if it matters.');
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
      add('high', `C2PA provenance is present but does not validate: ${reasons(reading.failure_codes.filter((c) => c !== UNTRUSTED_CODE))}.`, 'Treat the provenance claims as unverified: the file or its manifest changed after signing. Get the original from its source if it matters.');
    } else if (verdict.trusted) {
      add('info', `C2PA provenance is present, intact, and signed by a trusted signer${by(verdict.signer, verdict.signed_at)}.`);
    } else {
      add('low', `C2PA provenance is present and intact (signed${by(verdict.signer, verdict.signed_at)}), but the signer is not on the trust list.`, 'An intact signature shows the file has not changed since it was signed; it does not show that the signer is who the name says.');
    }
    if (reading.anchors_rejected) add('info', 'The configured C2PA trust anchors could not be used, so no signer counted as trusted.');
    return { verdict, findings, assets: [] };
  },
};
