// DELETE of a session (REST; MCP's delete_session calls the same domain code): its files and
// its jobs' results are destroyed at once, bytes and keys; refused while a job waits or runs on
// it; another account's session, or another product's path, is a 404 like any unknown one.
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService, tempDir, type RunningService } from './helpers/service.ts';
import { PHOTO } from './helpers/media.ts';
import { payload } from './helpers/payload.ts';

async function direct(svc: RunningService, key: string, uid: string, step: number, body: Buffer, name = 'file.bin'): Promise<string> {
  const res = await fetch(`${svc.url.clearnet}/api/upload`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': String(step), 'X-Filename': name },
    body,
  });
  const json = (await res.json()) as any;
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(json)}`);
  return json.file.storage_uid;
}

async function settled(svc: RunningService, key: string, path: string): Promise<any> {
  for (;;) {
    const r = await svc.api('GET', `${path}?wait=10`, key);
    if (['completed', 'partial', 'failed'].includes(r.body.status)) return r.body;
  }
}

/** Whether the blob store still holds the object (its bytes and its key). */
const stored = (svc: RunningService, id: string) => svc.services.blobs.size(id).then(() => true, () => false);

test('deleting a session destroys its files and results at once; later calls answer 410', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  const input = await direct(svc, key, uid, 1, await sharp(PHOTO).resize(200).jpeg().toBuffer(), 'a.jpg');
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png' })).status, 201);
  t.is((await settled(svc, key, `/api/convert/job/${uid}`)).status, 'completed');
  const [result] = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files;
  t.true(await stored(svc, input));
  t.true(await stored(svc, result.asset_id));

  // another account, and the path of another product, see nothing
  const other = await svc.account();
  t.is((await svc.api('DELETE', `/api/convert/session/${uid}`, other.key)).status, 404);
  t.is((await svc.api('DELETE', `/api/session/${uid}`, key)).status, 404);
  t.is((await svc.api('DELETE', `/api/analyse/session/${uid}`, key)).status, 404);

  const gone = await svc.api('DELETE', `/api/convert/session/${uid}`, key);
  t.is(gone.status, 200);
  t.deepEqual(gone.body, { upload_uid: uid, type: 'convert', deleted: true, files_destroyed: 1, jobs_destroyed: 1 });
  t.false(await stored(svc, input), 'the upload bytes and key are gone');
  t.false(await stored(svc, result.asset_id), 'the result bytes and key are gone');
  t.is((await fetch(result.download_url, { headers: { 'X-Api-Key': key } })).status, 410);
  for (const path of [`/api/convert/session/${uid}`, `/api/convert/session/${uid}/files`, `/api/convert/job/${uid}`, `/api/convert/job/${uid}/results`]) {
    const r = await svc.api('GET', path, key);
    t.is(r.status, 410, path);
    t.is(r.body.error, 'session_expired', path);
  }
  const again = await svc.api('DELETE', `/api/convert/session/${uid}`, key);
  t.is(again.status, 410);
  const late = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1' }, body: payload(10) });
  t.is(late.status, 410, 'no file joins a deleted session');
});

test("a session is not deleted under its job (409 session_busy); once the job has run, it is, with the job's report", async (t) => {
  t.timeout(120_000);
  const dataDir = tempDir();
  let svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  await svc.services.jobs.stop(); // nothing runs: the job started now waits in the queue

  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  const input = await direct(svc, key, uid, 1, await sharp(PHOTO).resize(240).jpeg().toBuffer(), 'b.jpg');
  const start = await svc.api('POST', '/api/analyse/job', key, { upload_uid: uid });
  t.is(start.status, 201);
  const busy = await svc.api('DELETE', `/api/analyse/session/${uid}`, key);
  t.is(busy.status, 409);
  t.like(busy.body, { error: 'session_busy', job_uid: start.body.job_uid });
  t.true(await stored(svc, input), 'nothing was destroyed');

  // a restart runs the queued job
  await svc.close();
  svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.is((await settled(svc, key, `/api/analyse/job/${uid}`)).status, 'completed');
  const report = await svc.api('GET', `/api/analyse/result/${start.body.job_uid}`, key);
  t.is(report.status, 200);
  const assets: string[] = report.body.files[0].assets.map((a: any) => a.asset_id);
  t.true(assets.length > 0);

  const gone = await svc.api('DELETE', `/api/analyse/session/${uid}`, key);
  t.is(gone.status, 200);
  t.like(gone.body, { deleted: true, files_destroyed: 1, jobs_destroyed: 1 });
  t.is((await svc.api('GET', `/api/analyse/result/${start.body.job_uid}`, key)).status, 410, 'the report is gone with the session');
  for (const id of assets) t.false(await stored(svc, id));
  t.false(await stored(svc, input));
});
