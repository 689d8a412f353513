// Abuse resistance, findings 2 and 7: what the listeners themselves answer, before any app
// runs, on the real service. A full listener answers the next connection 503 JSON with
// Retry-After and serves again once others close; answers Node writes for requests it cannot
// parse (400, 431) carry the security headers; the onion listener reads tor's PROXY line (and,
// when required, refuses a connection without one).
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { rawConnection, type RawAnswer, type RawConnection } from './helpers/raw-http.ts';
import { until } from './helpers/until.ts';
import { SECURITY_HEADERS } from '../src/http/middleware/security-headers.ts';
import { loadConfig } from '../src/config.ts';

function assertSecurityHeaders(t: any, a: RawAnswer) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) t.is(a.headers[name.toLowerCase()], value, `${a.status} carries ${name}`);
  t.is(a.headers['content-type'], 'application/json; charset=utf-8');
}

const STATUS = 'GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n';

test('a listener with 3 connections open answers the 4th 503 too_many_connections with Retry-After; /api/status answers again once one closes; other listeners are not affected', async (t) => {
  const svc = await startService({ OBSCURA_MAX_CONNECTIONS: '3' });
  t.teardown(() => svc.close());
  const idle: RawConnection[] = [];
  t.teardown(() => idle.forEach((c) => c.close()));
  for (let i = 0; i < 3; i++) idle.push(await rawConnection(svc.url.clearnet)); // open, saying nothing

  const extra = await rawConnection(svc.url.clearnet);
  extra.write(STATUS);
  const busy = await extra.answer();
  t.is(busy.status, 503, busy.body);
  t.is(busy.json.error, 'too_many_connections');
  t.regex(busy.json.message, /3 connections open/);
  t.is(busy.headers['retry-after'], '5');
  t.is(busy.headers.connection, 'close');
  assertSecurityHeaders(t, busy);
  await extra.closed(); // the server closes a refused connection itself

  const onion = await fetch(`${svc.url.onion}/api/status`);
  t.is(onion.status, 200, 'the cap is per listener');

  idle.shift()!.close();
  const served = await until('/api/status served once a connection closed', 10_000, async () => {
    const c = await rawConnection(svc.url.clearnet);
    c.write(STATUS);
    const a = await c.answer();
    c.close();
    return a.status === 200 ? a : undefined;
  }, 50);
  t.is(served.json.status, 'UP');
});

