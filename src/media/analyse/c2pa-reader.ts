// Reads and validates the C2PA manifest of a file with the C2PA Rust library
// (@contentauth/c2pa-node), strictly offline, and returns a plain summary that the c2pa and
// ai_generation detectors share. One reading per analysed file: `c2paOf` memoises it on the
// AnalyseInput.
//
// Offline: by default the library fetches a manifest that the file only points to (XMP
// dcterms:provenance), whatever the URL. Here remote manifest fetching and OCSP fetching are
// off, the library's own HTTP allow-list is empty (every request refused), and CAWG identity
// assertions, whose checks may resolve did:web documents, are not decoded.
//
// Out of process: `c2paOf` runs this very file as a child process (node c2pa-reader.ts FILE
// MIME, trust anchors on stdin, the reading as JSON on stdout). The library is native code
// that cannot be interrupted: in a child, an abort or the time limit kills it like any other
// tool, and a worker thread terminated while a read is being started cannot take the whole
// service down with it (neon aborts the process in that case, measured with 0.8.0).
import { fileURLToPath } from 'node:url';
import { isAborted, isMediaError } from '../errors.ts';
import { runTool } from '../tools.ts';
import type { AnalyseInput, AnalyseOptions } from './detector.ts';

export interface C2paAction {
  action: string;
  digital_source_type?: string;
  software_agent?: string;
}

export interface C2paManifestReading {
  status: 'manifest';
  /** As the library reports it: 'Invalid', 'Valid' (intact, signer not trusted) or 'Trusted'. */
  validation_state: string | null;
  /** The signer chains to one of the trust anchors given. */
  trusted: boolean;
  /** Failure codes of the active manifest and its ingredients, deduplicated. */
  failure_codes: string[];
  claim_generator: string | null;
  signer: string | null;
  signed_at: string | null;
  /** Every action in the provenance chain, oldest manifest (ingredients) first. */
  actions: C2paAction[];
  /** The digitalSourceType of a c2pa.created action (the active manifest's first), else of any
   *  action or assertion; null when the manifest states none. */
  digital_source_type: string | null;
  /** Every digitalSourceType stated anywhere in the chain (actions and assertions). */
  digital_source_types: string[];
  /** Generator names of the chain (claim generators and software agents). */
  generators: string[];
  /** Labels of every assertion in the chain ("c2pa.soft-binding", ...), for the watermark check. */
  assertion_labels: string[];
  /** The trust anchors given were not usable PEM certificates; the file was read without them. */
  anchors_rejected: boolean;
}

/** A manifest is there, but the library could not even parse or verify its structure. */
export interface C2paBrokenReading {
  status: 'broken';
  /** The library's error kind, such as "CoseInvalidCert" (its message is not kept: raw
   *  library text is never shown to users). */
  code: string;
  anchors_rejected: boolean;
}

export type C2paUnreadableReason = 'unsupported_format' | 'unparseable_file' | 'remote_manifest' | 'timed_out' | 'unavailable' | 'failed';

export type C2paReading =
  | { status: 'none' }
  | C2paManifestReading
  | C2paBrokenReading
  | { status: 'unreadable'; reason: C2paUnreadableReason; /** Host of a remote manifest URL. */ remote_host?: string };

/** Validation codes that are a trust matter, not a sign of alteration. */
export const UNTRUSTED_CODE = 'signingCredential.untrusted';

type Json = Record<string, unknown>;
type ReaderModule = typeof import('@contentauth/c2pa-node');

