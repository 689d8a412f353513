// Fuzzing loadConfig over generated environments: any set of OBSCURA_* values gives either a
// Config the service can run with (numbers that are numbers, dates that are dates, timers a
// timer can hold, origins that parse), or a ConfigError each of whose lines names a variable
// that was set. Never another exception, and never a hang (reading a trust-anchor file).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { test } from './helpers/test.ts';
import { settings } from './helpers/fuzz.ts';
import { ConfigError, NETWORKS, loadConfig, type Config } from '../src/config.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-fuzz-config-'));
test.after.always(() => import('node:fs').then((fs) => fs.rmSync(dir, { recursive: true, force: true })));
const pem = path.join(dir, 'anchors.pem');
writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
const notPem = path.join(dir, 'notes.txt');
writeFileSync(notPem, 'no certificate here');

/** Longest delay a Node timer holds; past it the timer fires at once. */
const TIMER_MAX = 2 ** 31 - 1;

// Values each variable's parser is built for, to mutate: the fuzzer starts from what works.
const VALID: Record<string, string[]> = {
  OBSCURA_DATA_DIR: ['./data', '/var/lib/obscura', 'data dir'],
  OBSCURA_CLEARNET_LISTEN: ['127.0.0.1:8080', '0.0.0.0:80', '[::1]:8080', 'localhost:0', 'example.org:443', 'unix:/run/obscura.sock', 'off'],
  OBSCURA_ONION_LISTEN: ['127.0.0.1:8081', '[::1]:9000', 'localhost:8081', 'unix:/run/onion.sock', 'off'],
  OBSCURA_I2P_LISTEN: ['127.0.0.1:8082', '127.1.2.3:1', 'unix:/tmp/i2p.sock', 'off'],
  OBSCURA_CLEARNET_ORIGIN: ['https://media.example.org', 'http://127.0.0.1:8080', 'http://[::1]:8080'],
  OBSCURA_ONION_ORIGIN: [`http://${'a'.repeat(56)}.onion`, 'http://127.0.0.1:8081'],
  OBSCURA_I2P_ORIGIN: [`http://${'b'.repeat(52)}.b32.i2p`],
  OBSCURA_MASTER_KEY: ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'abcdefghijklmnopqrstuvwxyz0123456789_-ABCDE'],
  OBSCURA_MASTER_KEY_FILE: ['master.key', '/etc/obscura/master.key'],
  OBSCURA_KEY_PREFIX: ['sw_', 'obs2_', 'a_'],
  OBSCURA_KEY_FORMER_PREFIXES: ['obs_', 'obs_,old_', '', ' a_ , b_ '],
  OBSCURA_DIRECT_UPLOAD_MAX: ['100MiB', '1048576', '1.5GB', '0B', ' 5 KiB '],
  OBSCURA_CHUNK_MAX: ['5MiB', '5242880', '512KiB'],
  OBSCURA_FILE_MAX: ['2GiB', '10GB', '2147483648'],
  OBSCURA_SESSION_LIFE: ['24h', '90s', '7d', '86400'],
  OBSCURA_MEDIA_URL_LIFE: ['24h', '15m', '1d'],
  OBSCURA_V1_PATCH_DONE_STATUS: ['204', '200'],
  OBSCURA_SESSION_MAX_FILES: ['20', '1', '1000'],
  OBSCURA_SCRATCH_DIR: ['/dev/shm', '/tmp/scratch'],
  OBSCURA_WORKERS: ['auto', '1', '64'],
  OBSCURA_JOB_TIME_LIMIT: ['15m', '1h', '24d', '500ms'],
  OBSCURA_RESULT_EXPIRY_DEFAULT: ['1d', '10m'],
  OBSCURA_RESULT_EXPIRY_MAX: ['7d', '30d'],
  OBSCURA_MAX_PIXELS: ['50000000', '1', '1000000000'],
  OBSCURA_MAX_FRAMES: ['1000', '1000000'],
  OBSCURA_ANALYSE_VIDEO_FRAMES: ['12', '1', '1000'],
  OBSCURA_MAX_VIDEO_DURATION: ['1h', '3600', '2d'],
  OBSCURA_MAX_VIDEO_RESOLUTION: ['7680x4320', '10x10', '99999x99999'],
  OBSCURA_OCR_RECYCLE_AFTER: ['25', '1', '100000'],
  OBSCURA_MAX_REVEAL_BYTES: ['512MiB', '1', '8GiB'],
  OBSCURA_C2PA_TRUST_ANCHORS: [pem, notPem, path.join(dir, 'missing.pem'), dir, '/dev/null', '/dev/zero'],
  OBSCURA_C2PA_EXTRA_TRUST_ANCHORS: [pem, notPem, path.join(dir, 'missing.pem'), dir, '/dev/zero'],
  OBSCURA_LOG_LEVEL: ['info', 'silent', 'trace'],
  OBSCURA_MAINTENANCE: ['off', 'on', 'true', '0'],
  OBSCURA_MAINTENANCE_RETRY_AFTER: ['300', '1', '86400'],
  // abuse resistance (docs/api.md "Limits")
  OBSCURA_CONVERT_CPU_BUDGET: ['2m', '1s'],
  OBSCURA_MAX_CONNECTIONS: ['512', '1'],
  OBSCURA_HEADERS_TIMEOUT: ['30s', '1s'],
  OBSCURA_REQUEST_TIMEOUT: ['1h', '31s'],
  OBSCURA_MIN_BODY_RATE: ['1KiB', '0'],
  OBSCURA_MIN_BODY_RATE_WINDOW: ['30s'],
  OBSCURA_MAX_UPLOADS_PER_ACCOUNT: ['4', '10000'],
  OBSCURA_RATE_REQUESTS_PER_MINUTE: ['600'],
  OBSCURA_RATE_JOBS_PER_HOUR: ['60'],
  OBSCURA_RATE_UPLOAD_PER_HOUR: ['20GiB', '1B'],
  OBSCURA_RATE_VISITOR_PER_MINUTE: ['600'],
  OBSCURA_RATE_BAD_KEYS: ['50'],
  OBSCURA_RATE_BAD_KEYS_WINDOW: ['1m'],
  OBSCURA_RATE_BAD_KEYS_BRAKE: ['5m'],
  OBSCURA_ONION_PROXY_PROTOCOL: ['required', 'off'],
  // the operator's metrics (docs/operators.md "Metrics"): loopback or a unix socket unless allowed
  OBSCURA_METRICS_LISTEN: ['off', '127.0.0.1:9464', '[::1]:9464', 'localhost:0', 'unix:/run/obscura/metrics.sock'],
  OBSCURA_METRICS_ALLOW_REMOTE: ['false', 'true', 'off'],
};
const NAMES = Object.keys(VALID);