test("Node's own 400 and 431 answers are JSON with every security header", async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const bad = await rawConnection(svc.url.clearnet);
  bad.write('NOT HTTP AT ALL\r\n\r\n');
  const a400 = await bad.answer();
  t.is(a400.status, 400);
  t.is(a400.json.error, 'bad_request');
  assertSecurityHeaders(t, a400);

  const big = await rawConnection(svc.url.clearnet);
  big.write(`GET /api/status HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
  const a431 = await big.answer();
  t.is(a431.status, 431);
  t.is(a431.json.error, 'headers_too_large');
  assertSecurityHeaders(t, a431);
});

test('the onion listener with OBSCURA_ONION_PROXY_PROTOCOL=required reads the PROXY line (whole or in pieces) and refuses a connection without one, clearly', async (t) => {
  const svc = await startService({ OBSCURA_ONION_PROXY_PROTOCOL: 'required' });
  t.teardown(() => svc.close());
  const line = 'PROXY TCP6 fc00:dead:beef:4dad::1:2a ::1 42 80\r\n';

  const whole = await rawConnection(svc.url.onion);
  whole.write(line + STATUS);
  const a = await whole.answer();
  whole.close();
  t.is(a.status, 200, a.body);

  const pieces = await rawConnection(svc.url.onion);
  for (const part of [line.slice(0, 3), line.slice(3, 30), line.slice(30) + STATUS.slice(0, 10), STATUS.slice(10)]) {
    pieces.write(part);
    await new Promise((r) => setImmediate(r));
  }
  const b = await pieces.answer();
  pieces.close();
  t.is(b.status, 200, b.body);

  const none = await rawConnection(svc.url.onion);
  none.write(STATUS);
  const c = await none.answer();
  t.is(c.status, 400);
  t.is(c.json.error, 'proxy_header_required');
  t.regex(c.json.message, /OBSCURA_ONION_PROXY_PROTOCOL=off/);
  assertSecurityHeaders(t, c);

  const garbled = await rawConnection(svc.url.onion);
  garbled.write('PROXY TCP6 not-an-address ::1 42 80\r\n' + STATUS);
  const d = await garbled.answer();
  t.is(d.status, 400);
  t.is(d.json.error, 'invalid_proxy_header');

  // the protocol's longest line is 107 bytes, CRLF included, however the bytes arrive
  for (const long of [`PROXY UNKNOWN ${'x'.repeat(5000)}\r\n`, `PROXY UNKNOWN ${'x'.repeat(92)}\r\n`]) {
    const c = await rawConnection(svc.url.onion);
    c.write(long + STATUS);
    const e = await c.answer();
    t.is(e.status, 400, `a ${long.length}-byte line in one chunk: ${e.body}`);
    t.is(e.json.error, 'invalid_proxy_header');
  }
  const longest = await rawConnection(svc.url.onion);
  longest.write(`PROXY UNKNOWN ${'x'.repeat(91)}\r\n${STATUS}`);
  const f = await longest.answer();
  longest.close();
  t.is(f.status, 200, 'a line of exactly 107 bytes is taken');

  // only the onion listener reads it: elsewhere a PROXY line is just a malformed request
  const clear = await rawConnection(svc.url.clearnet);
  clear.write(line + STATUS);
  t.is((await clear.answer()).status, 400);
  t.false(svc.logs.some((l) => l.includes('fc00:dead') || l.includes('4dad')), 'no circuit address in the logs');
  // refusals are counted in the log (a line at most a minute), never described
  const counted = await until('the refusals counted in the log', 10_000, () => svc.logs.find((l) => l.includes('connections refused')));
  t.regex(counted, /"network":"onion".*"no_proxy_header":[1-4]\b/);
});

test('the limits are settings with safe defaults, parsed like the other sizes and durations, and a bad one stops the start naming it', (t) => {
  const d = loadConfig({}).abuse;
  t.deepEqual(d, {
    maxConnections: 512,
    headersTimeoutMs: 30_000,
    requestTimeoutMs: 3_600_000,
    minBodyRate: 1024,
    minBodyRateWindowMs: 30_000,
    maxUploadsPerAccount: 4,
    requestsPerMinute: 600,
    jobsPerHour: 60,
    uploadBytesPerHour: 20 * 1024 ** 3,
    visitorPerMinute: 600,
    badKeys: { limit: 50, windowMs: 60_000, brakeMs: 300_000 },
    onionProxyProtocol: 'required',
    mcpBatchAnswerMax: 256 * 1024,
  });
  const c = loadConfig({ OBSCURA_MIN_BODY_RATE: '4KiB', OBSCURA_MIN_BODY_RATE_WINDOW: '2m', OBSCURA_RATE_UPLOAD_PER_HOUR: '1GB', OBSCURA_ONION_PROXY_PROTOCOL: 'off' }).abuse;
  t.is(c.minBodyRate, 4096);
  t.is(c.minBodyRateWindowMs, 120_000);
  t.is(c.uploadBytesPerHour, 1e9);
  t.is(c.onionProxyProtocol, 'off');
  t.throws(() => loadConfig({ OBSCURA_ONION_PROXY_PROTOCOL: 'maybe' }), { message: /OBSCURA_ONION_PROXY_PROTOCOL/ });
  t.throws(() => loadConfig({ OBSCURA_MAX_CONNECTIONS: '0' }), { message: /OBSCURA_MAX_CONNECTIONS/ });
  t.throws(() => loadConfig({ OBSCURA_REQUEST_TIMEOUT: '20s' }), { message: /OBSCURA_REQUEST_TIMEOUT: must be longer than OBSCURA_HEADERS_TIMEOUT/ });
  t.throws(() => loadConfig({ OBSCURA_MIN_BODY_RATE_WINDOW: '0s' }), { message: /OBSCURA_MIN_BODY_RATE_WINDOW: must be at least 1s/ });
  t.throws(() => loadConfig({ OBSCURA_RATE_BAD_KEYS_BRAKE: 'soon' }), { message: /OBSCURA_RATE_BAD_KEYS_BRAKE/ });
  t.is(loadConfig({ OBSCURA_MCP_BATCH_ANSWER_MAX: '1MiB' }).abuse.mcpBatchAnswerMax, 1024 * 1024);
  t.throws(() => loadConfig({ OBSCURA_MCP_BATCH_ANSWER_MAX: '100B' }), { message: /OBSCURA_MCP_BATCH_ANSWER_MAX="100B": must be at least 1KiB/ });
});
