import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService, tempDir, type RunningService } from './helpers/service.ts';
import { PHOTO, makeVideo } from './helpers/media.ts';
import { uploadFile } from './helpers/upload-files.ts';
import { pausedUpload } from './helpers/slow-upload.ts';
import { filesContaining } from './helpers/files.ts';
import { obscura } from './helpers/obscura-cli.ts';
import { until } from './helpers/until.ts';

/** Long-polls a job until it ends; its status. */
async function finished(svc: RunningService, key: string, uid: string, kind: 'convert/job' | 'job' = 'convert/job'): Promise<string> {
  for (;;) {
    const r = await svc.api('GET', `/api/${kind}/${uid}?wait=30`, key);
    if (r.status !== 200) throw new Error(`job ${r.status} ${JSON.stringify(r.body)}`);
    if (['completed', 'partial', 'failed'].includes(r.body.status)) return r.body.status;
  }
}

/** Every result file of a finished job, downloaded: name -> bytes. */
async function results(svc: RunningService, key: string, uid: string, kind: 'convert/job' | 'job'): Promise<Map<string, Buffer>> {
  const r = await svc.api('GET', `/api/${kind}/${uid}/results`, key);
  if (r.status !== 200) throw new Error(`results ${r.status} ${JSON.stringify(r.body)}`);
  const files = new Map<string, Buffer>();
  for (const f of r.body.result_files) files.set(f.output_name ?? f.name, Buffer.from(await (await fetch(f.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer()));
  return files;
}

async function convert(svc: RunningService, key: string, files: [string, Buffer][], job: Record<string, unknown>): Promise<string> {
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  for (const [n, b] of files) await uploadFile(svc, key, uid, 1, n, b);
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, expiry: '1h', ...job });
  if (start.status !== 201) throw new Error(JSON.stringify(start.body));
  return uid;
}

async function hide(svc: RunningService, key: string): Promise<string> {
  const uid = (await svc.api('POST', '/api/session', key, { type: 'hide' })).body.upload_uid;
  await uploadFile(svc, key, uid, 1, 'secret.bin', randomBytes(1000));
  await uploadFile(svc, key, uid, 2, 'cover.png', await sharp(PHOTO).resize(256, 256, { fit: 'cover' }).png().toBuffer());
  const start = await svc.api('POST', '/api/job', key, { upload_uid: uid, password: 'correct horse battery staple', expiry: '1h' });
  if (start.status !== 201) throw new Error(JSON.stringify(start.body));
  return uid;
}

const journals = (dir: string): string[] =>
  existsSync(path.join(dir, 'blobs')) ? readdirSync(path.join(dir, 'blobs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.journal')) : [];

test('bin/obscura backup of a running service in the middle of an upload and a job; restored elsewhere, the same key, account and results', async (t) => {
  t.timeout(240_000);
  const dataDir = tempDir();
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  const { email, key } = await svc.account();
  const masterKeyFile = path.join(dataDir, 'master.key');

  // finished work: a convert and a hide
  const converted = await convert(svc, key, [['Berg.jpg', readFileSync(PHOTO)]], { image_format: 'webp', quality: 80, width: 400 });
  const hidden = await hide(svc, key);
  t.is(await finished(svc, key, converted), 'completed');
  t.is(await finished(svc, key, hidden, 'job'), 'completed');
  const before = { converted: await results(svc, key, converted, 'convert/job'), hidden: await results(svc, key, hidden, 'job') };

  // work under way while the backup runs: a video converting, and an upload stopped mid-body
  const video = await convert(svc, key, [['clip.mp4', makeVideo({ seconds: 3 })]], { video_format: 'webm', width: 160 });
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  const big = randomBytes(6 * 1024 * 1024);
  const upload = pausedUpload(svc, key, uid, 1, 'big.bin', big, 3 * 1024 * 1024);
  await upload.atPause;
  await until('the service is mid-append (a journal on disk)', 30_000, () => (journals(dataDir).length ? true : undefined));

  const backupDir = path.join(tempDir(), 'backup');
  const made = await obscura({ OBSCURA_DATA_DIR: dataDir }, 'backup', backupDir);
  t.is(made.code, 0, made.err);
  t.true(made.err.includes(`data folder ${dataDir}`), 'says which data folder it backs up');
  t.regex(made.err, /the master key is NOT in the backup\. Keep it apart \(.*master\.key\)/);
  t.regex(made.out, /backed up 1 accounts, 3 jobs and \d+ blobs/);
  t.true(journals(dataDir).length > 0, 'the upload was still mid-append when the backup ended');

  upload.release();
  t.is(await upload.done, 201, 'the upload under way finished whole: the backup disturbed nothing');
  t.is(await finished(svc, key, video), 'completed');

  // what the backup holds
  const manifest = JSON.parse(readFileSync(path.join(backupDir, 'MANIFEST.json'), 'utf8'));
  t.like(manifest, { format: 'obscura-backup', formatVersion: 1, engine: 'sqlite', counts: { accounts: 1, api_keys: 1, jobs: 3 } });
  t.true(Number.isInteger(manifest.schemaVersion) && manifest.schemaVersion > 0);
  for (const f of manifest.files) t.regex(f.sha256, /^[0-9a-f]{64}$/);
  t.false(existsSync(path.join(backupDir, 'master.key')));
  t.deepEqual(filesContaining(backupDir, readFileSync(masterKeyFile, 'utf8').trim()), [], 'the master key is nowhere in the backup');
  t.deepEqual(journals(backupDir), [], 'no append left half-done in the backup');

  // a second backup into the same folder is refused
  const again = await obscura({ OBSCURA_DATA_DIR: dataDir }, 'backup', backupDir);
  t.is(again.code, 1);
  t.regex(again.err, /is not empty/);

  // restored into a new data folder, with the same master key, and served
  const newDir = path.join(tempDir(), 'data');
  const restored = await obscura({ OBSCURA_DATA_DIR: newDir, OBSCURA_MASTER_KEY_FILE: masterKeyFile }, 'restore', backupDir);
  t.is(restored.code, 0, restored.err);
  t.regex(restored.out, /restored 1 accounts, 3 jobs/);
  const svc2 = await startService({ OBSCURA_DATA_DIR: newDir, OBSCURA_MASTER_KEY_FILE: masterKeyFile });
  t.teardown(() => svc2.close());
  const account = await svc2.api('GET', '/api/account', key);
  t.is(account.status, 200, 'the same key works');
  t.is(account.body.email, email);
  const after = { converted: await results(svc2, key, converted, 'convert/job'), hidden: await results(svc2, key, hidden, 'job') };
  t.is(after.converted.size, 1);
  t.is(after.hidden.size, 1);
  for (const k of ['converted', 'hidden'] as const) {
    for (const [name, bytes] of before[k]) t.true(after[k].get(name)?.equals(bytes), `${k} ${name} downloads byte-identical`);
  }
  // the video job was queued or running at the backup (run again from the start) or done: either way it ends with its result
  t.is(await finished(svc2, key, video), 'completed');
  t.is((await results(svc2, key, video, 'convert/job')).size, 1);
});

