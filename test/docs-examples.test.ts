// The examples in README.md and docs/*.md, run exactly as written: every ```sh test block of a
// file, in order, in one bash (set -euo pipefail), against the real service (node src/main.ts)
// on its default address, 127.0.0.1:8080. Each file gets a network namespace of its own, so
// that address is free whatever else runs, and a fresh data folder, which bin/obscura reads
// through OBSCURA_DATA_DIR as the service does. The blocks run in a folder holding what the
// README asks the reader for: photo.jpg (any JPEG or PNG) and secret.txt (any small file),
// and bin/ (a link to the checkout's, as a reader runs it from the checkout).
//
// Not run here (not marked `sh test`): the examples that need tor, i2pd, systemd, containers or
// PostgreSQL and S3. Their own tests run them: net-tor, net-i2p, deploy-systemd, containers,
// scale-instances, backup-restore.
//
// Also here: the documented answer shapes (docs/api.md, "Answers, field by field") against a
// real run, and every repository path the docs name.
import test, { type ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createNetns } from './helpers/netns.ts';
import { startService, tempDir } from './helpers/service.ts';
import { SERVICE_NODE_FLAGS } from './helpers/child.ts';

const ROOT = process.cwd();
const DOCS = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const PHOTO = 'test/fixtures/photo-mountain.jpg';

