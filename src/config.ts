// Every setting, from the environment, validated once at start. A bad value stops the
// process with a message that names the variable; nothing is silently coerced.
import { isIP } from 'node:net';
import os from 'node:os';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import pkg from '../package.json' with { type: 'json' };

export const NETWORKS = ['clearnet', 'onion', 'i2p'] as const;
export type Network = (typeof NETWORKS)[number];

export type ListenAddress =
  | { kind: 'off' }
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'unix'; path: string };

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

function parseListen(raw: string): ListenAddress | string {
  const v = raw.trim();
  if (v === 'off' || v === '') return { kind: 'off' };
  if (v.startsWith('unix:')) {
    const p = v.slice(5);
    return path.isAbsolute(p) ? { kind: 'unix', path: p } : 'a unix socket path must be absolute';
  }
  const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:\s]+)):(\d{1,5})$/.exec(v);
  if (!m) return 'expected host:port, unix:/absolute/path, or off';
  const port = Number(m[3]);
  if (port > 65535) return 'port must be 0-65535 (0: any free port)';
  const host = m[1] ?? m[2];
  if (!isHost(host)) return 'the host must be an IP address or a host name';
  return { kind: 'tcp', host, port };
}

// labels of letters, digits, '-' and '_' (container networks name services with underscores)
const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** An IP address, or a host name whose last label is not a number (URLs read "080" or "127.1" as IPv4). */
function isHost(host: string): boolean {
  if (isIP(host)) return true;
  const last = host.replace(/\.$/, '').split('.').pop()!;
  return host.length <= 253 && HOST_NAME.test(host) && !/^(\d+|0x[0-9a-f]*)$/i.test(last);
}

const listen = (loopbackOnly: boolean) =>
  z.string().transform((raw, ctx): ListenAddress => {
    const r = parseListen(raw);
    if (typeof r === 'string') {
      ctx.addIssue({ code: 'custom', message: r });
      return z.NEVER;
    }
    if (loopbackOnly && r.kind === 'tcp' && !isLoopback(r.host)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a loopback address or a unix socket: it is reached only through the local tor or i2pd',
      });
      return z.NEVER;
    }
    return r;
  });

const origin = z
  .string()
  .url()
  .transform((u, ctx) => {
    const url = new URL(u);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'must be an http or https origin' });
      return z.NEVER;
    }
    return url.origin;
  });

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

// "5MiB", "200MB", "1048576"
const bytes = z.string().transform((raw, ctx) => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?\s*$/i.exec(raw);
  if (!m) {
    ctx.addIssue({ code: 'custom', message: 'expected a byte count such as 1048576, 512KiB, 5MiB or 2GiB' });
    return z.NEVER;
  }
  const unit = (m[2] ?? 'B').toLowerCase();
  const mult: Record<string, number> = { b: 1, kb: 1000, kib: KiB, mb: 1e6, mib: MiB, gb: 1e9, gib: GiB };
  const n = Math.floor(Number(m[1]) * mult[unit]);
  if (!Number.isSafeInteger(n)) {
    ctx.addIssue({ code: 'custom', message: 'is too large: at most 8 PiB' }); // past 2^53 a count of bytes is no longer exact
    return z.NEVER;
  }
  return n;
});

/** "auto", or what the schema makes of the value. */
const autoOr = <T extends z.ZodType>(type: T) => z.union([z.literal('auto'), type]);

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

/** The longest duration taken: 100 years, so that now plus it is still a date. */
const DURATION_MAX_MS = 36_500 * 86_400_000;
/** The longest delay a Node timer holds (about 24.8 days): past it, the timer fires at once. */
const TIMER_MAX_MS = 2 ** 31 - 1;

