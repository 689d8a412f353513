// Inputs for fuzzing the PROXY protocol v1 reader: lines tor and haproxy write (TCP4, TCP6,
// UNKNOWN), the same mutated (characters inserted, dropped, replaced; fields padded with
// leading zeros; long runs that take a line past 107 bytes), and raw noise; each followed by
// what a connection sends next, and cut into chunks at arbitrary points. Beside them, the
// specification's reading of a connection's first bytes, written here on its own from the
// text of the spec (haproxy's proxy-protocol.txt, section 2.1), for the tests to compare with.
import fc from 'fast-check';

/** The v1 specification's longest line, CRLF included. */
export const MAX_LINE = 107;

export type SpecRead =
  | { ok: true; source?: string; rest: Buffer }
  /** `missing`: not a PROXY line; `malformed`: one that breaks the spec; `closed`: the bytes ended first. */
  | { ok: false; why: 'missing' | 'malformed' | 'closed' };

const SIGNATURE = 'PROXY ';

function ipv4(a: string): boolean {
  const parts = a.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

function ipv6(a: string): boolean {
  // the WHATWG URL parser's IPv6 reading, a parser other than the service's (net.isIP)
  if (!/^[0-9A-Fa-f:.]+$/.test(a)) return false;
  try {
    new URL(`http://[${a}]/`);
    return true;
  } catch {
    return false;
  }
}

const port = (p: string) => /^(0|[1-9][0-9]{0,4})$/.test(p) && Number(p) <= 65535;

/** One line (without its CRLF) as the spec reads it: the source address, undefined for UNKNOWN, or null. */
export function specLine(line: string): { source?: string } | null {
  if (!line.startsWith(SIGNATURE)) return null;
  const rest = line.slice(SIGNATURE.length);
  // "UNKNOWN", optionally followed by anything up to the CRLF, which the receiver ignores
  if (rest === 'UNKNOWN' || rest.startsWith('UNKNOWN ')) return /[\r\n]/.test(rest) ? null : {};
  const f = rest.split(' ');
  if (f.length !== 5) return null;
  const [family, src, dst, sport, dport] = f;
  const address = family === 'TCP4' ? ipv4 : family === 'TCP6' ? ipv6 : undefined;
  if (!address || !address(src) || !address(dst) || !port(sport) || !port(dport)) return null;
  return { source: src };
}

/** What the spec makes of a connection's first bytes, however they are cut into chunks. */
export function specRead(bytes: Buffer): SpecRead {
  const head = Math.min(bytes.length, SIGNATURE.length);
  if (bytes.subarray(0, head).toString('latin1') !== SIGNATURE.slice(0, head)) return { ok: false, why: 'missing' };
  const end = bytes.subarray(0, MAX_LINE).indexOf('\r\n');
  if (end < 0) return { ok: false, why: bytes.length >= MAX_LINE ? 'malformed' : 'closed' };
  const read = specLine(bytes.subarray(0, end).toString('latin1'));
  return read ? { ok: true, ...read, rest: bytes.subarray(end + 2) } : { ok: false, why: 'malformed' };
}

const portText = fc.nat({ max: 65535 }).map(String);
const valid: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.ipV4(), fc.ipV4(), portText, portText).map(([a, b, p, q]) => `PROXY TCP4 ${a} ${b} ${p} ${q}`),
  fc.tuple(fc.ipV6(), fc.ipV6(), portText, portText).map(([a, b, p, q]) => `PROXY TCP6 ${a} ${b} ${p} ${q}`),
  // what tor writes: the circuit id in the last 32 bits of fc00:dead:beef:4dad::/64
  fc.tuple(fc.nat({ max: 0xffff }), fc.nat({ max: 0xffff }), portText).map(([hi, lo, p]) => `PROXY TCP6 fc00:dead:beef:4dad::${hi.toString(16)}:${lo.toString(16)} ::1 ${p} 80`),
  fc.constant('PROXY UNKNOWN'),
  fc.string({ unit: 'binary-ascii', maxLength: 120 }).map((s) => `PROXY UNKNOWN ${s}`),
);

const ODD = ['\r', '\n', '\r\n', ' ', '  ', '\t', ':', '.', '%', '%eth0', '0', '00', '65536', '99999', '-1', '+1', 'x', '\0', '\xff', 'PROXY ', 'TCP4', 'TCP6', 'UNKNOWN'];
const piece = fc.oneof(fc.constantFrom(...ODD), fc.string({ unit: 'binary-ascii', maxLength: 8 }));

type Edit = { op: 'insert'; at: number; text: string } | { op: 'drop'; at: number; len: number } | { op: 'set'; at: number; text: string } | { op: 'pad'; at: number; char: string; times: number };
const at = fc.nat({ max: 1 << 16 }); // taken modulo the current length
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), at, text: piece }),
  fc.record({ op: fc.constant('drop' as const), at, len: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant('set' as const), at, text: piece }),
  // a run long enough to take the line to, just past, or far past 107 bytes
  fc.record({ op: fc.constant('pad' as const), at, char: fc.constantFrom('0', 'x', ' ', ':', 'a'), times: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.constantFrom(5000)) }),
);

function applyEdit(line: string, e: Edit): string {
  const i = line.length ? e.at % (line.length + 1) : 0;
  switch (e.op) {
    case 'insert':
      return line.slice(0, i) + e.text + line.slice(i);
    case 'drop':
      return line.slice(0, i) + line.slice(i + e.len);
    case 'set':
      return line.slice(0, i) + e.text + line.slice(i + e.text.length);
    case 'pad':
      return line.slice(0, i) + e.char.repeat(e.times) + line.slice(i);
  }
}

/** A PROXY line, whole or damaged, with its CRLF (or not); latin1 text. */
export const proxyLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: valid.map((l) => `${l}\r\n`) },
  { weight: 6, arbitrary: fc.tuple(valid, fc.array(edit, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([l, edits, crlf]) => edits.reduce(applyEdit, l) + (crlf ? '\r\n' : '')) },
  // an UNKNOWN line around the limit: 105 to 109 bytes with its CRLF
  { weight: 1, arbitrary: fc.integer({ min: 105 - 16, max: 109 - 16 }).map((n) => `PROXY UNKNOWN ${'u'.repeat(n)}\r\n`) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 200 }) },
);

/** What the connection sends after the line: a request, other bytes, or nothing. */
export const after: fc.Arbitrary<string> = fc.oneof(
  fc.constant('GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n'),
  fc.string({ unit: 'binary-ascii', maxLength: 64 }),
  fc.constant(''),
);

/** Where to cut the bytes into chunks: offsets, taken modulo the length. */
export const cuts: fc.Arbitrary<number[]> = fc.array(fc.nat({ max: 1 << 16 }), { maxLength: 6 });

export function chunked(bytes: Buffer, offsets: number[]): Buffer[] {
  const at = [...new Set(offsets.map((o) => (bytes.length ? o % bytes.length : 0)).filter((o) => o > 0))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const o of [...at, bytes.length]) {
    if (o > from) out.push(bytes.subarray(from, o));
    from = o;
  }
  return out;
}
