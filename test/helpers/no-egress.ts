// Loaded before every test file (ava "require") and into every server process the tests
// spawn (NODE_OPTIONS=--import): any attempt to open a connection to a non-loopback
// address is refused on the spot and recorded, and the test during which it happened fails.
import net from 'node:net';
import dgram from 'node:dgram';

const violations: string[] = [];
const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost']);

export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined || host === '') return true; // Node's default is localhost
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK_NAMES.has(h)) return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

function blocked(what: string): Error {
  violations.push(what);
  const err = new Error(`egress blocked by the test guard: ${what}`) as NodeJS.ErrnoException;
  err.code = 'EGRESS_BLOCKED';
  return err;
}

const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
  const first = args[0];
  let host: string | undefined;
  let isPipe = false;
  if (Array.isArray(first)) {
    // internal normalized form: [options, cb]
    const o = first[0] as net.NetConnectOpts & { path?: string; host?: string };
    isPipe = typeof o?.path === 'string';
    host = o?.host;
  } else if (first && typeof first === 'object') {
    const o = first as { path?: string; host?: string };
    isPipe = typeof o.path === 'string';
    host = o.host;
  } else if (typeof first === 'string' && !/^\d+$/.test(first)) {
    isPipe = true; // connect(path)
  } else {
    host = typeof args[1] === 'string' ? (args[1] as string) : undefined;
  }
  if (!isPipe && !isLoopbackHost(host)) throw blocked(`tcp connect to ${host}`);
  return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;

const originalSend = dgram.Socket.prototype.send;
dgram.Socket.prototype.send = function guardedSend(this: dgram.Socket, ...args: unknown[]) {
  const host = args.find((a, i) => i > 0 && typeof a === 'string') as string | undefined;
  if (!isLoopbackHost(host)) throw blocked(`udp send to ${host}`);
  return (originalSend as (...a: unknown[]) => void).apply(this, args);
} as typeof dgram.Socket.prototype.send;

/** Takes (and clears) what was blocked since the last call. */
export function takeEgressViolations(): string[] {
  return violations.splice(0);
}