// "90s", "15m", "24h", "7d", or plain seconds
const duration = z.string().transform((raw, ctx) => {
  const m = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  if (!m) {
    ctx.addIssue({ code: 'custom', message: 'expected a duration such as 90s, 15m, 24h or 7d' });
    return z.NEVER;
  }
  const mult: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const ms = Number(m[1]) * mult[m[2] ?? 's'];
  if (!(ms <= DURATION_MAX_MS)) {
    ctx.addIssue({ code: 'custom', message: 'is too long: at most 36500d (100 years)' });
    return z.NEVER;
  }
  return ms;
});

// a duration that feeds a Node timer
const timer = duration.refine((ms) => ms <= TIMER_MAX_MS, 'must be at most 24d: it is a timer, and a longer one fires at once');

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const prefix = z.string().regex(/^[a-z][a-z0-9]{0,15}_$/, 'a key prefix is lowercase letters or digits ending in _');

// smtp://user:pass@host:587 (STARTTLS when offered) or smtps://host:465; nothing else is dialled
const smtpUrl = z.string().refine((raw) => {
  try {
    const u = new URL(raw);
    return (u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname !== '';
  } catch {
    return false;
  }
}, 'expected smtp://[user:password@]host[:port] or smtps://…');

const urlOf = (protocols: string[], message: string) =>
  z.string().refine((raw) => {
    try {
      const u = new URL(raw);
      return protocols.includes(u.protocol) && (u.hostname !== '' || u.protocol === 's3:');
    } catch {
      return false;
    }
  }, message);
const databaseUrl = urlOf(['postgres:', 'postgresql:'], 'expected postgres://user:password@host:port/database');
const blobUrl = urlOf(['s3:'], 'expected s3://bucket[/prefix]?endpoint=https://host:port&region=us-east-1');

// env variable name -> schema; the default is the raw string, parsed like any other value
const schema = {
  OBSCURA_DATA_DIR: [z.string().min(1), './data'],
  // scale-out (docs/operators.md "Many instances"): rows, queue, events and locks in PostgreSQL; blobs in S3
  OBSCURA_DATABASE_URL: [databaseUrl.optional(), undefined],
  OBSCURA_BLOB_URL: [blobUrl.optional(), undefined],
  OBSCURA_BLOB_INLINE: [bytes.refine((n) => n <= 64 * MiB, 'must be at most 64MiB: it is kept in database rows'), '128KiB'],
  OBSCURA_BLOB_CACHE: [bytes.refine((n) => n <= 4 * GiB, 'must be at most 4GiB: it is kept in memory'), '32MiB'],
  // each part in flight holds its 8 MiB of ciphertext in memory, per upload being written
  OBSCURA_BLOB_PARTS_IN_FLIGHT: [int(1, 32), '4'],
  OBSCURA_JOB_LEASE: [timer.refine((ms) => ms >= 1000, 'must be at least 1s'), '30s'],
  OBSCURA_RUN_JOBS: [bool, 'on'],
  OBSCURA_SWEEP_INTERVAL: [timer.refine((ms) => ms >= 1000, 'must be at least 1s'), '1m'],
  OBSCURA_CLEARNET_LISTEN: [listen(false), '127.0.0.1:8080'],
  OBSCURA_ONION_LISTEN: [listen(true), '127.0.0.1:8081'],
  OBSCURA_I2P_LISTEN: [listen(true), '127.0.0.1:8082'],
  // Prometheus metrics on a listener of their own (docs/operators.md "Metrics"): off unless named, loopback unless allowed
  OBSCURA_METRICS_LISTEN: [listen(false), 'off'],
  OBSCURA_METRICS_ALLOW_REMOTE: [bool, 'false'],
  OBSCURA_CLEARNET_ORIGIN: [origin.optional(), undefined],
  OBSCURA_ONION_ORIGIN: [origin.optional(), undefined],
  OBSCURA_I2P_ORIGIN: [origin.optional(), undefined],
  OBSCURA_MASTER_KEY: [z.string().optional(), undefined],
  OBSCURA_MASTER_KEY_FILE: [z.string().optional(), undefined],
  OBSCURA_KEY_PREFIX: [prefix, 'sw_'],
  OBSCURA_KEY_FORMER_PREFIXES: [
    z.string().transform((s, ctx) => {
      const list = s.split(',').map((p) => p.trim()).filter(Boolean);
      for (const p of list) {
        const r = prefix.safeParse(p);
        if (!r.success) {
          ctx.addIssue({ code: 'custom', message: `${JSON.stringify(p)}: ${r.error.issues[0].message}` }); // quoted: one line, whatever it holds
          return z.NEVER;
        }
      }
      return list;
    }),
    'obs_',
  ],
  OBSCURA_DIRECT_UPLOAD_MAX: [bytes, '100MiB'],
  OBSCURA_CHUNK_MAX: [bytes, '5MiB'],
  OBSCURA_FILE_MAX: [bytes, '2GiB'],
  OBSCURA_SESSION_LIFE: [duration, '24h'],
  OBSCURA_MEDIA_URL_LIFE: [duration, '24h'],
  // the status of v1's chunk PATCH that completes an upload: the v1 specification's 204, or 200 for old
  // v1 clients that take anything but 200 for a failure
  OBSCURA_V1_PATCH_DONE_STATUS: [z.enum(['204', '200']), '204'],
  OBSCURA_SESSION_MAX_FILES: [int(1, 1000), '20'],
  OBSCURA_SCRATCH_DIR: [z.string().min(1), '/dev/shm'],
  OBSCURA_WORKERS: [z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)]), 'auto'],
  OBSCURA_JOB_TIME_LIMIT: [timer, '15m'],
  OBSCURA_RESULT_EXPIRY_DEFAULT: [duration, '1d'],
  OBSCURA_RESULT_EXPIRY_MAX: [duration, '7d'],
  OBSCURA_MAX_PIXELS: [int(1, 1_000_000_000), '50000000'],
  OBSCURA_MAX_FRAMES: [int(1, 1_000_000), '1000'],
  OBSCURA_ANALYSE_VIDEO_FRAMES: [int(1, 1000), '12'],
  OBSCURA_MAX_VIDEO_DURATION: [duration, '1h'],
  OBSCURA_MAX_VIDEO_RESOLUTION: [z.string().regex(/^\d{2,5}x\d{2,5}$/, 'expected WIDTHxHEIGHT, such as 7680x4320'), '7680x4320'],
  // a reveal writes every hidden file into scratch (memory) before storing it
  OBSCURA_MAX_REVEAL_BYTES: [bytes.refine((n) => n >= 1, 'must be at least 1 byte'), '512MiB'],
  OBSCURA_CONVERT_CPU_BUDGET: [timer.refine((ms) => ms >= 1000, 'must be at least 1s'), '10m'],
  // memory for media work, per instance (docs/design.md "Memory budget"); auto: half the machine's memory
  OBSCURA_MEDIA_MEMORY_BUDGET: [autoOr(bytes.refine((n) => n >= 256 * MiB, 'must be at least 256MiB')), 'auto'],
  OBSCURA_MEDIA_MEMORY_PER_JOB: [autoOr(bytes.refine((n) => n >= 256 * MiB, 'must be at least 256MiB')), 'auto'],
  OBSCURA_C2PA_TRUST_ANCHORS: [z.string().optional(), undefined],
  OBSCURA_C2PA_EXTRA_TRUST_ANCHORS: [z.string().optional(), undefined],
  OBSCURA_OCR_RECYCLE_AFTER: [int(1, 100_000), '25'],
  OBSCURA_LOG_LEVEL: [z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'],
  OBSCURA_MAINTENANCE: [bool, 'off'],
  OBSCURA_MAINTENANCE_RETRY_AFTER: [int(1, 86_400), '300'],
  // abuse resistance: connections, slow bodies, rate limits (docs/api.md "Limits")
  OBSCURA_MAX_CONNECTIONS: [int(1, 1_000_000), '512'],
  OBSCURA_HEADERS_TIMEOUT: [timer, '30s'],
  OBSCURA_REQUEST_TIMEOUT: [timer, '1h'],
  OBSCURA_MIN_BODY_RATE: [bytes, '1KiB'],
  OBSCURA_MIN_BODY_RATE_WINDOW: [timer, '30s'],
  OBSCURA_MAX_UPLOADS_PER_ACCOUNT: [int(1, 10_000), '4'],
  OBSCURA_RATE_REQUESTS_PER_MINUTE: [int(1, 1_000_000_000), '600'],
  OBSCURA_RATE_JOBS_PER_HOUR: [int(1, 1_000_000_000), '60'],
  OBSCURA_RATE_UPLOAD_PER_HOUR: [bytes, '20GiB'],
  OBSCURA_RATE_VISITOR_PER_MINUTE: [int(1, 1_000_000_000), '600'],
  OBSCURA_RATE_BAD_KEYS: [int(1, 1_000_000_000), '50'],
  OBSCURA_RATE_BAD_KEYS_WINDOW: [timer, '1m'],
  OBSCURA_RATE_BAD_KEYS_BRAKE: [timer, '5m'],
  OBSCURA_ONION_PROXY_PROTOCOL: [z.enum(['required', 'off']), 'required'],
  OBSCURA_MCP_BATCH_ANSWER_MAX: [bytes.refine((n) => n >= 1024, 'must be at least 1KiB'), '256KiB'],
  // the web pages for people (docs/people.md)
  OBSCURA_SMTP_URL: [smtpUrl.optional(), undefined],
  OBSCURA_MAIL_FROM: [z.string().regex(/^[^\r\n<>]*(<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'expected an address, such as Obscura <noreply@example.org>'), 'Obscura <noreply@obscura.invalid>'],
  OBSCURA_WEB_SESSION_IDLE: [duration, '30m'],
  OBSCURA_WEB_SESSION_MAX: [duration, '12h'],
  OBSCURA_VERIFY_LINK_LIFE: [duration, '24h'],
  OBSCURA_RESET_LINK_LIFE: [duration, '30m'],
  OBSCURA_SIGN_IN_LINK_LIFE: [duration, '15m'],
  OBSCURA_UNVERIFIED_ACCOUNT_LIFE: [duration, '24h'],
  OBSCURA_SIGN_IN_FAILURES: [int(1, 1_000_000), '20'],
  OBSCURA_SIGN_IN_FAILURES_PER_VISITOR: [int(1, 1_000_000), '5'],
  OBSCURA_SIGN_IN_FAILURES_TOTAL: [int(1, 1_000_000_000), '1000'],
  OBSCURA_SIGN_IN_WINDOW: [timer, '15m'],
  OBSCURA_SIGN_UPS_PER_HOUR: [int(1, 1_000_000_000), '100'],
  OBSCURA_SIGN_UPS_PER_VISITOR: [int(1, 1_000_000), '3'],
  OBSCURA_MAIL_REQUESTS_PER_VISITOR: [int(1, 1_000_000), '5'],
  OBSCURA_MAILS_PER_ADDRESS: [int(1, 1000), '5'],
  OBSCURA_VERIFY_ATTEMPTS_PER_MINUTE: [int(1, 1_000_000_000), '10'],
  OBSCURA_VERIFY_ATTEMPTS_TOTAL: [int(1, 1_000_000_000), '300'],
  OBSCURA_WEB_SLOWDOWN: [timer, '2s'],
  OBSCURA_CLEARNET_CLIENT_HEADER: [z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'expected a header name, such as X-Forwarded-For').transform((h) => h.toLowerCase()).optional(), undefined],
} as const;

