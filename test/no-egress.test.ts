import net from 'node:net';
import http from 'node:http';
import { test } from './helpers/test.ts';
import { isLoopbackHost, takeEgressViolations } from './helpers/no-egress.ts';

// serial: ava runs serial tests alone, so what is recorded belongs to this test
test.serial('the guard refuses connections that would leave the machine, and records them', async (t) => {
  t.throws(() => net.connect({ host: '192.0.2.10', port: 443 }), { code: 'EGRESS_BLOCKED' });
  t.throws(() => http.get('http://198.51.100.7/'), { code: 'EGRESS_BLOCKED' });
  t.throws(() => net.connect(80, 'example.org'), { code: 'EGRESS_BLOCKED' });
  await t.throwsAsync(fetch('http://203.0.113.9/'));
  const seen = takeEgressViolations(); // taken here so this test itself passes
  t.true(seen.length >= 4, seen.join(', '));
  t.true(seen.some((v) => v.includes('203.0.113.9')), 'fetch goes through the guard too');
});

test('loopback stays open', (t) => {
  for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]', undefined]) t.true(isLoopbackHost(h), String(h));
  for (const h of ['10.0.0.1', '192.168.1.1', '8.8.8.8', '::', 'example.org', '0.0.0.0']) t.false(isLoopbackHost(h), h);
});