let loaded: Promise<ReaderModule> | undefined;
/** The native library is loaded on first use: a service that never analyses never maps it. */
function library(): Promise<ReaderModule> {
  return (loaded ??= import('@contentauth/c2pa-node'));
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----/g;

/** Only the certificate blocks of a PEM text; '' when there are none. */
export function pemCertificates(text: string | undefined): string {
  return (text ?? '').match(PEM_CERT)?.join('\n') ?? '';
}

function settings(anchors: string): string {
  const s: Json = {
    core: { allowed_network_hosts: [], decode_identity_assertions: false },
    verify: { verify_after_reading: true, verify_trust: true, ocsp_fetch: false, remote_manifest_fetch: false },
  };
  if (anchors) s.trust = { verify_trust_list: true, trust_anchors: anchors };
  return JSON.stringify(s);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function agentName(v: unknown): string | undefined {
  const s = str(v);
  if (s) return s;
  const o = obj(v);
  if (!o) return undefined;
  const name = str(o.name);
  return name ? (str(o.version) ? `${name} ${str(o.version)}` : name) : undefined;
}

function claimGenerator(m: Json): string | null {
  const info = arr(m.claim_generator_info).map(obj).find((i) => i && str(i.name));
  return str(info?.name) ?? str(m.claim_generator) ?? null;
}

function signerOf(m: Json): string | null {
  const sig = obj(m.signature_info);
  const cn = str(sig?.common_name);
  const org = str(sig?.issuer);
  if (cn && org && cn !== org) return `${cn} (${org})`;
  return cn ?? org ?? null;
}

/** digitalSourceType values found anywhere inside an assertion's data (IPTC and C2PA spellings). */
function sourceTypesIn(v: unknown, out: string[], depth = 0): void {
  if (depth > 8) return;
  if (Array.isArray(v)) {
    for (const x of v) sourceTypesIn(x, out, depth + 1);
    return;
  }
  const o = obj(v);
  if (!o) return;
  for (const [k, x] of Object.entries(o)) {
    if (/(^|:)digitalsourcetype$/i.test(k)) {
      const s = str(x) ?? str(obj(x)?.['@id']);
      if (s) out.push(s);
    } else if (typeof x === 'object') sourceTypesIn(x, out, depth + 1);
  }
}

interface Chain {
  actions: C2paAction[];
  activeCreated?: string;
  created?: string;
  sourceTypes: string[];
  generators: string[];
  labels: string[];
}

/** Walks a manifest and, first, the manifests of its ingredients (their history precedes it). */
function walk(store: Json, label: string, chain: Chain, seen: Set<string>, isActive: boolean): void {
  if (seen.has(label) || seen.size > 64) return;
  seen.add(label);
  const manifest = obj(obj(store.manifests)?.[label]);
  if (!manifest) return;
  for (const ing of arr(manifest.ingredients)) {
    const sub = str(obj(ing)?.active_manifest);
    if (sub) walk(store, sub, chain, seen, false);
  }
  const gen = claimGenerator(manifest);
  if (gen) chain.generators.push(gen);
  for (const a of arr(manifest.assertions)) {
    const assertion = obj(a);
    const data = obj(assertion?.data);
    if (!assertion || !data) continue;
    if (str(assertion.label)) chain.labels.push(str(assertion.label)!);
    if (/^c2pa\.actions(\.v\d+)?$/.test(str(assertion.label) ?? '')) {
      for (const x of arr(data.actions)) {
        const act = obj(x);
        const name = str(act?.action);
        if (!act || !name) continue;
        const entry: C2paAction = { action: name };
        const dst = str(act.digitalSourceType) ?? str(obj(act.parameters)?.digitalSourceType);
        if (dst) {
          entry.digital_source_type = dst;
          chain.sourceTypes.push(dst);
          if (name === 'c2pa.created') {
            if (isActive) chain.activeCreated ??= dst;
            chain.created ??= dst;
          }
        }
        const agent = agentName(act.softwareAgent) ?? agentName(act.software_agent);
        if (agent) {
          entry.software_agent = agent;
          chain.generators.push(agent);
        }
        chain.actions.push(entry);
      }
    } else {
      sourceTypesIn(data, chain.sourceTypes);
    }
  }
}

function failureCodes(store: Json): string[] {
  const codes: string[] = [];
  const results = obj(store.validation_results);
  const collect = (status: unknown) => {
    for (const f of arr(obj(status)?.failure)) {
      const code = str(obj(f)?.code);
      if (code) codes.push(code);
    }
  };
  if (results) {
    collect(results.activeManifest);
    for (const d of arr(results.ingredientDeltas)) collect(obj(d)?.validationDeltas);
  } else {
    // older stores: the flat list (failures only)
    for (const s of arr(store.validation_status)) {
      const code = str(obj(s)?.code);
      if (code) codes.push(code);
    }
  }
  return [...new Set(codes)];
}

/** The summary of a manifest store, as the library returns it (Reader.json()). */
export function summarise(store: Json, anchorsRejected = false): C2paManifestReading {
  const active = str(store.active_manifest);
  const chain: Chain = { actions: [], sourceTypes: [], generators: [], labels: [] };
  const manifest = active ? obj(obj(store.manifests)?.[active]) : undefined;
  if (active) walk(store, active, chain, new Set(), true);
  const state = str(store.validation_state) ?? null;
  return {
    status: 'manifest',
    validation_state: state,
    trusted: state === 'Trusted',
    failure_codes: failureCodes(store),
    claim_generator: manifest ? claimGenerator(manifest) : null,
    signer: manifest ? signerOf(manifest) : null,
    signed_at: str(obj(manifest?.signature_info)?.time) ?? null,
    actions: chain.actions,
    digital_source_type: chain.activeCreated ?? chain.created ?? chain.sourceTypes[0] ?? null,
    digital_source_types: [...new Set(chain.sourceTypes)],
    generators: [...new Set(chain.generators)],
    assertion_labels: [...new Set(chain.labels)],
    anchors_rejected: anchorsRejected,
  };
}

/** The library's error kind: its Rust Debug name, "C2pa(UnsupportedType)" -> "UnsupportedType". */
function errorKind(err: unknown): { kind: string; outer: string; detail: string } {
  const name = String((err as { name?: unknown })?.name ?? '');
  const m = /^(\w+)(?:\((\w+)(?:\(([\s\S]*)\))?\))?/.exec(name);
  return { outer: m?.[1] ?? '', kind: m?.[2] ?? m?.[1] ?? 'Error', detail: m?.[3] ?? '' };
}

function remoteHost(detail: string): string | undefined {
  const url = /"([^"]+)"/.exec(detail)?.[1]?.replace(/\\"/g, '');
  try {
    return url ? new URL(url).host : undefined;
  } catch {
    return undefined;
  }
}