/** The ```sh test blocks of a file, in order. */
function examples(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^```sh test\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** The README's "Getting a key" block: the docs' examples use its $KEY, as they say. */
const keyBlock = examples('README.md').find((b) => b.includes('bin/obscura key create'))!;

/** Runs a file's examples against a fresh service; returns bash's output and its folder. */
async function runExamples(file: string): Promise<{ code: number | null; stdout: string; stderr: string; dir: string; service: string }> {
  const blocks = examples(file);
  const prelude = file === 'README.md' ? [] : [keyBlock];
  const dataDir = tempDir('obscura-docs-data-');
  const dir = tempDir('obscura-docs-run-');
  symlinkSync(path.join(ROOT, 'bin'), path.join(dir, 'bin'));
  copyFileSync(PHOTO, path.join(dir, 'photo.jpg'));
  writeFileSync(path.join(dir, 'secret.txt'), 'The meeting is at noon, by the old bridge.\n');
  const env = { ...process.env, OBSCURA_DATA_DIR: dataDir, OBSCURA_LOG_LEVEL: 'warn' };
  const ns = await createNetns([]);
  try {
    const svc = ns.spawn([process.execPath, ...SERVICE_NODE_FLAGS, '--import', './test/helpers/no-egress.ts', 'src/main.ts'], { env, cwd: ROOT });
    await svc.waitForStdout(/is up/, 60_000, 'the service started');
    const script = ['set -euo pipefail', ...prelude, ...blocks].join('\n');
    const bash = ns.spawn(['bash', '-c', script], { env, cwd: dir });
    const { code } = await bash.exited;
    return { code, stdout: bash.stdout(), stderr: bash.stderr(), dir, service: svc.stdout() + svc.stderr() };
  } finally {
    await ns.close();
  }
}

test.serial('every page that talks to the service has examples the suite runs', (t) => {
  for (const file of ['README.md', 'docs/api.md', 'docs/agents.md']) t.true(examples(file).length > 0, file);
  // the README: the key, then one example per product
  t.is(examples('README.md').length, 5);
  // a shell example that calls the service on its default address is one the suite runs
  const unmarked = DOCS.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^```(?:sh|bash|shell|console)( test)?\n([\s\S]*?)^```$/gm)]
      .filter((m) => !m[1] && m[2].includes('http://127.0.0.1:8080'))
      .map((m) => `${file}: ${m[2].split('\n')[0]}`),
  );
  t.deepEqual(unmarked, []);
});

test.serial('README: the key and every product, as written', async (t) => {
  const r = await runExamples('README.md');
  t.is(r.code, 0, `${r.stderr}\n--- stdout\n${r.stdout}\n--- service\n${r.service.slice(-3000)}`);
  t.regex(r.stdout, /"email":"you@example.org"/);
  const webp = readFileSync(path.join(r.dir, 'photo.webp'));
  t.is(webp.subarray(8, 12).toString('latin1'), 'WEBP');
  const report = JSON.parse(readFileSync(path.join(r.dir, 'report.json'), 'utf8'));
  t.regex(report.files[0].grade, /^[A-F]$/);
  t.is(readFileSync(path.join(r.dir, 'hidden.png')).subarray(1, 4).toString('latin1'), 'PNG');
  t.deepEqual(readFileSync(path.join(r.dir, 'revealed/secret.txt')), readFileSync(path.join(r.dir, 'secret.txt')));
  t.regex(r.stdout, /the same file/);
  t.is((r.stdout.match(/^completed$/gm) ?? []).length, 3); // convert, hide, reveal
});

test.serial('docs/api.md: v1 from create-media-url to the result, as written', async (t) => {
  const r = await runExamples('docs/api.md');
  t.is(r.code, 0, `${r.stderr}\n--- stdout\n${r.stdout}\n--- service\n${r.service.slice(-3000)}`);
  t.regex(r.stdout, /^COMPLETED$/m);
  t.regex(r.stdout, /^"[A-F]"$/m);
});

test.serial('docs/agents.md: /mcp with curl, as written', async (t) => {
  const r = await runExamples('docs/agents.md');
  t.is(r.code, 0, `${r.stderr}\n--- stdout\n${r.stdout}\n--- service\n${r.service.slice(-3000)}`);
  t.regex(r.stdout, /^obscura$/m);
  t.regex(r.stdout, /^get_started$/m);
  t.regex(r.stdout, /"upload_uid": "up_/);
  t.regex(r.stdout, /"type": "analyse"/);
});

/** The ```json answer=<name> blocks of docs/api.md. */
function documented(): Record<string, any> {
  const text = readFileSync('docs/api.md', 'utf8');
  return Object.fromEntries([...text.matchAll(/^```json answer=([\w-]+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1], JSON.parse(m[2])]));
}

const keys = (o: object) => Object.keys(o).sort();

/** One real service for the shape checks, with a key, and small clients of its API. */
async function shapeClient(t: ExecutionContext) {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const base = svc.url.clearnet;
  const call = async (method: string, p: string, init: { json?: unknown; body?: Buffer; headers?: Record<string, string> } = {}): Promise<any> => {
    const headers: Record<string, string> = { 'X-Api-Key': key, ...init.headers };
    if (init.json !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(base + p, { method, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
    t.true(res.ok, `${method} ${p}: ${res.status}`);
    return res.json();
  };
  const upload = (uid: string, step: number, name: string, body: Buffer) =>
    call('POST', '/api/upload', { body, headers: { 'X-Upload-Uid': uid, 'X-Upload-Step': String(step), 'X-Filename': name } });
  const settle = async (p: string): Promise<any> => {
    for (;;) {
      const v = await call('GET', `${p}?wait=30`);
      if (!['queued', 'processing'].includes(v.status)) return v;
    }
  };
  return { key, base, call, upload, settle, doc: documented() };
}

const photo = readFileSync(PHOTO);

test.serial('docs/api.md: every documented answer is there', (t) => {
  t.deepEqual(keys(documented()), ['analyse-result', 'convert-results', 'poll', 'session', 'start', 'stego-results', 'upload', 'v1-status']);
});

test.serial('docs/api.md: session, upload, start, poll and convert results have the documented fields, no more, no fewer', async (t) => {
  const { call, upload, settle, doc } = await shapeClient(t);
  const session = await call('POST', '/api/convert/session');
  t.deepEqual(keys(session), keys(doc.session), 'session');
  const up = await upload(session.upload_uid, 1, 'photo.jpg', photo);
  t.deepEqual(keys(up), keys(doc.upload), 'upload');
  t.deepEqual(keys(up.file), keys(doc.upload.file), 'upload.file');
  const start = await call('POST', '/api/convert/job', { json: { upload_uid: session.upload_uid, image_format: 'webp', width: 800 } });
  t.deepEqual(keys(start), keys(doc.start), 'start');
  const poll = await settle(`/api/convert/job/${session.upload_uid}`);
  t.is(poll.status, 'completed');
  t.deepEqual(keys(poll), keys(doc.poll), 'poll');
  const converted = await call('GET', `/api/convert/job/${session.upload_uid}/results`);
  t.deepEqual(keys(converted), keys(doc['convert-results']), 'convert results');
  t.deepEqual(keys(converted.result_files[0]), keys(doc['convert-results'].result_files[0]), 'convert result file');
});

test.serial('docs/api.md: hide and reveal results have the documented fields', async (t) => {
  const { key, call, upload, settle, doc } = await shapeClient(t);
  const hide = await call('POST', '/api/session', { json: { type: 'hide' } });
  await upload(hide.upload_uid, 1, 'secret.txt', Buffer.from('a secret\n'));
  await upload(hide.upload_uid, 2, 'photo.jpg', photo);
  await call('POST', '/api/job', { json: { upload_uid: hide.upload_uid, password: 'correct horse battery staple' } });
  t.is((await settle(`/api/job/${hide.upload_uid}`)).status, 'completed');
  const hidden = await call('GET', `/api/job/${hide.upload_uid}/results`);
  // the example is a reveal's: a hide's results are the same but for hidden_with, which only a reveal has
  t.deepEqual(keys(hidden), keys(doc['stego-results']).filter((k) => k !== 'hidden_with'), 'hide results');
  const stego = Buffer.from(await (await fetch(hidden.result_files[0].download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
  const reveal = await call('POST', '/api/session', { json: { type: 'reveal' } });
  await upload(reveal.upload_uid, 1, 'hidden.png', stego);
  await call('POST', '/api/job', { json: { upload_uid: reveal.upload_uid, password: 'correct horse battery staple' } });
  t.is((await settle(`/api/job/${reveal.upload_uid}`)).status, 'completed');
  const revealed = await call('GET', `/api/job/${reveal.upload_uid}/results`);
  t.deepEqual(keys(revealed), keys(doc['stego-results']), 'reveal results');
  t.deepEqual(keys(revealed.result_files[0]), keys(doc['stego-results'].result_files[0]), 'reveal result file');
});

test.serial('docs/api.md: the analyse result, its item, verdicts, media and assets, and v1\'s status have the documented fields', async (t) => {
  const { key, base, call, upload, settle, doc } = await shapeClient(t);
  const an = await call('POST', '/api/analyse/session');
  await upload(an.upload_uid, 1, 'photo.jpg', photo);
  const job = await call('POST', '/api/analyse/job', { json: { upload_uid: an.upload_uid } });
  t.is((await settle(`/api/analyse/job/${an.upload_uid}`)).status, 'completed');
  const result = await call('GET', `/api/analyse/result/${job.job_uid}`);
  const item = result.files[0];
  const docItem = doc['analyse-result'].files[0];
  t.deepEqual(keys(result), keys(doc['analyse-result']), 'analyse result');
  t.deepEqual(keys(item), keys(docItem), 'analyse item');
  t.deepEqual(keys(item.verdicts), keys(docItem.verdicts), 'analyse verdicts');
  t.deepEqual(keys(item.media), keys(docItem.media), 'analyse media');
  t.deepEqual(keys(item.assets[0]), keys(docItem.assets[0]), 'analyse asset');

  // v1: the same file as a media-url, analysed at the standard depth; its status when done
  const v1 = { api_key: key };
  const created = await fetch(`${base}/v1/upload/create-media-url`, { method: 'POST', headers: { ...v1, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'photo.jpg', size: photo.length }) });
  const location = created.headers.get('location')!;
  const form = new FormData();
  form.append('offset', '0');
  form.append('file', new Blob([photo]), 'photo.jpg');
  t.true((await fetch(location, { method: 'PATCH', headers: v1, body: form })).ok);
  const started = await fetch(`${base}/v1/job/analyse`, { method: 'POST', headers: { ...v1, 'Content-Type': 'application/json' }, body: JSON.stringify({ key: location.split('/').pop(), enableTips: true, enableExtraAnalysis: false }) });
  const v1job = (await started.json()) as { key: string };
  let status: any;
  do {
    await new Promise((r) => setTimeout(r, 500));
    status = await (await fetch(`${base}/v1/job/status/${v1job.key}`, { method: 'POST', headers: v1 })).json();
  } while (status.status === 'WAITING' || status.status === 'PROCESSING');
  t.is(status.status, 'COMPLETED');
  t.deepEqual(keys(status), keys(doc['v1-status']), 'v1 status');
});

test.serial('every repository path the README and docs name exists', (t) => {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  const dirNames = new Set(tracked.flatMap((f) => f.split('/').slice(0, -1)));
  const ignored = (p: string) => {
    try {
      execFileSync('git', ['check-ignore', '-q', p]);
      return true; // made at run time (data/, .cache/, test-output/, secrets/)
    } catch {
      return false;
    }
  };
  const found = (p: string) => tracked.some((f) => f === p || f.endsWith(`/${p}`) || f.startsWith(`${p.replace(/\/$/, '')}/`) || f.includes(`/${p.replace(/\/$/, '')}/`));
  const missing: string[] = [];
  let checked = 0;
  for (const file of DOCS) {
    const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
    // a file named in prose, in backticks or not: the names a reader would look for
    for (const [, name] of text.matchAll(/(?<![\w/.-])([\w-]+\.md)\b/g)) {
      checked++;
      if (!found(name)) missing.push(`${file}: ${name}`);
    }
    for (const [, raw] of text.matchAll(/`([^`\s]+)`/g)) {
      const p = raw.replace(/^\.\//, '');
      if (p.startsWith('../')) {
        missing.push(`${file}: ${p} (outside the repository)`);
        continue;
      }
      if (!/^[\w.-][\w./-]*$/.test(p)) continue; // routes (/api/...), URLs, placeholders, options
      // a path: its first folder is one of the repository's (MCP method names like tools/list
      // are not), or a file name with a source extension
      const looks = p.includes('/') ? dirNames.has(p.split('/')[0]) && !/^(tools|notifications)\/\w+$/.test(p) : /\.(ts|md|sh|service|pem|ya?ml)$/.test(p);
      if (!looks || ignored(p)) continue;
      checked++;
      if (!found(p)) missing.push(`${file}: ${p}`);
    }
    // relative links
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      checked++;
      if (!existsSync(path.join(path.dirname(file), target))) missing.push(`${file}: link ${target}`);
    }
  }
  t.true(checked > 100, `only ${checked} paths checked`);
  t.deepEqual(missing, []);
});

test.serial('every link to a heading lands on a heading', (t) => {
  const slug = (h: string) => h.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
  const anchors = new Map(DOCS.map((f) => [f, new Set([...readFileSync(f, 'utf8').replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])))]));
  const broken: string[] = [];
  for (const file of DOCS) {
    for (const [, target, anchor] of readFileSync(file, 'utf8').matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)) {
      const to = target ? path.normalize(path.join(path.dirname(file), target)) : file;
      if (!anchors.get(to)?.has(anchor)) broken.push(`${file}: ${target}#${anchor}`);
    }
  }
  t.deepEqual(broken, []);
});