/** Strings that break number parsing and regular expressions. */
const ODD = ['', ' ', '0', '-1', '1e309', '9'.repeat(400), '9'.repeat(17), '0x10', 'Infinity', 'NaN', '1.', '.5', '１２', '\u0000', '\n', 'é', '%', '[', ']:80', 'unix:', 'http://', 'javascript:alert(1)', 'ftp://x'];
const PIECES = [...ODD, ' ', '\t', ':', '/', '.', '-', 'e', 'x', '_', ',', '[', ']', 'KiB', 'd', 'ms', '0', '9', 'é', '\u200b'];

type Edit = { at: number; kind: 'insert' | 'delete' | 'upper'; piece: string };

function mutate(value: string, edits: Edit[]): string {
  let v = value;
  for (const e of edits) {
    const at = v.length ? e.at % (v.length + 1) : 0;
    if (e.kind === 'insert') v = v.slice(0, at) + e.piece + v.slice(at);
    else if (e.kind === 'delete') v = v.slice(0, at) + v.slice(at + 1 + (e.at % 4));
    else v = v.slice(0, at) + v.slice(at).toUpperCase();
  }
  return v;
}

const edit: fc.Arbitrary<Edit> = fc.record({ at: fc.nat(), kind: fc.constantFrom('insert' as const, 'delete' as const, 'upper' as const), piece: fc.constantFrom(...PIECES) });

