// The operator's metrics (docs/operators.md "Metrics"): a real service with its metrics listener on
// loopback, real traffic through its API (uploads by two protocols, a convert job, a refusal),
// then GET /metrics with a real HTTP client and the text format read back.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { test } from './helpers/test.ts';
import { startChild, exited, freePort } from './helpers/child.ts';
import { PHOTO } from './helpers/media.ts';
import { startPostgres } from './helpers/postgres.ts';
import { startService, tempDir, type RunningService } from './helpers/service.ts';
import { finishJob } from './helpers/stego-jobs.ts';
import { tusUpload, uploadFile } from './helpers/upload-files.ts';
import { loadConfig, ConfigError } from '../src/config.ts';
import { spawn } from 'node:child_process';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text format, as a scraper reads it: the samples, and every metric family named by a TYPE line. */
function parse(text: string): { samples: Sample[]; families: Set<string> } {
  const samples: Sample[] = [];
  const families = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) families.add(type[1]);
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not the text format: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return { samples, families };
}

async function scrape(url: string) {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  return { contentType: res.headers.get('content-type'), ...parse(await res.text()) };
}

/** The sum of a metric's samples whose labels include `where`. */
function value(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}


test('a convert job, uploads by direct and TUS, a refusal and requests on each listener move the counters; no label holds an id, key, name or address', async (t) => {
  const svc = await startService({ OBSCURA_METRICS_LISTEN: '127.0.0.1:0', OBSCURA_RATE_VISITOR_PER_MINUTE: '3', OBSCURA_WORKERS: '1' });
  t.teardown(() => svc.close());
  t.truthy(svc.metricsUrl, 'the metrics listener is up');
  t.regex(svc.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const before = await scrape(svc.metricsUrl!);
  t.is(before.contentType, 'text/plain; version=0.0.4; charset=utf-8');
  t.is(value(before.samples, 'obscura_jobs_finished_total'), 0);
  t.is(value(before.samples, 'obscura_upload_bytes_total'), 0);

  const { email, key } = await svc.account();
  const photo = readFileSync(PHOTO);
  const direct = 'Anna Müller passport scan.jpg';
  const viaTus = 'Protest-Route-Secret.jpg';
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid as string;
  await uploadFile(svc, key, uid, 1, direct, photo);
  const tusUrl = await tusUpload(svc, key, uid, 1, viaTus, photo);
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png', width: 200 });
  t.is(start.status, 201);
  const done = await finishJob(svc, key, uid, '/api/convert/job');
  t.is(done.status, 'completed', done.progress_message);
  // the I2P listener counts requests without i2pd's header as one visitor: the fourth in a minute is refused
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await fetch(`${svc.url.i2p}/api/status`)).status);
  t.deepEqual(statuses, [200, 200, 200, 429]);
  t.is((await fetch(`${svc.url.onion}/api/status`)).status, 200);
  t.is((await svc.api('GET', `/api/convert/session/${uid}/files`, 'sw_not-a-key')).status, 401);

  const text = await (await fetch(svc.metricsUrl!)).text();
  const { samples, families } = parse(text);
  t.is(value(samples, 'obscura_jobs_finished_total', { product: 'convert', outcome: 'completed' }), 1);
  t.is(value(samples, 'obscura_jobs_finished_total', { outcome: 'failed' }), 0);
  t.is(value(samples, 'obscura_job_duration_seconds_count', { product: 'convert' }), 1);
  t.is(value(samples, 'obscura_job_run_seconds_count', { product: 'convert' }), 1);
  t.true(value(samples, 'obscura_job_duration_seconds_sum', { product: 'convert' }) >= value(samples, 'obscura_job_run_seconds_sum', { product: 'convert' }), 'queued to end spans the run');
  t.is(value(samples, 'obscura_job_duration_seconds_bucket', { product: 'convert', le: '+Inf' }), 1);
  t.is(value(samples, 'obscura_job_lease_takeovers_total'), 0);
  t.is(value(samples, 'obscura_jobs', { product: 'convert', state: 'queued' }), 0, 'read from the queue at scrape time');
  t.is(value(samples, 'obscura_jobs', { product: 'convert', state: 'processing' }), 0);
  t.is(value(samples, 'obscura_queue_depth'), 0);
  t.is(value(samples, 'obscura_upload_bytes_total', { protocol: 'direct' }), photo.length);
  t.is(value(samples, 'obscura_upload_bytes_total', { protocol: 'tus' }), photo.length);
  t.is(value(samples, 'obscura_upload_bytes_total', { protocol: 'v1' }), 0);
  t.is(value(samples, 'obscura_rate_limit_refusals_total', { limit: 'visitor_requests' }), 1);
  t.is(value(samples, 'obscura_http_requests_total', { listener: 'clearnet', method: 'POST', route: '/api/convert/job', status: '201' }), 1);
  t.is(value(samples, 'obscura_http_requests_total', { listener: 'clearnet', method: 'POST', route: '/api/tus', status: '201' }), 1);
  t.is(value(samples, 'obscura_http_requests_total', { listener: 'clearnet', route: '/api/convert/session/:uid/files', status: '401' }), 1);
  t.is(value(samples, 'obscura_http_requests_total', { listener: 'i2p', route: '/api/status', status: '200' }), 3);
  t.is(value(samples, 'obscura_http_requests_total', { listener: 'i2p', status: '429' }), 1);
  t.is(value(samples, 'obscura_http_requests_total', { listener: 'onion', route: '/api/status', status: '200' }), 1);
  t.true(value(samples, 'obscura_http_requests_total', { listener: 'clearnet', method: 'GET', route: '/api/convert/job/:uid', status: '200' }) >= 1, 'the polls');
  t.is(value(samples, 'obscura_workers'), 1);
  t.is(value(samples, 'obscura_workers_busy'), 0);
  t.true(value(samples, 'obscura_media_memory_budget_bytes') >= 256 * 1024 * 1024);
  t.is(value(samples, 'obscura_media_memory_reserved_bytes'), 0);
  t.true(families.has('obscura_blob_store_errors_total'));
  t.true(families.has('obscura_process_cpu_user_seconds_total'), "prom-client's process metrics, on our registry");
  t.true(families.has('obscura_nodejs_eventloop_lag_seconds'));

  // nothing that names whom or what: not in a label, not anywhere in the answer
  // the stored objects' ids: the two uploads and the two results
  const assetIds = readdirSync(path.join(svc.dataDir, 'blobs'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.obj'))
    .map((f) => path.basename(f, '.obj'));
  const secrets = [key, key.slice(0, 12), email, uid, done.job_uid, direct, encodeURIComponent(direct), viaTus, new URL(tusUrl).pathname.split('/').pop()!, '127.0.0.1', ...assetIds];
  t.true(secrets.every(Boolean));
  t.is(assetIds.length, 4);
  for (const s of samples) {
    for (const v of Object.values(s.labels)) {
      for (const secret of secrets) t.false(v.includes(secret), `${s.name} has a label holding ${secret}`);
      t.notRegex(v, /(job|st|as|ses|acc)_[A-Za-z0-9_-]{8,}/, `${s.name}: ${v} looks like an id`);
    }
  }
  for (const secret of secrets) t.false(text.includes(secret), `the metrics mention ${secret}`);

  // the listener serves /metrics and nothing else
  const other = await fetch(svc.metricsUrl!.replace('/metrics', '/api/status'));
  t.is(other.status, 404);
  t.like(await other.json(), { error: 'not_found' });
  const post = await fetch(svc.metricsUrl!, { method: 'POST', body: 'x' });
  t.is(post.status, 405);
  t.is(post.headers.get('allow'), 'GET, HEAD');
  t.like(await post.json(), { error: 'method_not_allowed' });
  t.is((await fetch(`${svc.url.clearnet}/metrics`)).status, 404, 'the public listeners do not serve it');
});

test('a result whose stored bytes were damaged on disk: its download fails and obscura_blob_store_errors_total counts the read', async (t) => {
  const svc = await startService({ OBSCURA_METRICS_LISTEN: '127.0.0.1:0', OBSCURA_WORKERS: '1' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid as string;
  await uploadFile(svc, key, uid, 1, 'photo.jpg', readFileSync(PHOTO));
  t.is((await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png', width: 200 })).status, 201);
  t.is((await finishJob(svc, key, uid, '/api/convert/job')).status, 'completed');
  t.is(value((await scrape(svc.metricsUrl!)).samples, 'obscura_blob_store_errors_total'), 0);
  // the disk loses some bits of the result (ids as_…): flipped in the middle of its ciphertext
  const shard = path.join(svc.dataDir, 'blobs', 'as');
  for (const f of readdirSync(shard).filter((f) => f.endsWith('.obj'))) {
    const bytes = readFileSync(path.join(shard, f));
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(path.join(shard, f), bytes);
  }
  const results = await svc.api('GET', `/api/convert/job/${uid}/results`, key);
  const url = results.body.result_files?.[0]?.download_url as string;
  t.truthy(url);
  const whole = await fetch(url, { headers: { 'X-Api-Key': key } }).then(
    async (r) => r.status === 200 && (await r.arrayBuffer()).byteLength === results.body.result_files[0].file_size,
    () => false,
  );
  t.false(whole, 'the damaged result is not served as if whole');
  const { samples } = await scrape(svc.metricsUrl!);
  t.true(value(samples, 'obscura_blob_store_errors_total') >= 1);
  t.deepEqual(
    [...new Set(samples.filter((s) => s.name === 'obscura_blob_store_errors_total' && s.value > 0).map((s) => s.labels.operation))].every((op) => ['read', 'size'].includes(op)),
    true,
  );
});

test('with many instances: a job whose instance died is taken over when its lease runs out, and the instance that took it counts the takeover', async (t) => {
  const pgc = await startPostgres();
  t.teardown(() => pgc.stop());
  const db = await pgc.database();
  const shared = { OBSCURA_DATABASE_URL: db, OBSCURA_MASTER_KEY: randomBytes(32).toString('base64url'), OBSCURA_DATA_DIR: tempDir(), OBSCURA_JOB_LEASE: '2s' };
  // a front end that runs no jobs takes the upload and the job start
  const front = await startService({ ...shared, OBSCURA_RUN_JOBS: 'off', OBSCURA_METRICS_LISTEN: '127.0.0.1:0' });
  t.teardown(() => front.close());
  const { key } = await front.account();
  const uid = (await front.api('POST', '/api/convert/session', key, {})).body.upload_uid as string;
  await uploadFile(front, key, uid, 1, 'photo.jpg', readFileSync(PHOTO));
  const start = await front.api('POST', '/api/convert/job', key, { upload_uid: uid, image_format: 'png', width: 200 });
  t.is(start.status, 201);
  // an instance claimed it and died: the row is processing under a lease that has run out
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  t.teardown(() => client.end());
  const r = await client.query("UPDATE jobs SET state = 'processing', lease_owner = 'inst_died', lease_until = $1, attempts = 1 WHERE id = $2", [Date.now() - 1, start.body.job_uid]);
  t.is(r.rowCount, 1);
  t.like(parse(await (await fetch(front.metricsUrl!)).text()).samples.find((s) => s.name === 'obscura_jobs' && s.labels.state === 'processing' && s.labels.product === 'convert'), { value: 1 }, 'gauges read the shared queue');

  const worker = await startService({ ...shared, OBSCURA_METRICS_LISTEN: '127.0.0.1:0', OBSCURA_WORKERS: '1' });
  t.teardown(() => worker.close());
  t.is((await finishJob(front, key, uid, '/api/convert/job')).status, 'completed');
  const { samples } = await scrape(worker.metricsUrl!);
  t.is(value(samples, 'obscura_job_lease_takeovers_total', { product: 'convert' }), 1);
  t.is(value(samples, 'obscura_jobs_finished_total', { product: 'convert', outcome: 'completed' }), 1);
  const fronts = (await scrape(front.metricsUrl!)).samples;
  t.is(value(fronts, 'obscura_job_lease_takeovers_total'), 0, 'counted where it happened');
  t.is(value(fronts, 'obscura_jobs', { state: 'processing' }), 0);
});

test('off by default; a non-loopback address is refused at start with a clear error unless allowed; the running service serves it and closes it on SIGTERM', async (t) => {
  t.deepEqual(loadConfig({}).metrics, { listen: { kind: 'off' }, allowRemote: false });
  const plain = await startService();
  t.teardown(() => plain.close());
  t.is(plain.metricsUrl, undefined, 'no metrics listener unless configured');
  for (const at of ['0.0.0.0:9464', '[::]:9464', '192.0.2.10:9464', 'metrics.internal:9464']) {
    const err = t.throws(() => loadConfig({ OBSCURA_METRICS_LISTEN: at }), { instanceOf: ConfigError });
    t.regex(err!.message, /OBSCURA_METRICS_LISTEN=.*not a loopback address.*OBSCURA_METRICS_ALLOW_REMOTE=true/s);
  }
  t.deepEqual(loadConfig({ OBSCURA_METRICS_LISTEN: '0.0.0.0:9464', OBSCURA_METRICS_ALLOW_REMOTE: 'true' }).metrics.listen, { kind: 'tcp', host: '0.0.0.0', port: 9464 });
  t.deepEqual(loadConfig({ OBSCURA_METRICS_LISTEN: 'localhost:9464' }).metrics.listen, { kind: 'tcp', host: 'localhost', port: 9464 });

  // the real process: refused before it opens anything, with the reason on stderr and EX_CONFIG
  const refused = spawn(process.execPath, ['--import', './test/helpers/no-egress.ts', 'src/main.ts'], {
    env: { ...process.env, OBSCURA_DATA_DIR: tempDir(), OBSCURA_METRICS_LISTEN: '0.0.0.0:9464', OBSCURA_CLEARNET_LISTEN: '127.0.0.1:0', OBSCURA_ONION_LISTEN: 'off', OBSCURA_I2P_LISTEN: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  refused.stderr!.on('data', (c) => (stderr += c));
  await exited(refused);
  t.is(refused.exitCode, 78);
  t.regex(stderr, /OBSCURA_METRICS_LISTEN="0\.0\.0\.0:9464": not a loopback address/);

  const port = await freePort();
  const metricsPort = await freePort();
  const child = await startChild(tempDir(), port, { OBSCURA_METRICS_LISTEN: `127.0.0.1:${metricsPort}` });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  t.teardown(() => child.kill('SIGKILL'));
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  t.is(res.status, 200);
  t.true(parse(await res.text()).families.has('obscura_http_requests_total'));
  child.kill('SIGTERM');
  await exited(child);
  t.is(child.exitCode, 0);
  await t.throwsAsync(fetch(`http://127.0.0.1:${metricsPort}/metrics`), undefined, 'closed with the others on shutdown');
});

test('every panel of the Grafana dashboard queries only metrics the service exports', async (t) => {
  const svc = await startService({ OBSCURA_METRICS_LISTEN: '127.0.0.1:0' });
  t.teardown(() => svc.close());
  const { families } = await scrape(svc.metricsUrl!);
  // a histogram family exports name_bucket, name_sum and name_count
  const exported = new Set([...families].flatMap((f) => [f, `${f}_bucket`, `${f}_sum`, `${f}_count`]));
  const dashboard = JSON.parse(readFileSync(path.join(import.meta.dirname, '../deploy/grafana/obscura-dashboard.json'), 'utf8'));
  t.true(dashboard.templating.list.some((v: any) => v.type === 'datasource' && v.query === 'prometheus'), 'the Prometheus datasource is a template variable');
  const panels: any[] = dashboard.panels.flatMap((p: any) => [p, ...(p.panels ?? [])]).filter((p: any) => p.type !== 'row');
  t.true(panels.length >= 8);
  const PROMQL = new Set(['sum', 'rate', 'irate', 'increase', 'by', 'without', 'histogram_quantile', 'le', 'max', 'min', 'avg', 'count', 'on', 'ignoring', 'group_left', 'group_right', 'clamp_min', 'topk', 'or', 'and', 'unless', 'offset', 'bool', 'sort_desc', 'vector', 'abs', 'time']);
  const used = new Set<string>();
  for (const p of panels) {
    t.truthy(p.targets?.length, `panel "${p.title}" has a query`);
    t.is(p.datasource?.uid, '${datasource}', `panel "${p.title}" uses the datasource variable`);
    for (const target of p.targets) {
      // label matchers, strings, durations and numbers out; what is left are function names, keywords and metric names
      const bare = String(target.expr)
        .replace(/\{[^}]*\}/g, ' ')
        .replace(/"[^"]*"/g, ' ')
        .replace(/\[[^\]]*\]/g, ' ')
        .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ');
      const names = (bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((w) => !PROMQL.has(w) && !/^\d/.test(w));
      t.true(names.length > 0, `panel "${p.title}": ${target.expr} names a metric`);
      for (const n of names) {
        t.true(exported.has(n), `panel "${p.title}" queries ${n}, which the service does not export`);
        used.add(n.replace(/_(bucket|sum|count)$/, (m) => (families.has(n) ? m : '')));
      }
    }
  }
  for (const f of ['obscura_jobs_finished_total', 'obscura_job_duration_seconds', 'obscura_job_run_seconds', 'obscura_jobs', 'obscura_queue_depth', 'obscura_job_lease_takeovers_total', 'obscura_upload_bytes_total', 'obscura_rate_limit_refusals_total', 'obscura_http_requests_total', 'obscura_workers_busy', 'obscura_workers', 'obscura_media_memory_reserved_bytes', 'obscura_blob_store_errors_total']) {
    t.true(used.has(f), `the dashboard shows ${f}`);
  }
});