const SECRET = new Set(['OBSCURA_MASTER_KEY', 'OBSCURA_SMTP_URL', 'OBSCURA_DATABASE_URL', 'OBSCURA_BLOB_URL']);

type Schema = typeof schema;
type Raw = { [K in keyof Schema]: z.output<Schema[K][0]> };

export interface Config {
  dataDir: string;
  /** PostgreSQL for rows, the job queue, job events and locks; absent: SQLite in the data folder (never logged: it may hold a password). */
  databaseUrl?: string;
  /** An S3-compatible bucket for the encrypted blobs; absent: files in the data folder. */
  blobUrl?: string;
  /** Ciphertext a blob may keep in the database before its parts go to the object store. */
  blobInline: number;
  /** Part objects (ciphertext) an instance keeps in memory after writing or reading them. */
  blobCache: number;
  /** Parts an upload keeps being written to the bucket while the next is sealed (8 MiB of memory each). */
  blobPartsInFlight: number;
  listen: Record<Network, ListenAddress>;
  /** Where /metrics is served (off by default); a non-loopback address only with allowRemote. */
  metrics: { listen: ListenAddress; allowRemote: boolean };
  /** Origin used for every URL handed out on that network. */
  origin: Record<Network, string>;
  /** Networks whose origin the operator named (the others fall back to the listen address). */
  originSet: Record<Network, boolean>;
  /** The onion origin announced in clearnet answers' Onion-Location, when one was named. */
  onionLocation?: string;
  masterKey: { inline?: string; file: string };
  keyPrefix: { current: string; former: string[] };
  limits: {
    directUploadMax: number;
    chunkMax: number;
    fileMax: number;
    sessionLifeMs: number;
    mediaUrlLifeMs: number;
    sessionMaxFiles: number;
  };
  /** v1 for old clients: the status of the chunk PATCH that completes an upload (204 by the v1 specification). */
  v1: { patchDoneStatus: 200 | 204 };
  scratchDir: string;
  /** How often expired uploads, results, web sessions and links are destroyed. */
  sweepIntervalMs: number;
  jobs: {
    workers: number;
    timeLimitMs: number;
    leaseMs: number;
    /** off: this instance answers requests but runs no job (others do). */
    run: boolean;
    expiryDefaultMs: number;
    expiryMaxMs: number;
  };
  media: {
    maxPixels: number;
    maxFrames: number;
    maxDurationS: number;
    maxVideoWidth: number;
    maxVideoHeight: number;
    /** Frames of a video sampled for the still-image analyses. */
    analyseVideoFrames: number;
    /** Bytes a reveal may give back, all hidden files together (besides the file's capacity). */
    maxRevealBytes: number;
    /** Files a reveal may give back: as many as a hide takes. */
    maxRevealFiles: number;
  };
  /** CPU time one file's conversion may use, in ms. */
  convert: { cpuBudgetMs: number };
  /** Memory this instance's media work may hold at once, and one job of it (with the setting that sets it, named in refusals). */
  memory: { budget: number; perJob: { bytes: number; setting: string } };
  /** PEM certificates of the C2PA signers the analyse product trusts (the shipped list by default); empty: none. */
  c2paTrustAnchors: string;
  /** Recognitions a tesseract worker does before it is replaced (its memory only grows). */
  ocr: { recycleAfter: number };
  logLevel: Raw['OBSCURA_LOG_LEVEL'];
  maintenance: { on: boolean; retryAfterS: number };
  abuse: AbuseLimits;
  web: WebSettings;
  version: string;
}

