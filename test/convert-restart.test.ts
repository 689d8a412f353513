import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from './helpers/test.ts';
import { tempDir } from './helpers/service.ts';
import { exited, freePort, keyFor, startChild } from './helpers/child.ts';
import { makeVideo } from './helpers/media.ts';
import { ScratchFolders } from '../src/store/scratch.ts';

test('the server killed during a long conversion: after restart the job runs again and completes', async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const key = await keyFor(dataDir, 'restart@example.org');
  let child = await startChild(dataDir, port, { OBSCURA_WORKERS: '1' });
  t.teardown(() => void child.kill('SIGKILL'));
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${origin}${path}`, { method, headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as any };
  };
  const uid = (await api('POST', '/api/convert/session', {})).body.upload_uid;
  const video = makeVideo({ seconds: 12, width: 640, height: 360 });
  const up = await fetch(`${origin}/api/upload`, { method: 'POST', headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': 'long.mp4' }, body: video });
  t.is(up.status, 201);
  t.is((await api('POST', '/api/convert/job', { upload_uid: uid, video_format: 'mp4h265', quality: 70 })).status, 201);

  // wait until it is really converting, then kill the whole process
  for (;;) {
    const p = (await api('GET', `/api/convert/job/${uid}`)).body;
    if (p.status === 'processing' && p.progress >= 5) break;
    if (['completed', 'failed', 'partial'].includes(p.status)) t.fail(`finished before the kill: ${p.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const orphans = spawnSync('pgrep', ['-f', `ffmpeg .*${new ScratchFolders('/dev/shm', dataDir).prefix}`], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);
  t.true(orphans.length >= 1, 'ffmpeg was running when the server died');
  child.kill('SIGKILL');
  await exited(child);

  child = await startChild(dataDir, port, { OBSCURA_WORKERS: '1' });
  // killed at the restart: gone, or a zombie waiting for init to reap it
  const running = (pid: string) => existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  for (const pid of orphans) t.false(running(pid), "the dead server's ffmpeg was killed at the restart");
  let last: any;
  const until = Date.now() + 180_000;
  while (Date.now() < until) {
    last = (await api('GET', `/api/convert/job/${uid}`)).body;
    if (['completed', 'failed', 'partial'].includes(last.status)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  t.is(last.status, 'completed', last.progress_message);
  const results = (await api('GET', `/api/convert/job/${uid}/results`)).body;
  t.is(results.result_files.length, 1, 'one output, not a leftover from the first attempt as well');
  const file = await fetch(`${origin}${results.result_files[0].download_path}`, { headers: { 'X-Api-Key': key } });
  t.is(file.status, 200);
  t.true((await file.arrayBuffer()).byteLength > 1000);
  child.kill('SIGTERM');
  await exited(child);
});
