// One analyse job through the real service, as a client does it: a session, a direct upload
// of each file, the job, polls until it ends, and the result's per-file items.
import type { RunningService } from './service.ts';

export async function analyse(svc: RunningService, key: string, files: [string, Buffer][], options: Record<string, unknown> = {}) {
  const uid = (await svc.api('POST', '/api/analyse/session', key, {})).body.upload_uid;
  for (const [name, bytes] of files) {
    const r = await fetch(`${svc.url.clearnet}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': encodeURIComponent(name) }, body: bytes });
    if (r.status !== 201) throw new Error(`upload ${r.status} ${await r.text()}`);
  }
  const start = await svc.api('POST', '/api/analyse/job', key, { upload_uid: uid, ...options });
  if (start.status !== 201) throw new Error(`start ${start.status} ${JSON.stringify(start.body)}`);
  let poll: any;
  for (const end = Date.now() + 300_000; Date.now() < end; ) {
    poll = (await svc.api('GET', `/api/analyse/job/${uid}?wait=20`, key)).body;
    if (['completed', 'partial', 'failed'].includes(poll.status)) break;
  }
  const result = await svc.api('GET', `/api/analyse/result/${start.body.job_uid}`, key);
  return { poll, files: result.body.files as any[] };
}