/** The web pages for people: sign-in sessions, self-service sign-up and its brakes. */
export interface WebSettings {
  /** The operator's mail relay; absent: no mail is sent and sign-up is closed. Never logged (it may hold a password). */
  smtpUrl?: string;
  mailFrom: string;
  sessionIdleMs: number;
  sessionMaxMs: number;
  verifyLinkLifeMs: number;
  /** Life of a mailed password-reset link and of a mailed sign-in link (single use). */
  resetLinkLifeMs: number;
  signInLinkLifeMs: number;
  /** An account whose address was not verified within this is deleted by the sweep. */
  unverifiedAccountLifeMs: number;
  /** Failed password sign-ins per address in the window; the next password is answered 429 (a key or a mailed link still signs in). */
  signInFailures: number;
  /** Failed sign-ins per visitor (Tor circuit, I2P destination, clearnet client) in the window. */
  signInFailuresPerVisitor: number;
  /** Failed sign-ins for all together in the window, past which each sign-in is slowed down (never refused). */
  signInFailuresTotal: number;
  signInWindowMs: number;
  /** Sign-ups and mailed-link requests an hour for all together, past which each is slowed down (never refused). */
  signUpsPerHour: number;
  signUpsPerVisitor: number;
  /** Password-reset and sign-in-link requests an hour per visitor. */
  mailRequestsPerVisitor: number;
  /** Mails (sign-up, resend) one address gets an hour; reset and sign-in links: one of each per link life. */
  mailsPerAddress: number;
  /** Unknown or used mailed links a minute per visitor. */
  verifyAttemptsPerMinute: number;
  /** Unknown or used mailed links a minute for all together, past which each is slowed down. */
  verifyAttemptsTotal: number;
  /** How long a request waits once a shared threshold above is passed. */
  slowdownMs: number;
  /** The header in which the operator's clearnet proxy names the client (last value); absent: the socket's peer. */
  clearnetClientHeader?: string;
}

