// Every setting, from the environment, validated once at start. A bad value stops the
// process with a message that names the variable; nothing is silently coerced. The settings are
// declared in config/settings.ts; here: the rules across settings and the values made of several.
import { isIP } from 'node:net';
import os from 'node:os';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pkg from '../package.json' with { type: 'json' };
import { isLoopback, MiB, type ListenAddress } from './config/parsers.ts';
import { SETTINGS, type Expand, type Parsed, type Placed, type Setting } from './config/settings.ts';

export type { ListenAddress } from './config/parsers.ts';

export const NETWORKS = ['clearnet', 'onion', 'i2p'] as const;
export type Network = (typeof NETWORKS)[number];

/** Largest trust-anchor file read: a bundle of every public CA is about 250 KiB. */
const TRUST_ANCHORS_MAX = 4 * MiB;
/** The C2PA Conformance Program's trust list, shipped with the service (its README says whence and how to refresh it). */
export const SHIPPED_C2PA_TRUST_LIST = fileURLToPath(new URL('./media/analyse/c2pa-trust/C2PA-TRUST-LIST.pem', import.meta.url));

/** A file of PEM certificates named by a setting, or '' with the problem noted. */
function pemFile(name: string, file: string, problems: string[]): string {
  try {
    // a device or a pipe (/dev/zero, a FIFO) would be read forever: a regular file of PEM size only
    const st = statSync(path.resolve(file));
    if (!st.isFile()) problems.push(`${name}: not a regular file`);
    else if (st.size > TRUST_ANCHORS_MAX) problems.push(`${name}: the file is over ${TRUST_ANCHORS_MAX / MiB} MiB; it should hold PEM certificates only`);
    else {
      const text = readFileSync(path.resolve(file), 'utf8');
      if (text.includes('-----BEGIN CERTIFICATE-----')) return text;
      problems.push(`${name}: the file holds no PEM certificate`);
    }
  } catch {
    problems.push(`${name}: cannot read the file`);
  }
  return '';
}

/** The settings with their problems, or each setting's value; then the rules across settings. */
function parse(env: NodeJS.ProcessEnv, problems: string[]): Parsed {
  const raw: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTINGS) as [string, Setting][]) {
    const value = env[name] ?? s.default;
    const r = s.parse.safeParse(value);
    if (r.success) raw[name] = r.data;
    // settings that may carry a secret are named, never shown
    else problems.push(`${s.secret ? name : `${name}=${JSON.stringify(value)}`}: ${r.error.issues.map((i) => i.message).join('; ')}`);
  }
  const r = raw as Parsed;
  if (!problems.length && r.OBSCURA_MASTER_KEY !== undefined && !/^[A-Za-z0-9+/_-]{43}=?$/.test(r.OBSCURA_MASTER_KEY)) {
    problems.push('OBSCURA_MASTER_KEY: must be 32 bytes in base64 or base64url (43 characters)');
  }
  if (!problems.length && r.OBSCURA_CHUNK_MAX > r.OBSCURA_FILE_MAX) {
    problems.push('OBSCURA_CHUNK_MAX: must not exceed OBSCURA_FILE_MAX');
  }
  if (!problems.length && r.OBSCURA_HEADERS_TIMEOUT < 1000) problems.push('OBSCURA_HEADERS_TIMEOUT: must be at least 1s');
  if (!problems.length && r.OBSCURA_REQUEST_TIMEOUT <= r.OBSCURA_HEADERS_TIMEOUT) {
    problems.push('OBSCURA_REQUEST_TIMEOUT: must be longer than OBSCURA_HEADERS_TIMEOUT');
  }
  for (const name of ['OBSCURA_WEB_SESSION_IDLE', 'OBSCURA_WEB_SESSION_MAX', 'OBSCURA_VERIFY_LINK_LIFE'] as const) {
    if (!problems.length && r[name] < 60_000) problems.push(`${name}: must be at least 1m`);
  }
  for (const name of ['OBSCURA_MIN_BODY_RATE_WINDOW', 'OBSCURA_RATE_BAD_KEYS_WINDOW', 'OBSCURA_RATE_BAD_KEYS_BRAKE'] as const) {
    if (!problems.length && r[name] < 1000) problems.push(`${name}: must be at least 1s`);
  }
  const metricsAt = r.OBSCURA_METRICS_LISTEN;
  if (!problems.length && metricsAt.kind === 'tcp' && !isLoopback(metricsAt.host) && !r.OBSCURA_METRICS_ALLOW_REMOTE) {
    problems.push(
      `OBSCURA_METRICS_LISTEN=${JSON.stringify(env.OBSCURA_METRICS_LISTEN)}: not a loopback address. Metrics show when and how much the service is used, ` +
        'so they are served on loopback or a unix socket; to serve them on this address (behind a firewall, to your Prometheus only) set OBSCURA_METRICS_ALLOW_REMOTE=true as well',
    );
  }
  if (!problems.length && r.OBSCURA_RATE_UPLOAD_PER_HOUR < 1) problems.push('OBSCURA_RATE_UPLOAD_PER_HOUR: must be at least 1 byte');
  return r;
}

