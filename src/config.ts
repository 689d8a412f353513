// Every setting, from the environment, validated once at start. A bad value stops the
// process with a message that names the variable; nothing is silently coerced.
import { isIP } from 'node:net';
import os from 'node:os';
import { readFileSync } from 'node:fs';
import path from 'node:path';
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
  return { kind: 'tcp', host: m[1] ?? m[2], port };
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
  return Math.floor(Number(m[1]) * mult[unit]);
});

// "90s", "15m", "24h", "7d", or plain seconds
const duration = z.string().transform((raw, ctx) => {
  const m = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  if (!m) {
    ctx.addIssue({ code: 'custom', message: 'expected a duration such as 90s, 15m, 24h or 7d' });
    return z.NEVER;
  }
  const mult: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Number(m[1]) * mult[m[2] ?? 's'];
});

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const prefix = z.string().regex(/^[a-z][a-z0-9]{0,15}_$/, 'a key prefix is lowercase letters or digits ending in _');

// env variable name -> schema; the default is the raw string, parsed like any other value
const schema = {
  OBSCURA_DATA_DIR: [z.string().min(1), './data'],
  OBSCURA_CLEARNET_LISTEN: [listen(false), '127.0.0.1:8080'],
  OBSCURA_ONION_LISTEN: [listen(true), '127.0.0.1:8081'],
  OBSCURA_I2P_LISTEN: [listen(true), '127.0.0.1:8082'],
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
          ctx.addIssue({ code: 'custom', message: `"${p}": ${r.error.issues[0].message}` });
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
  OBSCURA_SESSION_MAX_FILES: [int(1, 1000), '20'],
  OBSCURA_SCRATCH_DIR: [z.string().min(1), '/dev/shm'],
  OBSCURA_WORKERS: [z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)]), 'auto'],
  OBSCURA_JOB_TIME_LIMIT: [duration, '15m'],
  OBSCURA_RESULT_EXPIRY_DEFAULT: [duration, '1d'],
  OBSCURA_RESULT_EXPIRY_MAX: [duration, '7d'],
  OBSCURA_MAX_PIXELS: [int(1, 1_000_000_000), '50000000'],
  OBSCURA_MAX_FRAMES: [int(1, 1_000_000), '1000'],
  OBSCURA_MAX_VIDEO_DURATION: [duration, '1h'],
  OBSCURA_MAX_VIDEO_RESOLUTION: [z.string().regex(/^\d{2,5}x\d{2,5}$/, 'expected WIDTHxHEIGHT, such as 7680x4320'), '7680x4320'],
  OBSCURA_C2PA_TRUST_ANCHORS: [z.string().optional(), undefined],
  OBSCURA_LOG_LEVEL: [z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'],
  OBSCURA_MAINTENANCE: [bool, 'off'],
  OBSCURA_MAINTENANCE_RETRY_AFTER: [int(1, 86_400), '300'],
} as const;

type Schema = typeof schema;
type Raw = { [K in keyof Schema]: z.output<Schema[K][0]> };

export interface Config {
  dataDir: string;
  listen: Record<Network, ListenAddress>;
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
  scratchDir: string;
  jobs: {
    workers: number;
    timeLimitMs: number;
    expiryDefaultMs: number;
    expiryMaxMs: number;
  };
  media: {
    maxPixels: number;
    maxFrames: number;
    maxDurationS: number;
    maxVideoWidth: number;
    maxVideoHeight: number;
  };
  /** PEM certificates of the C2PA signers the analyse product trusts; empty: none. */
  c2paTrustAnchors: string;
  logLevel: Raw['OBSCURA_LOG_LEVEL'];
  maintenance: { on: boolean; retryAfterS: number };
  version: string;
}

export class ConfigError extends Error {}

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
    else problems.push(`${name}=${JSON.stringify(value)}: ${r.error.issues.map((i) => i.message).join('; ')}`);
  }
  const r = raw as Raw;
  if (!problems.length && r.OBSCURA_MASTER_KEY !== undefined && !/^[A-Za-z0-9+/_-]{43}=?$/.test(r.OBSCURA_MASTER_KEY)) {
    problems.push('OBSCURA_MASTER_KEY: must be 32 bytes in base64 or base64url (43 characters)');
  }
  if (!problems.length && r.OBSCURA_CHUNK_MAX > r.OBSCURA_FILE_MAX) {
    problems.push('OBSCURA_CHUNK_MAX: must not exceed OBSCURA_FILE_MAX');
  }
  let c2paTrustAnchors = '';
  if (!problems.length && r.OBSCURA_C2PA_TRUST_ANCHORS) {
    try {
      c2paTrustAnchors = readFileSync(path.resolve(r.OBSCURA_C2PA_TRUST_ANCHORS), 'utf8');
      if (!c2paTrustAnchors.includes('-----BEGIN CERTIFICATE-----')) problems.push('OBSCURA_C2PA_TRUST_ANCHORS: the file holds no PEM certificate');
    } catch {
      problems.push('OBSCURA_C2PA_TRUST_ANCHORS: cannot read the file');
    }
  }
  if (problems.length) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);

  const dataDir = path.resolve(r.OBSCURA_DATA_DIR);
  const listenAddr = {
    clearnet: r.OBSCURA_CLEARNET_LISTEN,
    onion: r.OBSCURA_ONION_LISTEN,
    i2p: r.OBSCURA_I2P_LISTEN,
  };
  return {
    dataDir,
    listen: listenAddr,
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
    scratchDir: r.OBSCURA_SCRATCH_DIR,
    jobs: {
      workers: r.OBSCURA_WORKERS === 'auto' ? os.availableParallelism() : r.OBSCURA_WORKERS,
      timeLimitMs: r.OBSCURA_JOB_TIME_LIMIT,
      expiryDefaultMs: r.OBSCURA_RESULT_EXPIRY_DEFAULT,
      expiryMaxMs: r.OBSCURA_RESULT_EXPIRY_MAX,
    },
    media: {
      maxPixels: r.OBSCURA_MAX_PIXELS,
      maxFrames: r.OBSCURA_MAX_FRAMES,
      maxDurationS: Math.floor(r.OBSCURA_MAX_VIDEO_DURATION / 1000),
      maxVideoWidth: Number(r.OBSCURA_MAX_VIDEO_RESOLUTION.split('x')[0]),
      maxVideoHeight: Number(r.OBSCURA_MAX_VIDEO_RESOLUTION.split('x')[1]),
    },
    c2paTrustAnchors,
    logLevel: r.OBSCURA_LOG_LEVEL,
    maintenance: { on: r.OBSCURA_MAINTENANCE, retryAfterS: r.OBSCURA_MAINTENANCE_RETRY_AFTER },
    version: pkg.version,
  };
}