function classify(err: unknown, anchorsRejected: boolean): C2paReading {
  const { outer, kind, detail } = errorKind(err);
  if (outer === 'C2pa') {
    if (kind === 'JumbfNotFound' || kind === 'ProvenanceMissing') return { status: 'none' };
    if (kind === 'UnsupportedType') return { status: 'unreadable', reason: 'unsupported_format' };
    if (kind === 'InvalidAsset' || kind === 'IoError') return { status: 'unreadable', reason: 'unparseable_file' };
    if (kind === 'RemoteManifestUrl' || kind === 'RemoteManifestFetch') return { status: 'unreadable', reason: 'remote_manifest', remote_host: remoteHost(detail) };
    // anything else is about the manifest itself: present, but broken
    return { status: 'broken', code: kind, anchors_rejected: anchorsRejected };
  }
  if (outer === 'FileIO') return { status: 'unreadable', reason: 'unparseable_file' };
  return { status: 'unreadable', reason: 'failed' };
}

const isSettingsError = (err: unknown) => /Invalid settings/.test(err instanceof Error ? err.message : '');

/**
 * Reads the C2PA manifest of a file, offline. `trustAnchors`: PEM certificates of trusted
 * signers (anything else in the text is ignored); without them, no signer is trusted.
 */
export async function readC2pa(path: string, mime: string, trustAnchors?: string): Promise<C2paReading> {
  let lib: ReaderModule;
  try {
    lib = await library();
  } catch {
    return { status: 'unreadable', reason: 'unavailable' };
  }
  const anchors = pemCertificates(trustAnchors);
  const read = async (withAnchors: string, anchorsRejected: boolean): Promise<C2paReading> => {
    const reader = await lib.Reader.fromAsset({ path, mimeType: mime }, settings(withAnchors));
    if (!reader) return { status: 'none' };
    return summarise(reader.json() as Json, anchorsRejected);
  };
  try {
    return await read(anchors, false);
  } catch (err) {
    if (anchors && isSettingsError(err)) {
      // the anchors did not parse: read without them (nothing trusted) rather than not at all
      try {
        return await read('', true);
      } catch (err2) {
        return classify(err2, true);
      }
    }
    return classify(err, false);
  }
}