/** Each setting's value at its `at`, made by its `to`. */
function place(r: Parsed): Placed {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTINGS) as [keyof Parsed, Setting][]) {
    if (s.at === undefined) continue;
    const keys = s.at.split('.');
    let node = out;
    for (const k of keys.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
    node[keys.at(-1)!] = s.to ? s.to(r[name]) : r[name];
  }
  return out as Placed;
}

/** The memory one job may reserve, and the setting that sets it (named in refusals). */
function memoryPerJob(r: Parsed, budget: number): { bytes: number; setting: string } {
  const perJob = r.OBSCURA_MEDIA_MEMORY_PER_JOB;
  if (perJob === 'auto' || perJob >= budget) return { bytes: budget, setting: 'OBSCURA_MEDIA_MEMORY_BUDGET' };
  return { bytes: perJob, setting: 'OBSCURA_MEDIA_MEMORY_PER_JOB' };
}

function defaultOrigin(addr: ListenAddress, fallbackPort: number): string {
  if (addr.kind === 'tcp') {
    const host = isIP(addr.host) === 6 ? `[${addr.host}]` : addr.host;
    return `http://${host}:${addr.port}`;
  }
  return `http://127.0.0.1:${fallbackPort}`;
}

/** The values made of several settings (or of none), merged into what place() gives. */
function derive(r: Parsed, c2paTrustAnchors: string) {
  const budget = r.OBSCURA_MEDIA_MEMORY_BUDGET === 'auto' ? Math.floor(os.totalmem() / 2) : r.OBSCURA_MEDIA_MEMORY_BUDGET;
  const [maxVideoWidth, maxVideoHeight] = r.OBSCURA_MAX_VIDEO_RESOLUTION.split('x').map(Number);
  const onion = r.OBSCURA_ONION_ORIGIN;
  return {
    /** Origin used for every URL handed out on that network. */
    origin: {
      clearnet: r.OBSCURA_CLEARNET_ORIGIN ?? defaultOrigin(r.OBSCURA_CLEARNET_LISTEN, 8080),
      onion: onion ?? defaultOrigin(r.OBSCURA_ONION_LISTEN, 8081),
      i2p: r.OBSCURA_I2P_ORIGIN ?? defaultOrigin(r.OBSCURA_I2P_LISTEN, 8082),
    },
    /** Networks whose origin the operator named (the others fall back to the listen address). */
    originSet: {
      clearnet: r.OBSCURA_CLEARNET_ORIGIN !== undefined,
      onion: onion !== undefined,
      i2p: r.OBSCURA_I2P_ORIGIN !== undefined,
    },
    /** The onion origin announced in clearnet answers' Onion-Location, when one was named. */
    onionLocation: onion && new URL(onion).hostname.endsWith('.onion') ? onion : undefined,
    masterKey: { file: path.resolve(path.resolve(r.OBSCURA_DATA_DIR), r.OBSCURA_MASTER_KEY_FILE ?? 'master.key') },
    /** The largest video frame; the files a reveal may give back: as many as a hide takes. */
    media: { maxVideoWidth, maxVideoHeight, maxRevealFiles: r.OBSCURA_SESSION_MAX_FILES },
    /** Memory this instance's media work may hold at once, and one job of it (with the setting that sets it, named in refusals). */
    memory: { budget, perJob: memoryPerJob(r, budget) },
    /** PEM certificates of the C2PA signers the analyse product trusts (the shipped list by default); empty: none. */
    c2paTrustAnchors,
    version: pkg.version,
  };
}

function merge(into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(from)) {
    const at = into[k];
    into[k] = isRecord(at) && isRecord(v) ? merge(at, v) : v;
  }
  return into;
}
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type Config = Expand<Placed & ReturnType<typeof derive>>;
/** The web pages for people: sign-in sessions, self-service sign-up and its brakes. */
export type WebSettings = Config['web'];
/** What one client may take of the service; each is a setting (docs/api.md "Limits"). */
export type AbuseLimits = Config['abuse'];

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const r = parse(env, problems);
  let c2paTrustAnchors = '';
  if (!problems.length) {
    // the shipped list unless the setting replaces it ('none': no signer trusted); the extra file adds to either
    const base = r.OBSCURA_C2PA_TRUST_ANCHORS === 'none' ? '' : pemFile('OBSCURA_C2PA_TRUST_ANCHORS', r.OBSCURA_C2PA_TRUST_ANCHORS ?? SHIPPED_C2PA_TRUST_LIST, problems);
    const extra = r.OBSCURA_C2PA_EXTRA_TRUST_ANCHORS ? pemFile('OBSCURA_C2PA_EXTRA_TRUST_ANCHORS', r.OBSCURA_C2PA_EXTRA_TRUST_ANCHORS, problems) : '';
    c2paTrustAnchors = [base, extra].filter(Boolean).join('\n');
  }
  if (problems.length) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return merge(place(r), derive(r, c2paTrustAnchors)) as Config;
}