test('restore checks before it writes: a wrong master key and an altered backup are refused with a clear error, and nothing is written', async (t) => {
  t.timeout(120_000);
  const dataDir = tempDir();
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = await convert(svc, key, [['Berg.jpg', readFileSync(PHOTO)]], { image_format: 'png', width: 200 });
  t.is(await finished(svc, key, uid), 'completed');
  const backupDir = path.join(tempDir(), 'backup');
  t.is((await obscura({ OBSCURA_DATA_DIR: dataDir }, 'backup', backupDir)).code, 0);
  const masterKeyFile = path.join(dataDir, 'master.key');

  const wrongKey = path.join(tempDir(), 'other.key');
  writeFileSync(wrongKey, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  const target = path.join(tempDir(), 'data');
  const wrong = await obscura({ OBSCURA_DATA_DIR: target, OBSCURA_MASTER_KEY_FILE: wrongKey }, 'restore', backupDir);
  t.is(wrong.code, 1);
  t.regex(wrong.err, /other\.key is not the master key this backup's data was sealed with.*nothing was restored/);
  t.false(existsSync(target), 'nothing written');

  const noKey = await obscura({ OBSCURA_DATA_DIR: target }, 'restore', backupDir);
  t.is(noKey.code, 1);
  t.regex(noKey.err, /no master key at .*master\.key: put the service's master key there/);
  t.false(existsSync(target), 'no master key made either');

  // one byte of one blob changed
  const tampered = path.join(tempDir(), 'tampered');
  cpSync(backupDir, tampered, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(tampered, 'MANIFEST.json'), 'utf8'));
  const blob = manifest.files.find((f: { path: string }) => f.path.startsWith('blobs/'));
  const file = path.join(tampered, blob.path);
  const bytes = readFileSync(file);
  bytes[bytes.length - 20] ^= 1;
  writeFileSync(file, bytes);
  const bad = await obscura({ OBSCURA_DATA_DIR: target, OBSCURA_MASTER_KEY_FILE: masterKeyFile }, 'restore', tampered);
  t.is(bad.code, 1);
  t.true(bad.err.includes(`the backup's file ${blob.path} does not match its manifest (damaged or altered); nothing was restored`), bad.err);
  t.false(existsSync(target), 'nothing written');

  // the manifest itself altered (a file dropped from it, so the hashes still match)
  const edited = path.join(tempDir(), 'edited');
  cpSync(backupDir, edited, { recursive: true });
  writeFileSync(path.join(edited, 'MANIFEST.json'), JSON.stringify({ ...manifest, files: manifest.files.filter((f: { path: string }) => f !== blob && f.path !== blob.path) }));
  const forged = await obscura({ OBSCURA_DATA_DIR: target, OBSCURA_MASTER_KEY_FILE: masterKeyFile }, 'restore', edited);
  t.is(forged.code, 1);
  t.regex(forged.err, /MANIFEST\.json was altered/);
  t.false(existsSync(target), 'nothing written');

  // and the untouched backup restores
  const ok = await obscura({ OBSCURA_DATA_DIR: target, OBSCURA_MASTER_KEY_FILE: masterKeyFile }, 'restore', backupDir);
  t.is(ok.code, 0, ok.err);
  const into = await obscura({ OBSCURA_DATA_DIR: target, OBSCURA_MASTER_KEY_FILE: masterKeyFile }, 'restore', backupDir);
  t.is(into.code, 1);
  t.regex(into.err, /already holds a database: restore into a new one/);
});

test('backup refuses PostgreSQL and S3, pointing to docs/operators.md', async (t) => {
  const r = await obscura({ OBSCURA_DATA_DIR: tempDir(), OBSCURA_DATABASE_URL: 'postgres://obscura:secret-pw@127.0.0.1:1/obscura', OBSCURA_MASTER_KEY: randomBytes(32).toString('base64') }, 'backup', path.join(tempDir(), 'b'));
  t.is(r.code, 1);
  t.regex(r.err, /obscura: database PostgreSQL, blobs in .*master key from OBSCURA_MASTER_KEY/);
  t.regex(r.err, /use their own tools: see "Backup and restore" in docs\/operators\.md/);
  t.false(r.err.includes('secret-pw'), 'never the URL or its password');
});
