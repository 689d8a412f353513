// tor's HiddenServiceExportCircuitID haproxy: every connection tor opens to the onion listener
// begins with one PROXY protocol v1 line, "PROXY TCP6 fc00:dead:beef:4dad::<circuit id> ::1
// <port> <port>\r\n", whose source address names the visitor's rendezvous circuit. The line is
// read off the socket before Node's HTTP parser sees a byte; the rest goes back for the parser.
// The circuit becomes an opaque tag (HMAC under a key that lives only in this process), enough
// to count requests per circuit; the id itself is never kept, logged or handed to the app.
import { createHmac, randomBytes } from 'node:crypto';
import { isIP, type Socket } from 'node:net';
import { UNNAMED_VISITOR } from '../domain/rate-limits.ts';

const SIGNATURE = Buffer.from('PROXY ');
const MAX_LINE = 107; // the v1 specification's longest line, CRLF included
// addresses of the family's characters only (no IPv6 zone), ports without leading zeros
const PORT = '(0|[1-9]\\d{0,4})';
const LINE = new RegExp(`^PROXY (?:(TCP4|TCP6) ([0-9A-Fa-f:.]+) ([0-9A-Fa-f:.]+) ${PORT} ${PORT}|UNKNOWN(?: [^\\r\\n]*)?)$`);

export type ProxyRead = { ok: true; source?: string } | { ok: false; why: 'missing' | 'malformed' | 'closed' };

const tagKey = randomBytes(32);
const circuits = new WeakMap<Socket, string>();

/** Reads the PROXY line off the socket; leaves the socket paused, with what followed it unshifted. */
export function readProxyHeader(socket: Socket): Promise<ProxyRead> {
  return new Promise((resolve) => {
    let seen: Buffer = Buffer.alloc(0);
    const done = (r: ProxyRead) => {
      socket.removeListener('data', onData);
      socket.removeListener('end', onEnd);
      socket.removeListener('close', onEnd);
      resolve(r);
    };
    const onEnd = () => done({ ok: false, why: 'closed' });
    const onData = (chunk: Buffer) => {
      seen = seen.length ? Buffer.concat([seen, chunk]) : chunk;
      const head = Math.min(seen.length, SIGNATURE.length);
      if (!seen.subarray(0, head).equals(SIGNATURE.subarray(0, head))) return done({ ok: false, why: 'missing' });
      // the line ends within MAX_LINE bytes, however the bytes came in (one chunk or many)
      const end = seen.subarray(0, MAX_LINE).indexOf('\r\n');
      if (end < 0) {
        if (seen.length >= MAX_LINE) done({ ok: false, why: 'malformed' });
        return;
      }
      socket.pause();
      const source = parseProxyLine(seen.subarray(0, end).toString('latin1'));
      if (source === null) return done({ ok: false, why: 'malformed' });
      const rest = seen.subarray(end + 2);
      if (rest.length) socket.unshift(rest);
      done({ ok: true, source });
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
  });
}

/** The source address of a PROXY v1 line; undefined for UNKNOWN; null if the line is not one. */
export function parseProxyLine(line: string): string | undefined | null {
  const m = LINE.exec(line);
  if (!m) return null;
  if (!m[1]) return undefined; // UNKNOWN: a valid line that names no source
  const family = m[1] === 'TCP4' ? 4 : 6;
  if (isIP(m[2]) !== family || isIP(m[3]) !== family || Number(m[4]) > 65535 || Number(m[5]) > 65535) return null;
  return m[2];
}

/**
 * Remembers the circuit of a connection, as an opaque tag only. A line that names none
 * (`PROXY UNKNOWN`, which tor never sends: a local process) gets the one shared tag of all
 * such, so that its requests are still counted, together, under the per-visitor limit.
 */
export function tagCircuit(socket: Socket, source: string | undefined): void {
  circuits.set(socket, source === undefined ? UNNAMED_VISITOR : createHmac('sha256', tagKey).update(source).digest('base64url').slice(0, 22));
}

/** The opaque tag of the Tor circuit a connection came over, or undefined (no PROXY line read). */
export function circuitTag(socket: Socket | null | undefined): string | undefined {
  return socket ? circuits.get(socket) : undefined;
}
