// Run as a child process by old-release.ts: fills a data folder (and a PostgreSQL database, when
// OBSCURA_DATABASE_URL is set) the way an earlier commit's own code does, through that commit's
// own test helper and HTTP API: an account with its key (and its web password, from schema 5 on),
// a second key revoked, an upload session
// left with a file in it and, where the commit has jobs, a finished convert with its result.
// argv: the old tree's folder, then the service's environment as JSON. Prints what it made as
// one JSON line on stdout.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';

const [tree, envJson] = process.argv.slice(2);
const env = JSON.parse(envJson!) as Record<string, string>;
const { startService } = await import(pathToFileURL(path.join(tree!, 'test/helpers/service.ts')).href);

const svc = await startService(env);
const email = 'Old.Release@Example.org';
const { key } = await svc.account(email);
// a second key, revoked: it must stay refused after the upgrade
const second = await svc.services.apiKeys.issue(email);
await svc.services.apiKeys.revoke(second.id);
const revoked = second.key as string;

const out: Record<string, unknown> = { email, key, revoked };
// a web password, where the release had the web pages (schema 5 on)
if (svc.services.selfService?.setPassword) {
  const password = 'an old and private passphrase, kept across releases';
  await svc.services.selfService.setPassword(await svc.services.apiKeys.authenticate(key), password);
  out.password = password;
}
// the first releases' helper had no api(): the same request by hand
const api = async (method: string, route: string, k: string, body?: unknown): Promise<{ status: number; body: any }> => {
  if (svc.api) return svc.api(method, route, k, body);
  const r = await fetch(`${svc.url.clearnet}${route}`, { method, headers: { 'X-Api-Key': k, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text.startsWith('{') ? JSON.parse(text) : text };
};
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const picture = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .png()
    .toBuffer();

async function upload(uid: string, name: string, bytes: Buffer): Promise<void> {
  const r = await fetch(`${svc.url.clearnet}/api/upload`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': name },
    body: bytes,
  });
  if (r.status !== 201) throw new Error(`upload: ${r.status} ${await r.text()}`);
}

const session = await api('POST', '/api/convert/session', key, {});
if (session.status === 201 || session.status === 200) {
  // an upload left waiting in its session
  const waiting = await picture(40, 30);
  out.waiting = { uid: session.body.upload_uid, name: 'waiting.png', size: waiting.length };
  await upload(session.body.upload_uid, 'waiting.png', waiting);

  // a finished job, where this commit has jobs
  const uid = (await api('POST', '/api/convert/session', key, {})).body.upload_uid as string;
  await upload(uid, 'picture.png', await picture(64, 48));
  const start = await api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'webp' });
  if (start.status === 201) {
    let view: any;
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      view = (await api('GET', `/api/convert/job/${uid}`, key)).body;
      if (['completed', 'failed', 'partial'].includes(view.status)) break;
    }
    if (view.status !== 'completed') throw new Error(`the old release's job ended ${JSON.stringify(view)}`);
    const results = (await api('GET', `/api/convert/job/${uid}/results`, key)).body;
    const files = [];
    for (const f of results.result_files) {
      const r = await fetch(`${svc.url.clearnet}${f.download_path}`, { headers: { 'X-Api-Key': key } });
      if (r.status !== 200) throw new Error(`old download: ${r.status}`);
      files.push({ download_path: f.download_path, mime_type: f.mime_type, size: f.file_size, sha256: sha(new Uint8Array(await r.arrayBuffer())) });
    }
    out.job = { uid, job_uid: start.body.job_uid, files };
  } else if (start.status !== 404) throw new Error(`old job start: ${start.status} ${JSON.stringify(start.body)}`);
} else if (session.status !== 404) throw new Error(`old session: ${session.status} ${JSON.stringify(session.body)}`);

await svc.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
