// Fuzzing tor's PROXY protocol v1 line, as the onion listener reads it. Generated and mutated
// lines (TCP4, TCP6, UNKNOWN; long ones, ones without their CRLF, noise), each followed by
// what a connection sends next and cut into chunks at arbitrary points, go over real loopback
// sockets: 10,000 to the reader itself, each read exactly as the specification reads it (the
// same source address and the same bytes after it) or refused, never taken past 107 bytes; and
// 1,000 to the real service's onion listener, each served or refused with the JSON the spec's
// reading calls for.
import assert from 'node:assert/strict';
import net, { type Socket } from 'node:net';
import fc from 'fast-check';
import { test } from './helpers/test.ts';
import { RUNS, SEED, settings } from './helpers/fuzz.ts';
import { after, chunked, cuts, MAX_LINE, proxyLine, specRead } from './helpers/fuzz-proxy.ts';
import { rawConnection } from './helpers/raw-http.ts';
import { startService } from './helpers/service.ts';
import { readProxyHeader } from '../src/http/proxy-protocol.ts';

const LANES = 4;
const STATUS = 'GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n';

async function inLanes<T>(runs: number, arb: fc.Arbitrary<T>, run: (input: T) => Promise<void>, examples: [T][] = []): Promise<void> {
  await Promise.all(
    Array.from({ length: LANES }, (_, lane) =>
      fc.assert(fc.asyncProperty(arb, run), settings<[T]>({ numRuns: runs / LANES, seed: SEED + lane, examples: lane === 0 ? examples : [] })),
    ),
  );
}

const tick = () => new Promise((r) => setImmediate(r));

/** Until the server side has read `n` bytes: each chunk arrives as a chunk of its own. */
async function arrived(socket: Socket, n: number): Promise<void> {
  while (socket.bytesRead < n && !socket.destroyed) await tick();
}

function readAll(socket: Socket): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    socket.on('data', (c: Buffer) => parts.push(c));
    socket.once('end', () => resolve(Buffer.concat(parts)));
    socket.once('close', () => resolve(Buffer.concat(parts)));
    socket.resume();
  });
}

const input = fc.record({ line: proxyLine, after, cuts });
type Input = { line: string; after: string; cuts: number[] };
// the finding: a 5,000-byte line arriving in one chunk was taken
const longInOneChunk: Input = { line: `PROXY UNKNOWN ${'x'.repeat(5000)}\r\n`, after: STATUS, cuts: [] };

test.serial('the PROXY reader, 10,000 generated lines in arbitrary chunks over real sockets: each read exactly as the spec reads it, or refused; never a line over 107 bytes', async (t) => {
  // the server's side of each connection, by the client's port: lanes connect at once
  const arrivals = new Map<number, Socket>();
  const server = net.createServer((s) => {
    s.on('error', () => {});
    arrivals.set(s.remotePort!, s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const counts = new Map<string, number>();

  await inLanes<Input>(RUNS, input, async ({ line, after: next, cuts: at }) => {
    const bytes = Buffer.from(line + next, 'latin1');
    const expected = specRead(bytes);
    const client = net.connect({ port, host: '127.0.0.1', noDelay: true });
    client.on('error', () => {});
    await new Promise((r) => client.once('connect', r));
    while (!arrivals.has(client.localPort!)) await tick();
    const socket = arrivals.get(client.localPort!)!;
    arrivals.delete(client.localPort!);
    try {
      const read = readProxyHeader(socket);
      let sent = 0;
      for (const chunk of chunked(bytes, at)) {
        client.write(chunk);
        sent += chunk.length;
        await arrived(socket, sent);
      }
      client.end();
      const r = await read;
      const what = () => `${JSON.stringify(bytes.toString('latin1').slice(0, 300))} (${bytes.length} bytes) cut at ${JSON.stringify(at)}: read ${JSON.stringify(r)}, the spec ${JSON.stringify(expected, (k, v) => (k === 'rest' ? undefined : v))}`;
      if (r.ok) {
        assert.ok(bytes.indexOf('\r\n') + 2 <= MAX_LINE, `taken past ${MAX_LINE} bytes: ${what()}`);
        assert.ok(expected.ok, what());
        assert.equal(r.source, expected.source, what());
        const rest = await readAll(socket);
        assert.equal(rest.toString('latin1'), expected.rest.toString('latin1'), `the bytes after the line: ${what()}`);
        counts.set(expected.source === undefined ? 'UNKNOWN' : 'address', (counts.get(expected.source === undefined ? 'UNKNOWN' : 'address') ?? 0) + 1);
      } else {
        assert.ok(!expected.ok && expected.why === r.why, what());
        counts.set(r.why, (counts.get(r.why) ?? 0) + 1);
      }
    } finally {
      client.destroy();
      socket.destroy();
    }
  }, [[longInOneChunk]]);
  t.log([...counts].map(([k, n]) => `${k} ×${n}`).join(', '));
  t.true((counts.get('address') ?? 0) > 0 && (counts.get('UNKNOWN') ?? 0) > 0 && (counts.get('malformed') ?? 0) > 0, 'lines of every kind were read and refused');
});

test.serial("the onion listener, 1,000 generated lines in chunks before a request: served when the spec reads a line, refused with the listener's JSON otherwise", async (t) => {
  const svc = await startService({ OBSCURA_ONION_PROXY_PROTOCOL: 'required', OBSCURA_RATE_VISITOR_PER_MINUTE: '1000000000', OBSCURA_LOG_LEVEL: 'warn' });
  t.teardown(() => svc.close());
  const counts = new Map<string, number>();
  await inLanes<Input>(RUNS / 10, input, async ({ line, cuts: at }) => {
    const bytes = Buffer.from(line + STATUS, 'latin1');
    const expected = specRead(bytes);
    const c = await rawConnection(svc.url.onion);
    try {
      for (const chunk of chunked(bytes, at)) {
        c.write(chunk);
        await tick();
      }
      const what = (a: unknown) => `${JSON.stringify(line.slice(0, 300))} (${line.length} bytes) cut at ${JSON.stringify(at)}: ${JSON.stringify(a)}, the spec ${JSON.stringify(expected)}`;
      if (!expected.ok && expected.why === 'closed') {
        c.socket.end();
        await c.closed();
        return;
      }
      const a = await c.answer();
      const outcome = expected.ok ? (expected.rest.toString('latin1') === STATUS ? [200, undefined] : [400, 'bad_request']) : [400, expected.why === 'missing' ? 'proxy_header_required' : 'invalid_proxy_header'];
      assert.equal(a.status, outcome[0], what(a.body));
      assert.equal(a.json?.error, outcome[1], what(a.body));
      counts.set(`${a.status} ${a.json?.error ?? ''}`, (counts.get(`${a.status} ${a.json?.error ?? ''}`) ?? 0) + 1);
    } finally {
      c.close();
    }
  }, [[longInOneChunk]]);
  t.log([...counts].map(([k, n]) => `${k} ×${n}`).join(', '));
  t.true((counts.get('200 ') ?? 0) > 0 && (counts.get('400 invalid_proxy_header') ?? 0) > 0, 'some were served, some refused');
  const status = await fetch(`${svc.url.clearnet}/api/status`);
  t.is(status.status, 200, 'the service still answers');
});
