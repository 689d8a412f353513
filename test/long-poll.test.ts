// Polls with ?wait=N answer when the job changes state instead of at once: a client over Tor
// needs two or three round trips for a whole job, not one a second.
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { PHOTO } from './helpers/media.ts';
import { payload } from './helpers/payload.ts';

test('a long poll holds until the job changes state; bad waits are 422; a client that leaves is let go', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  const up = (step: number, name: string, body: Buffer) =>
    fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': String(step), 'X-Filename': name }, body });
  t.is((await up(1, 's.bin', payload(100_000))).status, 201);
  t.is((await up(2, 'c.png', await sharp(PHOTO).resize(1200, 900, { fit: 'cover' }).png().toBuffer())).status, 201);

  t.is((await svc.api('POST', '/api/job', key, { upload_uid: uid, password: 'correct horse battery staple' })).status, 201);
  for (const bad of ['abc', '31', '-1', '1.5']) {
    const r = await svc.api('GET', `/api/job/${uid}?wait=${bad}`, key);
    t.is(r.status, 422, bad);
    t.is(r.body.error, 'invalid_wait');
  }
  // a client that gives up mid-wait: the server lets it go and keeps working
  const ac = new AbortController();
  const left = fetch(`${svc.url.clearnet}/api/job/${uid}?wait=30`, { headers: { 'X-Api-Key': key }, signal: ac.signal }).catch((e) => e);
  setTimeout(() => ac.abort(), 50);
  t.true((await left) instanceof Error);

  const seen: string[] = [];
  const started = Date.now();
  for (;;) {
    const r = await svc.api('GET', `/api/job/${uid}?wait=30`, key);
    t.is(r.status, 200);
    seen.push(r.body.status);
    if (['completed', 'partial', 'failed'].includes(r.body.status)) break;
    t.true(seen.length < 4, `too many polls: ${seen.join(', ')}`);
  }
  t.is(seen.at(-1), 'completed');
  t.true(seen.length <= 3, seen.join(', '));
  t.true(Date.now() - started < 30_000, 'answered when the job finished, not at the end of the wait');
  // a finished job answers at once
  const t0 = Date.now();
  t.is((await svc.api('GET', `/api/job/${uid}?wait=30`, key)).body.status, 'completed');
  t.true(Date.now() - t0 < 5_000);
});
