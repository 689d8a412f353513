// The parsers settings are written with: each takes the variable's raw string and gives the value
// the service uses, or a message saying what was expected.
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

export type ListenAddress =
  | { kind: 'off' }
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'unix'; path: string };

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

export function isLoopback(host: string): boolean {
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

export const listen = (loopbackOnly: boolean) =>
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

export const origin = z
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

export const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

// "5MiB", "200MB", "1048576"
export const bytes = z.string().transform((raw, ctx) => {
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
export const autoOr = <T extends z.ZodType>(type: T) => z.union([z.literal('auto'), type]);

/** The longest duration taken: 100 years, so that now plus it is still a date. */
const DURATION_MAX_MS = 36_500 * 86_400_000;
/** The longest delay a Node timer holds (about 24.8 days): past it, the timer fires at once. */
const TIMER_MAX_MS = 2 ** 31 - 1;

// "90s", "15m", "24h", "7d", or plain seconds
export const duration = z.string().transform((raw, ctx) => {
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
export const timer = duration.refine((ms) => ms <= TIMER_MAX_MS, 'must be at most 24d: it is a timer, and a longer one fires at once');

export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
export const prefix = z.string().regex(/^[a-z][a-z0-9]{0,15}_$/, 'a key prefix is lowercase letters or digits ending in _');

/** Comma-separated key prefixes, each checked as a prefix. */
export const prefixes = z.string().transform((s, ctx) => {
  const list = s.split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of list) {
    const r = prefix.safeParse(p);
    if (!r.success) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(p)}: ${r.error.issues[0].message}` }); // quoted: one line, whatever it holds
      return z.NEVER;
    }
  }
  return list;
});

// smtp://user:pass@host:587 (STARTTLS when offered) or smtps://host:465; nothing else is dialled
export const smtpUrl = z.string().refine((raw) => {
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
export const databaseUrl = urlOf(['postgres:', 'postgresql:'], 'expected postgres://user:password@host:port/database');
export const blobUrl = urlOf(['s3:'], 'expected s3://bucket[/prefix]?endpoint=https://host:port&region=us-east-1');