const SELF = fileURLToPath(import.meta.url);
/** Hashing a large video is the slow part: about half a second per 400 MB here. */
const READ_TIMEOUT_MS = 120_000;
const isReading = (v: unknown): v is C2paReading => typeof (v as { status?: unknown })?.status === 'string';

/**
 * The same reading as `readC2pa`, made in a child process under the job's signal, time limit
 * and process bookkeeping. Rejects only when the signal fires.
 */
const C2PA_READER_MEMORY = 3 << 30;

export async function readC2paIsolated(
  path: string,
  mime: string,
  options: Pick<AnalyseOptions, 'c2paTrustAnchors' | 'signal' | 'onSpawn' | 'onReap'> = {},
): Promise<C2paReading> {
  try {
    const r = await runTool(process.execPath, ['--no-warnings', SELF, path, mime], {
      stdin: pemCertificates(options.c2paTrustAnchors),
      signal: options.signal,
      onSpawn: options.onSpawn,
      onReap: options.onReap,
      timeoutMs: READ_TIMEOUT_MS,
      maxStdout: 4 << 20,
      maxStderr: 4096,
      // its own address-space limit, not the job's share: V8 reserves more than a GiB it never
      // uses (node does not start under 1 GiB; it reads a manifest under 2 GiB), and the
      // library's brotli and zlib readers inflate within what is left
      memoryLimit: C2PA_READER_MEMORY,
    });
    if (r.code !== 0) return { status: 'unreadable', reason: 'failed' };
    const reading: unknown = JSON.parse(r.stdout.toString('utf8'));
    return isReading(reading) ? reading : { status: 'unreadable', reason: 'failed' };
  } catch (err) {
    if (isAborted(err)) throw err;
    if (isMediaError(err, 'limit_exceeded')) return { status: 'unreadable', reason: 'timed_out' };
    return { status: 'unreadable', reason: 'failed' };
  }
}

const memo = new WeakMap<AnalyseInput, { anchors: string; reading: Promise<C2paReading> }>();

/** The reading of an analysed file, made once (out of process) and shared by the detectors. */
export function c2paOf(input: AnalyseInput, options: Pick<AnalyseOptions, 'c2paTrustAnchors' | 'signal' | 'onSpawn' | 'onReap'>): Promise<C2paReading> {
  const anchors = options.c2paTrustAnchors ?? '';
  const hit = memo.get(input);
  if (hit && hit.anchors === anchors) return hit.reading;
  const reading = readC2paIsolated(input.path, input.probe.mime, options);
  memo.set(input, { anchors, reading });
  return reading;
}

// The child: one reading, as JSON on stdout; nothing else is ever written.
if (import.meta.main) {
  const [path, mime] = process.argv.slice(2);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const reading = path && mime ? await readC2pa(path, mime, Buffer.concat(chunks).toString('utf8')) : ({ status: 'unreadable', reason: 'failed' } as const);
  process.stdout.write(JSON.stringify(reading), () => process.exit(0));
}
