// A v2 stego job through the real API, as a client runs it: polls until it ends, and a whole
// reveal (session, upload, job, results downloaded).
import type { RunningService } from './service.ts';
import { uploadFile } from './upload-files.ts';

/** Long-polls the job until it ends; its last answer. `route`: the product's job route (convert: /api/convert/job). */
export async function finishJob(svc: RunningService, key: string, uid: string, route = '/api/job'): Promise<any> {
  for (;;) {
    const r = await svc.api('GET', `${route}/${uid}?wait=30`, key);
    if (['completed', 'partial', 'failed'].includes(r.body.status)) return r.body;
  }
}

/** Reveals `bytes` with `password`: the job's last answer and the files it gave back. */
export async function revealFile(svc: RunningService, key: string, name: string, bytes: Buffer, password: string) {
  const uid = (await svc.api('POST', '/api/session', key, { type: 'reveal' })).body.upload_uid;
  await uploadFile(svc, key, uid, 1, name, bytes);
  const start = await svc.api('POST', '/api/job', key, { upload_uid: uid, password });
  if (start.status !== 201) throw new Error(JSON.stringify(start.body));
  const done = await finishJob(svc, key, uid);
  const results = await svc.api('GET', `/api/job/${uid}/results`, key);
  const files: { name: string; bytes: Buffer }[] = [];
  for (const f of results.body.result_files ?? []) {
    files.push({ name: f.name, bytes: Buffer.from(await (await fetch(f.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer()) });
  }
  return { done, files, results: results.body };
}