function valueFor(name: string): fc.Arbitrary<string> {
  const valid = fc.constantFrom(...VALID[name]);
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 4, arbitrary: fc.tuple(valid, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([v, es]) => mutate(v, es)) },
    { weight: 2, arbitrary: fc.tuple(fc.stringMatching(/^[0-9]{1,25}$/), fc.constantFrom('', 'B', 'KiB', 'GiB', 'GB', 'ms', 's', 'm', 'h', 'd', 'x99', ':80')).map(([n, u]) => n + u) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  );
}

// A few variables set at once: with many, one bad value nearly always hides what the others do.
const VALUES = new Map(NAMES.map((n) => [n, valueFor(n)]));
const environment = fc
  .uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 })
  .chain((names) => fc.tuple(...names.map((n) => VALUES.get(n)!.map((v) => [n, v] as const))))
  .map((pairs) => Object.fromEntries(pairs) as Record<string, string>);

/** What the service does with a Config it was handed must work: check those uses. */
function assertUsable(c: Config): void {
  const { run: _run, ...jobNumbers } = c.jobs;
  const numbers = { ...c.limits, ...jobNumbers, ...c.media, retryAfterS: c.maintenance.retryAfterS };
  for (const [k, v] of Object.entries(numbers)) assert.ok(Number.isSafeInteger(v) && v >= 0, `${k} is ${v}`);
  assert.ok(c.jobs.timeLimitMs <= TIMER_MAX, `a job time limit of ${c.jobs.timeLimitMs} ms overflows its timer`);
  // lives and expiries become dates (expires_at in answers, rows)
  for (const k of ['sessionLifeMs', 'mediaUrlLifeMs'] as const) assert.ok(Number.isFinite(new Date(Date.now() + c.limits[k]).getTime()), `${k} ends past the last date`);
  for (const k of ['expiryDefaultMs', 'expiryMaxMs'] as const) assert.ok(Number.isFinite(new Date(Date.now() + c.jobs[k]).getTime()), `${k} ends past the last date`);
  // every URL handed out is built on the network's origin
  for (const n of NETWORKS) assert.doesNotThrow(() => new URL('/api/tus/x', c.origin[n]), `${n} origin ${c.origin[n]}`);
}

test('loadConfig: any environment gives a usable Config or a ConfigError naming what was set, nothing else', (t) => {
  fc.assert(
    fc.property(environment, (env) => {
      let c: Config;
      try {
        c = loadConfig(env);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        const problems = e.message.split('\n').slice(1);
        assert.ok(problems.length > 0, 'a ConfigError lists its problems');
        for (const p of problems) assert.ok(NAMES.some((n) => n in env && p.includes(n)), `"${p}" names no variable that was set`);
        return;
      }
      assertUsable(c);
    }),
    settings<[Record<string, string>]>({
      examples: [
        // found by this property, each now a ConfigError naming the variable:
        [{ OBSCURA_KEY_FORMER_PREFIXES: '\u0000\n\u0000' }], // the bad prefix, unquoted, split the message over two lines
        [{ OBSCURA_JOB_TIME_LIMIT: '2200000' }], // 25 days: past a timer's range, so every job failed at once
        [{ OBSCURA_CLEARNET_LISTEN: '080:80' }], // no host: its default origin did not parse, so building any URL threw
        [{ OBSCURA_C2PA_TRUST_ANCHORS: '/dev/zero' }], // read for ever (the test worker was killed)
        // found with the same invariant while fixing the above
        [{ OBSCURA_SESSION_LIFE: '9'.repeat(400) }], // Infinity: no expiry date can be written
        [{ OBSCURA_SESSION_LIFE: '200000000d' }], // past the last date a Date holds
        [{ OBSCURA_FILE_MAX: '99999999999GiB' }], // past 2^53: no longer an exact count of bytes
      ],
    }),
  );
  t.pass();
});
