import path from 'node:path';
import * as tus from 'tus-js-client';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/services.ts';
import { freePort, startChild } from './helpers/child.ts';

const MiB = 1024 * 1024;

function b64(s: string) {
  return Buffer.from(s).toString('base64');
}

async function storedSha(services: { uploads: any; repos: any }, id: string): Promise<string> {
  const row = await services.repos.uploads.byId(id);
  const parts: Buffer[] = [];
  for await (const c of services.uploads.read(row)) parts.push(c as Buffer);
  return sha256(Buffer.concat(parts));
}

test('tus-js-client: 20 MiB in 5 MiB chunks, aborted after two chunks, resumed, stored intact', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const session = await svc.api('POST', '/api/convert/session', key, {});
  t.is(session.status, 201);
  const data = payload(20 * MiB);

  let chunksDone = 0;
  let uploadUrl = '';
  const upload = await new Promise<tus.Upload>((resolve, reject) => {
    const u: tus.Upload = new tus.Upload(data, {
      endpoint: `${svc.url.onion}/api/tus`,
      chunkSize: 5 * MiB,
      retryDelays: [],
      headers: { 'X-Api-Key': key },
      metadata: { upload_uid: session.body.upload_uid, step: '1', name: 'source.mp4', client_upload_id: 'c-1' },
      onChunkComplete: () => {
        chunksDone++;
        if (chunksDone === 2) {
          uploadUrl = u.url!;
          u.abort().then(() => resolve(u), reject);
        }
      },
      onError: reject,
      onSuccess: () => reject(new Error('should have been aborted')),
    });
    u.start();
  });
  t.regex(uploadUrl, new RegExp(`^${svc.url.onion}/api/tus/st_`), 'Location is absolute, on the network the request came in on');

  const head = await fetch(uploadUrl, { method: 'HEAD', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
  t.is(head.headers.get('upload-offset'), String(10 * MiB));

  await new Promise<void>((resolve, reject) => {
    const resumed = new tus.Upload(data, {
      uploadUrl,
      chunkSize: 5 * MiB,
      retryDelays: [],
      headers: { 'X-Api-Key': key },
      onChunkComplete: (_n, sent) => {
        if (sent <= 10 * MiB) reject(new Error(`resumed from the start: ${sent}`));
      },
      onError: reject,
      onSuccess: () => resolve(),
    });
    resumed.start();
  });
  void upload;
  const id = uploadUrl.split('/').pop()!;
  t.is(await storedSha(svc.services, id), sha256(data));
  const files = await svc.api('GET', `/api/convert/session/${session.body.upload_uid}/files`, key);
  t.deepEqual(files.body.files, [{ storage_uid: id, name: 'source.mp4', step: 1, size: data.length, status: 'completed' }]);
});

test('TUS create validates the metadata: unknown session 404, expired 410, wrong step 422, other account 404', async (t) => {
  const svc = await startService({ OBSCURA_SESSION_LIFE: '2s' });
  t.teardown(() => svc.close());
  const alice = await svc.account();
  const bob = await svc.account();
  const create = (key: string, md: Record<string, string>, length = 10) =>
    fetch(`${svc.url.clearnet}/api/tus`, {
      method: 'POST',
      headers: {
        'X-Api-Key': key,
        'Tus-Resumable': '1.0.0',
        'Upload-Length': String(length),
        'Upload-Metadata': Object.entries(md).map(([k, v]) => `${k} ${b64(v)}`).join(','),
      },
    });
  const s = await svc.api('POST', '/api/session', alice.key, { type: 'reveal' });
  const uid = s.body.upload_uid;

  let r = await create(alice.key, { upload_uid: 'up_doesnotexist', step: '1' });
  t.is(r.status, 404);
  t.like(await r.json(), { error: 'session_not_found' });
  r = await create(bob.key, { upload_uid: uid, step: '1' });
  t.is(r.status, 404, "another account's session looks like no session");
  r = await create(alice.key, { upload_uid: uid, step: '2' });
  t.is(r.status, 422);
  t.like(await r.json(), { error: 'invalid_step' });
  r = await create(alice.key, { step: '1' });
  t.is(r.status, 422);
  r = await create(alice.key, { upload_uid: uid, step: '1' }, 3 * 1024 * 1024 * 1024);
  t.is(r.status, 413);
  r = await create(alice.key, { upload_uid: uid, step: '1', name: 'x.png' });
  t.is(r.status, 201);
  const location = r.headers.get('location')!;
  r = await create(alice.key, { upload_uid: uid, step: '1', name: 'y.png' });
  t.is(r.status, 422, 'a reveal session takes one file');

  // bob cannot see, patch or delete alice's upload
  for (const method of ['HEAD', 'PATCH', 'DELETE']) {
    const res = await fetch(location, {
      method,
      headers: { 'X-Api-Key': bob.key, 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: method === 'PATCH' ? 'x' : undefined,
    });
    t.is(res.status, 404, method);
  }

  await new Promise((r) => setTimeout(r, 2100));
  r = await create(alice.key, { upload_uid: uid, step: '1' });
  t.is(r.status, 410);
  t.like(await r.json(), { error: 'session_expired' });
  const head = await fetch(location, { method: 'HEAD', headers: { 'X-Api-Key': alice.key, 'Tus-Resumable': '1.0.0' } });
  t.is(head.status, 410);
});

test('TUS creation-with-upload, termination, and metadata never stored in the clear', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const s = await svc.api('POST', '/api/analyse/session', key, {});
  const data = payload(300_000);
  const name = 'Whistleblower-Evidence-Final.jpg';
  const r = await fetch(`${svc.url.i2p}/api/tus`, {
    method: 'POST',
    headers: {
      'X-Api-Key': key,
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(data.length),
      'Content-Type': 'application/offset+octet-stream',
      'Upload-Metadata': `upload_uid ${b64(s.body.upload_uid)},step ${b64('1')},name ${b64(name)}`,
    },
    body: data,
  });
  t.is(r.status, 201);
  t.is(r.headers.get('upload-offset'), String(data.length));
  const location = r.headers.get('location')!;
  t.true(location.startsWith(svc.url.i2p));
  const { filesContaining } = await import('./helpers/files.ts');
  t.deepEqual(filesContaining(svc.dataDir, name), [], 'the file name is sealed');
  const files = await svc.api('GET', `/api/analyse/session/${s.body.upload_uid}/files`, key);
  t.is(files.body.files[0].name, name);
  t.is(files.body.files[0].status, 'completed');

  const del = await fetch(location, { method: 'DELETE', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
  t.is(del.status, 204);
  const after = await fetch(location, { method: 'HEAD', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
  t.true([404, 410].includes(after.status));
  t.deepEqual((await svc.api('GET', `/api/analyse/session/${s.body.upload_uid}/files`, key)).body.files, []);
});

// ---- crash: SIGKILL in the middle of a PATCH -----------------------------------

test('SIGKILL mid-PATCH: after restart HEAD reports only durable bytes and the upload completes intact', async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // accounts are made with the real services on the same folder, then released
  {
    const config = loadConfig({ OBSCURA_DATA_DIR: dataDir, OBSCURA_LOG_LEVEL: 'silent' });
    const s = await createServices(config);
    await s.accounts.create('crash@example.org', { verified: true });
    var key = (await s.apiKeys.issue('crash@example.org')).key;
    await s.close();
  }
  let child = await startChild(dataDir, port);
  t.teardown(() => child.kill('SIGKILL'));
  const session = await (await fetch(`${origin}/api/convert/session`, { method: 'POST', headers: { 'X-Api-Key': key } })).json() as any;
  const data = payload(24 * MiB);
  const created = await fetch(`${origin}/api/tus`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Length': String(data.length), 'Upload-Metadata': `upload_uid ${b64(session.upload_uid)},step ${b64('1')},name ${b64('big.mov')}` },
  });
  const location = created.headers.get('location')!;

  // One PATCH of the whole file. 10 MiB are sent, then the client waits (connection open)
  // until the server has written past 9 MiB, so its 8 MiB checkpoint is behind it whatever
  // the machine's speed, and the server is killed while the body is still arriving.
  const { request } = await import('node:http');
  const { statSync } = await import('node:fs');
  const id = location.split('/').pop()!;
  const blob = path.join(dataDir, 'blobs', id.slice(0, 2), `${id}.obj`);
  const written = () => { try { return statSync(blob).size; } catch { return 0; } };
  const sentBeforeKill = 10 * MiB;
  await new Promise<void>((resolve, reject) => {
    const req = request(location, {
      method: 'PATCH',
      headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', 'Content-Length': String(data.length) },
    });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.write(data.subarray(0, sentBeforeKill));
    const deadline = Date.now() + 60_000;
    const wait = () => {
      if (written() >= 9 * MiB) return void child.kill('SIGKILL');
      if (Date.now() > deadline) return reject(new Error(`the server wrote only ${written()} bytes of 10 MiB in 60 s`));
      setTimeout(wait, 10);
    };
    wait();
  });
  await new Promise((r) => child.once('exit', r));

  child = await startChild(dataDir, port);
  const head = await fetch(location, { method: 'HEAD', headers: { 'X-Api-Key': key, 'Tus-Resumable': '1.0.0' } });
  t.is(head.status, 200);
  const offset = Number(head.headers.get('upload-offset'));
  // the 8 MiB checkpoint was durable before the kill; nothing past what was sent counts
  t.true(offset >= 8 * MiB && offset <= sentBeforeKill, `offset ${offset}`);

  // resume from HEAD with a real client
  await new Promise<void>((resolve, reject) => {
    new tus.Upload(data, {
      uploadUrl: location,
      chunkSize: 5 * MiB,
      retryDelays: [],
      headers: { 'X-Api-Key': key },
      onError: reject,
      onSuccess: () => resolve(),
    }).start();
  });
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));

  const s = await createServices(loadConfig({ OBSCURA_DATA_DIR: dataDir, OBSCURA_LOG_LEVEL: 'silent' }));
  t.is(await storedSha(s, location.split('/').pop()!), sha256(data));
  await s.close();
  const { filesContaining } = await import('./helpers/files.ts');
  const { MARKER } = await import('./helpers/payload.ts');
  t.deepEqual(filesContaining(path.resolve(dataDir), MARKER), []);
});