/** What one client may take of the service; each is a setting (docs/api.md "Limits"). */
export interface AbuseLimits {
  /** Open connections per listener; the next ones are answered 503. */
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Bytes a second a request body must keep up, measured over the window; 0: not watched. */
  minBodyRate: number;
  minBodyRateWindowMs: number;
  maxUploadsPerAccount: number;
  requestsPerMinute: number;
  jobsPerHour: number;
  uploadBytesPerHour: number;
  /** Requests a minute per Tor circuit (onion) or per I2P destination. */
  visitorPerMinute: number;
  badKeys: { limit: number; windowMs: number; brakeMs: number };
  /** Whether the onion listener requires tor's PROXY protocol v1 line (HiddenServiceExportCircuitID). */
  onionProxyProtocol: 'required' | 'off';
  /** The answers to one MCP batch together, in bytes; past it, the rest are left out with an error each. */
  mcpBatchAnswerMax: number;
}

export class ConfigError extends Error {}

/** The memory one job may reserve, and the setting that sets it (named in refusals). */
function memoryPerJob(r: Raw, budget: number): { bytes: number; setting: string } {
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, [type, fallback]] of Object.entries(schema) as unknown as [string, readonly [z.ZodType, string | undefined]][]) {
    const value = env[name] ?? fallback;
    const r = type.safeParse(value);
    if (r.success) raw[name] = r.data;
    // settings that may carry a secret are named, never shown
    else problems.push(`${SECRET.has(name) ? name : `${name}=${JSON.stringify(value)}`}: ${r.error.issues.map((i) => i.message).join('; ')}`);
  }
  const r = raw as Raw;
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
  let c2paTrustAnchors = '';
  if (!problems.length) {
    // the shipped list unless the setting replaces it ('none': no signer trusted); the extra file adds to either
    const base = r.OBSCURA_C2PA_TRUST_ANCHORS === 'none' ? '' : pemFile('OBSCURA_C2PA_TRUST_ANCHORS', r.OBSCURA_C2PA_TRUST_ANCHORS ?? SHIPPED_C2PA_TRUST_LIST, problems);
    const extra = r.OBSCURA_C2PA_EXTRA_TRUST_ANCHORS ? pemFile('OBSCURA_C2PA_EXTRA_TRUST_ANCHORS', r.OBSCURA_C2PA_EXTRA_TRUST_ANCHORS, problems) : '';
    c2paTrustAnchors = [base, extra].filter(Boolean).join('\n');
  }
  if (problems.length) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);

  const dataDir = path.resolve(r.OBSCURA_DATA_DIR);
  const budget = r.OBSCURA_MEDIA_MEMORY_BUDGET === 'auto' ? Math.floor(os.totalmem() / 2) : r.OBSCURA_MEDIA_MEMORY_BUDGET;
  const listenAddr = {
    clearnet: r.OBSCURA_CLEARNET_LISTEN,
    onion: r.OBSCURA_ONION_LISTEN,
    i2p: r.OBSCURA_I2P_LISTEN,
  };
  return {
    dataDir,
    databaseUrl: r.OBSCURA_DATABASE_URL,
    blobUrl: r.OBSCURA_BLOB_URL,
    blobInline: r.OBSCURA_BLOB_INLINE,
    blobCache: r.OBSCURA_BLOB_CACHE,
    blobPartsInFlight: r.OBSCURA_BLOB_PARTS_IN_FLIGHT,
    listen: listenAddr,
    metrics: { listen: r.OBSCURA_METRICS_LISTEN, allowRemote: r.OBSCURA_METRICS_ALLOW_REMOTE },
    origin: {
      clearnet: r.OBSCURA_CLEARNET_ORIGIN ?? defaultOrigin(listenAddr.clearnet, 8080),
      onion: r.OBSCURA_ONION_ORIGIN ?? defaultOrigin(listenAddr.onion, 8081),
      i2p: r.OBSCURA_I2P_ORIGIN ?? defaultOrigin(listenAddr.i2p, 8082),
    },
    originSet: {
      clearnet: r.OBSCURA_CLEARNET_ORIGIN !== undefined,
      onion: r.OBSCURA_ONION_ORIGIN !== undefined,
      i2p: r.OBSCURA_I2P_ORIGIN !== undefined,
    },
    onionLocation: r.OBSCURA_ONION_ORIGIN && new URL(r.OBSCURA_ONION_ORIGIN).hostname.endsWith('.onion') ? r.OBSCURA_ONION_ORIGIN : undefined,
    masterKey: {
      inline: r.OBSCURA_MASTER_KEY,
      file: path.resolve(dataDir, r.OBSCURA_MASTER_KEY_FILE ?? 'master.key'),
    },
    keyPrefix: { current: r.OBSCURA_KEY_PREFIX, former: r.OBSCURA_KEY_FORMER_PREFIXES },
    limits: {
      directUploadMax: r.OBSCURA_DIRECT_UPLOAD_MAX,
      chunkMax: r.OBSCURA_CHUNK_MAX,
      fileMax: r.OBSCURA_FILE_MAX,
      sessionLifeMs: r.OBSCURA_SESSION_LIFE,
      mediaUrlLifeMs: r.OBSCURA_MEDIA_URL_LIFE,
      sessionMaxFiles: r.OBSCURA_SESSION_MAX_FILES,
    },
    v1: { patchDoneStatus: r.OBSCURA_V1_PATCH_DONE_STATUS === '200' ? 200 : 204 },
    scratchDir: r.OBSCURA_SCRATCH_DIR,
    sweepIntervalMs: r.OBSCURA_SWEEP_INTERVAL,
    jobs: {
      workers: r.OBSCURA_WORKERS === 'auto' ? os.availableParallelism() : r.OBSCURA_WORKERS,
      timeLimitMs: r.OBSCURA_JOB_TIME_LIMIT,
      leaseMs: r.OBSCURA_JOB_LEASE,
      run: r.OBSCURA_RUN_JOBS,
      expiryDefaultMs: r.OBSCURA_RESULT_EXPIRY_DEFAULT,
      expiryMaxMs: r.OBSCURA_RESULT_EXPIRY_MAX,
    },
    media: {
      maxPixels: r.OBSCURA_MAX_PIXELS,
      maxFrames: r.OBSCURA_MAX_FRAMES,
      maxDurationS: Math.floor(r.OBSCURA_MAX_VIDEO_DURATION / 1000),
      maxVideoWidth: Number(r.OBSCURA_MAX_VIDEO_RESOLUTION.split('x')[0]),
      maxVideoHeight: Number(r.OBSCURA_MAX_VIDEO_RESOLUTION.split('x')[1]),
      analyseVideoFrames: r.OBSCURA_ANALYSE_VIDEO_FRAMES,
      maxRevealBytes: r.OBSCURA_MAX_REVEAL_BYTES,
      maxRevealFiles: r.OBSCURA_SESSION_MAX_FILES,
    },
    convert: { cpuBudgetMs: r.OBSCURA_CONVERT_CPU_BUDGET },
    memory: { budget, perJob: memoryPerJob(r, budget) },
    c2paTrustAnchors,
    ocr: { recycleAfter: r.OBSCURA_OCR_RECYCLE_AFTER },
    logLevel: r.OBSCURA_LOG_LEVEL,
    maintenance: { on: r.OBSCURA_MAINTENANCE, retryAfterS: r.OBSCURA_MAINTENANCE_RETRY_AFTER },
    abuse: {
      maxConnections: r.OBSCURA_MAX_CONNECTIONS,
      headersTimeoutMs: r.OBSCURA_HEADERS_TIMEOUT,
      requestTimeoutMs: r.OBSCURA_REQUEST_TIMEOUT,
      minBodyRate: r.OBSCURA_MIN_BODY_RATE,
      minBodyRateWindowMs: r.OBSCURA_MIN_BODY_RATE_WINDOW,
      maxUploadsPerAccount: r.OBSCURA_MAX_UPLOADS_PER_ACCOUNT,
      requestsPerMinute: r.OBSCURA_RATE_REQUESTS_PER_MINUTE,
      jobsPerHour: r.OBSCURA_RATE_JOBS_PER_HOUR,
      uploadBytesPerHour: r.OBSCURA_RATE_UPLOAD_PER_HOUR,
      visitorPerMinute: r.OBSCURA_RATE_VISITOR_PER_MINUTE,
      badKeys: { limit: r.OBSCURA_RATE_BAD_KEYS, windowMs: r.OBSCURA_RATE_BAD_KEYS_WINDOW, brakeMs: r.OBSCURA_RATE_BAD_KEYS_BRAKE },
      onionProxyProtocol: r.OBSCURA_ONION_PROXY_PROTOCOL,
      mcpBatchAnswerMax: r.OBSCURA_MCP_BATCH_ANSWER_MAX,
    },
    web: {
      smtpUrl: r.OBSCURA_SMTP_URL,
      mailFrom: r.OBSCURA_MAIL_FROM,
      sessionIdleMs: r.OBSCURA_WEB_SESSION_IDLE,
      sessionMaxMs: r.OBSCURA_WEB_SESSION_MAX,
      verifyLinkLifeMs: r.OBSCURA_VERIFY_LINK_LIFE,
      resetLinkLifeMs: r.OBSCURA_RESET_LINK_LIFE,
      signInLinkLifeMs: r.OBSCURA_SIGN_IN_LINK_LIFE,
      unverifiedAccountLifeMs: r.OBSCURA_UNVERIFIED_ACCOUNT_LIFE,
      signInFailures: r.OBSCURA_SIGN_IN_FAILURES,
      signInFailuresPerVisitor: r.OBSCURA_SIGN_IN_FAILURES_PER_VISITOR,
      signInFailuresTotal: r.OBSCURA_SIGN_IN_FAILURES_TOTAL,
      signInWindowMs: r.OBSCURA_SIGN_IN_WINDOW,
      signUpsPerHour: r.OBSCURA_SIGN_UPS_PER_HOUR,
      signUpsPerVisitor: r.OBSCURA_SIGN_UPS_PER_VISITOR,
      mailRequestsPerVisitor: r.OBSCURA_MAIL_REQUESTS_PER_VISITOR,
      mailsPerAddress: r.OBSCURA_MAILS_PER_ADDRESS,
      verifyAttemptsPerMinute: r.OBSCURA_VERIFY_ATTEMPTS_PER_MINUTE,
      verifyAttemptsTotal: r.OBSCURA_VERIFY_ATTEMPTS_TOTAL,
      slowdownMs: r.OBSCURA_WEB_SLOWDOWN,
      clearnetClientHeader: r.OBSCURA_CLEARNET_CLIENT_HEADER,
    },
    version: pkg.version,
  };
}
