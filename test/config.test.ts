import { test } from './helpers/test.ts';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults are safe and complete', (t) => {
  const c = loadConfig({});
  t.deepEqual(c.listen.clearnet, { kind: 'tcp', host: '127.0.0.1', port: 8080 });
  t.deepEqual(c.listen.onion, { kind: 'tcp', host: '127.0.0.1', port: 8081 });
  t.deepEqual(c.listen.i2p, { kind: 'tcp', host: '127.0.0.1', port: 8082 });
  t.is(c.origin.onion, 'http://127.0.0.1:8081');
  t.is(c.limits.chunkMax, 5 * 1024 * 1024);
  t.is(c.limits.sessionLifeMs, 24 * 3600 * 1000);
  t.is(c.keyPrefix.current, 'sw_');
  t.false(c.maintenance.on);
  t.is(c.scratchDir, '/dev/shm');
  t.is(c.media.maxRevealBytes, 512 * 1024 * 1024);
  t.is(c.media.maxRevealFiles, c.limits.sessionMaxFiles);
});

test('a bad value stops start-up with a message naming the variable', (t) => {
  const cases: Record<string, string> = {
    OBSCURA_CLEARNET_LISTEN: 'nonsense',
    OBSCURA_CHUNK_MAX: 'five megs',
    OBSCURA_SESSION_LIFE: 'forever',
    OBSCURA_LOG_LEVEL: 'loud',
    OBSCURA_MAINTENANCE: 'perhaps',
    OBSCURA_ONION_ORIGIN: 'ftp://x.onion',
    OBSCURA_KEY_PREFIX: 'Bad-Prefix',
    OBSCURA_MASTER_KEY: 'tooshort',
    OBSCURA_MAX_REVEAL_BYTES: '0',
  };
  for (const [name, value] of Object.entries(cases)) {
    const err = t.throws(() => loadConfig({ [name]: value }), { instanceOf: ConfigError }, name);
    t.true(err?.message.includes(name), `${name}: ${err?.message}`);
  }
});

test('onion and i2p listeners must be loopback or a unix socket; each can be turned off', (t) => {
  t.throws(() => loadConfig({ OBSCURA_ONION_LISTEN: '0.0.0.0:8081' }), { message: /OBSCURA_ONION_LISTEN.*loopback/s });
  t.throws(() => loadConfig({ OBSCURA_I2P_LISTEN: '192.168.1.4:8082' }), { message: /OBSCURA_I2P_LISTEN/ });
  t.throws(() => loadConfig({ OBSCURA_ONION_LISTEN: 'unix:relative.sock' }), { message: /absolute/ });
  const c = loadConfig({ OBSCURA_ONION_LISTEN: 'unix:/run/obscura/onion.sock', OBSCURA_I2P_LISTEN: 'off', OBSCURA_CLEARNET_LISTEN: '0.0.0.0:80' });
  t.deepEqual(c.listen.onion, { kind: 'unix', path: '/run/obscura/onion.sock' });
  t.deepEqual(c.listen.i2p, { kind: 'off' });
  t.deepEqual(c.listen.clearnet, { kind: 'tcp', host: '0.0.0.0', port: 80 });
  t.deepEqual(loadConfig({ OBSCURA_ONION_LISTEN: '[::1]:9000' }).listen.onion, { kind: 'tcp', host: '::1', port: 9000 });
});

test('sizes and durations take units; origins are normalised', (t) => {
  const c = loadConfig({ OBSCURA_DIRECT_UPLOAD_MAX: '50MiB', OBSCURA_SESSION_LIFE: '90m', OBSCURA_ONION_ORIGIN: 'http://abcdef.onion/some/path' });
  t.is(c.limits.directUploadMax, 50 * 1024 * 1024);
  t.is(c.limits.sessionLifeMs, 90 * 60 * 1000);
  t.is(c.origin.onion, 'http://abcdef.onion');
});

test('the web settings: no mail relay by default; a bad relay URL is named but never shown, since it may hold a password', (t) => {
  const c = loadConfig({});
  t.is(c.web.smtpUrl, undefined);
  t.is(c.web.signInFailures, 20);
  t.is(c.web.signInFailuresPerVisitor, 5);
  t.is(c.web.unverifiedAccountLifeMs, 24 * 3_600_000);
  t.is(c.web.resetLinkLifeMs, 30 * 60_000);
  t.is(c.web.clearnetClientHeader, undefined, 'clearnet clients are told apart by the socket unless the operator names a header');
  t.is(loadConfig({ OBSCURA_CLEARNET_CLIENT_HEADER: 'X-Real-IP' }).web.clearnetClientHeader, 'x-real-ip');
  t.throws(() => loadConfig({ OBSCURA_CLEARNET_CLIENT_HEADER: 'X-Real-IP: 1' }), { message: /OBSCURA_CLEARNET_CLIENT_HEADER=.*expected a header name/ });
  t.is(c.web.sessionIdleMs, 30 * 60_000);
  t.is(loadConfig({ OBSCURA_SMTP_URL: 'smtps://u:p@mail.example.org:465' }).web.smtpUrl, 'smtps://u:p@mail.example.org:465');
  const err = t.throws(() => loadConfig({ OBSCURA_SMTP_URL: 'http://user:s3cret-pw@mail.example.org' }), { instanceOf: ConfigError });
  t.regex(err!.message, /OBSCURA_SMTP_URL: expected smtp:/);
  t.false(err!.message.includes('s3cret-pw'));
  t.throws(() => loadConfig({ OBSCURA_WEB_SESSION_IDLE: '10s' }), { message: /OBSCURA_WEB_SESSION_IDLE: must be at least 1m/ });
});
