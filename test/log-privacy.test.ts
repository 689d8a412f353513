import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';

test('logs hold no keys, file names, I2P destinations or client addresses', async (t) => {
  const svc = await startService({ OBSCURA_LOG_LEVEL: 'trace' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const fileName = 'Leaked-Protest-Footage-2026.mp4';
  const dest = 'Zm9vYmFyZGVzdGluYXRpb25iYXNlNjRibG9iX2xvbmdfZW5vdWdo~AAAA';
  const b32 = 'ukeu3k5oycgaauneqgtnvselmt4yemvoilkln7jpvamvfx7dnkdq.b32.i2p';
  const clientIp = '203.0.113.77';
  const headers = {
    'X-Api-Key': key,
    'X-Filename': fileName,
    'X-I2P-DestB64': dest,
    'X-I2P-DestB32': b32,
    'X-I2P-DestHash': 'c2VjcmV0aGFzaA',
    'X-Forwarded-For': clientIp,
    'X-Real-IP': clientIp,
    Forwarded: `for=${clientIp}`,
  };
  const calls = [
    fetch(`${svc.url.i2p}/api/account`, { headers }),
    fetch(`${svc.url.i2p}/api/status`, { headers }),
    fetch(`${svc.url.clearnet}/files/${fileName}?name=${fileName}&key=${key}`, { headers }),
    fetch(`${svc.url.onion}/api/account`, { headers: { ...headers, 'X-Api-Key': key.slice(0, -2) + 'zz' } }),
    fetch(`${svc.url.onion}/api/account`, { headers: { ...headers, 'X-Api-Key': 'not-a-key-' + fileName } }),
  ];
  for (const r of await Promise.all(calls)) await r.arrayBuffer();
  const logged = () => svc.logs.filter((l) => l.includes('"msg":"request"')).length;
  for (let i = 0; i < 200 && logged() < calls.length; i++) await new Promise((r) => setTimeout(r, 25));
  const log = svc.logs.join('');
  t.true(logged() >= calls.length, 'requests were logged');
  for (const secret of [key, key.slice(3, 20), fileName, dest, b32, 'c2VjcmV0aGFzaA', clientIp, '127.0.0.1']) {
    t.false(log.includes(secret), `log contains ${secret}`);
  }
  for (const line of svc.logs) t.notThrows(() => JSON.parse(line), 'every line is JSON');
  t.true(svc.logs.every((l) => !l.includes('"msg":"request"') || /"req_id":"[0-9a-f]{16}"/.test(l)));
});
