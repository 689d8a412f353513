// A session holds one job, ever (issue 25, point 11): a second start, at once, after the job
// completed or after it failed, is a 409 session_used that says to create a new session, on
// every product and through both generations (v1: a media-url holds one job, 422 as its table
// gives); the first job's answers stay reachable by the upload_uid.
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService, type RunningService } from './helpers/service.ts';
import { PHOTO } from './helpers/media.ts';
import { payload } from './helpers/payload.ts';
import { uploadFile } from './helpers/upload-files.ts';
import { until } from './helpers/until.ts';
import { v1 } from './helpers/v1.ts';

const PASSWORD = 'correct horse battery staple';
const tiny = () => sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).png().toBuffer();
const cover = () => sharp(PHOTO).resize(320, 240).png().toBuffer();

interface Product {
  name: string;
  /** Makes a session with its files; its upload_uid. */
  session(svc: RunningService, key: string): Promise<string>;
  start: string;
  body: Record<string, unknown>;
  poll: string;
  /** How its one job ends here. */
  ends: 'completed' | 'failed';
}

const PRODUCTS: Product[] = [
  {
    name: 'convert',
    session: async (svc, key) => {
      const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
      await uploadFile(svc, key, uid, 1, 'a.png', await tiny());
      return uid;
    },
    start: '/api/convert/job',
    body: { image_format: 'webp' },
    poll: '/api/convert/job',
    ends: 'completed',
  },
  {
    name: 'analyse',
    session: async (svc, key) => {
      const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
      await uploadFile(svc, key, uid, 1, 'a.png', await tiny());
      return uid;
    },
    start: '/api/analyse/job',
    body: {},
    poll: '/api/analyse/job',
    ends: 'completed',
  },
  {
    name: 'hide',
    session: async (svc, key) => {
      const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
      await uploadFile(svc, key, uid, 1, 'secret.bin', payload(500));
      await uploadFile(svc, key, uid, 2, 'cover.png', await cover());
      return uid;
    },
    start: '/api/job',
    body: { password: PASSWORD },
    poll: '/api/job',
    ends: 'completed',
  },
  {
    // nothing is hidden in a plain image: the job fails (nothing_found)
    name: 'reveal',
    session: async (svc, key) => {
      const uid = (await svc.api('POST', '/api/session', key, { type: 'reveal' })).body.upload_uid;
      await uploadFile(svc, key, uid, 1, 'plain.png', await cover());
      return uid;
    },
    start: '/api/job',
    body: { password: PASSWORD },
    poll: '/api/job',
    ends: 'failed',
  },
];

async function settle(svc: RunningService, key: string, path: string) {
  return until(`${path} finishing`, 120_000, async () => {
    const r = await svc.api('GET', `${path}?wait=10`, key);
    return ['completed', 'partial', 'failed'].includes(r.body?.status) ? r.body : undefined;
  }, 50);
}

for (const p of PRODUCTS) {
  test(`${p.name}: of 6 starts at once one makes the job; once it has ${p.ends}, another start or upload is 409 session_used saying to create a new session; the job stays the session's`, async (t) => {
    const svc = await startService();
    t.teardown(() => svc.close());
    const { key } = await svc.account();
    const uid = await p.session(svc, key);
    const starts = await Promise.all(Array.from({ length: 6 }, () => svc.api('POST', p.start, key, { upload_uid: uid, ...p.body })));
    const made = starts.filter((r) => r.status === 201);
    t.is(made.length, 1, `statuses: ${starts.map((r) => r.status).join(' ')}`);
    const job = made[0].body.job_uid as string;
    for (const r of starts.filter((x) => x.status !== 201)) {
      t.is(r.status, 409);
      t.is(r.body.error, 'session_used');
      t.is(r.body.job_uid, job);
    }

    const done = await settle(svc, key, `${p.poll}/${uid}`);
    t.is(done.status, p.ends, JSON.stringify(done));
    const again = await svc.api('POST', p.start, key, { upload_uid: uid, ...p.body });
    t.is(again.status, 409);
    t.is(again.body.error, 'session_used');
    t.is(again.body.job_uid, job);
    t.is(again.body.job_status, p.ends);
    t.regex(again.body.message, /a session holds one job, ever.*create a new session/);
    // nor does the session take more files: none could ever be used
    const late = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': 'late.png' }, body: await tiny() });
    t.is(late.status, 409);
    t.like(await late.json(), { error: 'session_used', job_uid: job });
    // the first job is still the one the session answers with
    const poll = await svc.api('GET', `${p.poll}/${uid}`, key);
    t.is(poll.body.job_uid, job);
    t.is(poll.body.status, p.ends);
    const rows = svc.services.db!.prepare('SELECT COUNT(*) AS n FROM jobs WHERE session_id = ?').get(uid) as { n: number };
    t.is(rows.n, 1);
    // a new session takes a new job
    const fresh = await p.session(svc, key);
    t.is((await svc.api('POST', p.start, key, { upload_uid: fresh, ...p.body })).status, 201);
  });
}

test('twelve racing starts on a tiny convert make exactly one job, in the database too', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await PRODUCTS[0].session(svc, key);
  const starts = await Promise.all(Array.from({ length: 12 }, () => svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' })));
  t.is(starts.filter((r) => r.status === 201).length, 1, `statuses: ${starts.map((r) => r.status).join(' ')}`);
  t.true(starts.every((r) => r.status === 201 || (r.status === 409 && r.body.error === 'session_used')));
  await settle(svc, key, `/api/convert/job/${uid}`);
  // a second burst after the end: none
  const later = await Promise.all(Array.from({ length: 12 }, () => svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' })));
  t.deepEqual([...new Set(later.map((r) => r.status))], [409]);
  const rows = svc.services.db!.prepare('SELECT COUNT(*) AS n FROM jobs WHERE session_id = ?').get(uid) as { n: number };
  t.is(rows.n, 1);
});

test('v1: a media-url holds one job: 12 racing analyse starts make one; after it completed, another is 422 session_used saying to create a new media-url', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const client = v1(svc.url.clearnet, key);
  const png = await tiny();
  const media = client.keyOf((await client.create('a.png', png.length)).headers.get('location')!);
  t.is((await client.patch(media, 0, png)).status, 204);
  const analyse = () => client.send('POST', '/v1/job/analyse', { json: { key: media, enableTips: false, enableExtraAnalysis: false } });
  const starts = await Promise.all(Array.from({ length: 12 }, analyse));
  const made = starts.filter((r) => r.status === 200);
  t.is(made.length, 1, `statuses: ${starts.map((r) => r.status).join(' ')}`);
  for (const r of starts.filter((x) => x.status !== 200)) {
    t.is(r.status, 422, 'v1 answers a conflict 422, as its table gives');
    t.is(r.body.error, 'session_used');
  }
  const job = made[0].body.key as string;
  const jobs = svc.services.db!.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number };
  t.is(jobs.n, 1, 'one job in the database');
  await until('the v1 job COMPLETED', 120_000, async () => ((await client.send('POST', `/v1/job/status/${job}`)).body.status === 'COMPLETED' ? true : undefined), 100);
  const again = await analyse();
  t.is(again.status, 422);
  t.is(again.body.error, 'session_used');
  t.is(again.body.job_uid, job);
  t.regex(again.body.message, /a media-url holds one job, ever.*create a new media-url/);
  t.is((await client.send('GET', `/v1/job/result/${job}`)).status, 200, 'the first job keeps its result');
});
