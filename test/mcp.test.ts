// The remote MCP endpoint, through the SDK's own client over Streamable HTTP at revision
// 2025-03-26: discovery without a key, keyed tools under the REST API's key checks and limits,
// and a whole conversion done only with the tools and the upload they describe.
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { mcpClient, PINNED, type ToolAnswer } from './helpers/mcp.ts';
import { PHOTO } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { FITS, IMAGE_TARGETS, VIDEO_TARGETS } from '../src/media/convert/options.ts';

const KEYED = [
  'create_session',
  'get_upload_instructions',
  'list_session_files',
  'start_hide_job',
  'start_reveal_job',
  'start_analyse_job',
  'start_convert_job',
  'get_job_status',
  'get_analyse_result',
  'get_job_results',
  'delete_session',
];
const DISCOVERY = ['status', 'get_started', 'get_capabilities'];
const PASSWORD = 'a long and private passphrase';

/** A tool error names its code in its structured content and in its text. */
function errorCode(r: ToolAnswer): string | undefined {
  if (!r.isError) return undefined;
  const text = r.content.map((c) => c.text ?? '').join('');
  if (!text.includes(r.structuredContent?.error)) return `text does not name ${r.structuredContent?.error}`;
  return r.structuredContent.error;
}

test('initialize answers revision 2025-03-26; tools/list has every tool with its annotations; discovery needs no key', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const mcp = await mcpClient(svc.url.clearnet); // no key at all
  t.teardown(() => mcp.close());

  t.is(mcp.wire.initialize?.protocolVersion, PINNED);
  t.is(mcp.transport.protocolVersion, PINNED);
  t.is(mcp.wire.initialize?.serverInfo.name, 'obscura');
  t.regex(mcp.wire.initialize?.instructions ?? '', /get_started/);

  const { tools } = await mcp.client.listTools();
  t.deepEqual(tools.map((x) => x.name).sort(), [...DISCOVERY, ...KEYED].sort());
  t.true(mcp.wire.requests.filter((r) => r.method === 'POST').slice(1).every((r) => r.version === PINNED), 'later requests carry MCP-Protocol-Version 2025-03-26');
  const byName = new Map(tools.map((x) => [x.name, x]));
  for (const name of [...DISCOVERY, 'get_upload_instructions', 'list_session_files', 'get_job_status', 'get_analyse_result', 'get_job_results']) {
    t.is(byName.get(name)!.annotations?.readOnlyHint, true, `${name} is read-only`);
  }
  for (const name of ['create_session', 'start_hide_job', 'start_reveal_job', 'start_analyse_job', 'start_convert_job']) {
    t.like(byName.get(name)!.annotations, { readOnlyHint: false, destructiveHint: false }, name);
  }
  t.like(byName.get('delete_session')!.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  for (const x of tools) {
    t.is(x.annotations?.openWorldHint, false, `${x.name} reaches nothing outside the service`);
    t.is(x.outputSchema?.type, 'object', `${x.name} has an output schema`);
  }
  // the key is never an argument
  for (const x of tools) t.false(JSON.stringify(x.inputSchema).toLowerCase().includes('key'), `${x.name} takes no key`);
  t.deepEqual((byName.get('start_convert_job')!.inputSchema.properties as any).image_format.enum, [...IMAGE_TARGETS]);

  const status = await mcp.call('status');
  t.falsy(status.isError);
  t.like(status.structuredContent, { status: 'UP', service: 'obscura', maintenance: false });
  t.deepEqual(JSON.parse(status.content[0].text!), status.structuredContent, 'the text is the same view, for 2025-03-26 clients');

  const started = await mcp.call('get_started');
  const guide: string = started.structuredContent.guide;
  t.is(started.structuredContent.api_url, `${svc.url.clearnet}/api`);
  for (const needle of ['create_session', 'get_upload_instructions', `POST ${svc.url.clearnet}/api/upload`, 'X-Upload-Uid', 'X-Upload-Step', `${svc.url.clearnet}/api/tus`, 'Tus-Resumable: 1.0.0', 'get_job_status', 'wait', 'download_url', 'X-Api-Key']) {
    t.true(guide.includes(needle), `the guide says ${needle}`);
  }

  const caps = (await mcp.call('get_capabilities')).structuredContent;
  t.deepEqual(caps.convert.image_formats, [...IMAGE_TARGETS]);
  t.deepEqual(caps.convert.video_formats, [...VIDEO_TARGETS]);
  t.deepEqual(caps.convert.fits, [...FITS]);
  t.true(caps.convert.lossless_formats.includes('png'));
  t.false(caps.convert.lossless_formats.includes('jpeg'), 'probed through the API parser: JPEG has no lossless mode');
  t.deepEqual(caps.products.map((p: any) => p.product).sort(), ['analyse', 'convert', 'hide', 'reveal']);
  const hide = caps.products.find((p: any) => p.product === 'hide');
  t.deepEqual(hide.steps.map((s: any) => [s.step, s.what, s.max_files]), [[1, 'secret', 20], [2, 'cover', 1], [3, 'decoy', 20]]);
  t.truthy(hide.options.decoy_password, 'the decoy is offered to agents too');
  t.truthy(hide.options.password);
  t.is(caps.limits.file_max_bytes, svc.services.config.limits.fileMax);
  t.is(caps.limits.per_account.job_starts_per_hour, svc.services.config.abuse.jobsPerHour);
  t.deepEqual(caps.limits.result_expiry, { min: '10m', default: '1d', max: '7d' });
});

test('keyed tools: a good key works; no key, a malformed, a revoked, an unverified and an inactive account give the five 401 codes as tool errors', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { email, key } = await svc.account();

  const good = await mcpClient(svc.url.clearnet, key);
  t.teardown(() => good.close());
  const made = await good.call('create_session', { type: 'convert' });
  t.falsy(made.isError, JSON.stringify(made));
  t.regex(made.structuredContent.upload_uid, /^up_/);
  t.like(made.structuredContent, { type: 'convert', max_files: 20 });
  // the same view REST gives for the same session
  const rest = await svc.api('GET', `/api/convert/session/${made.structuredContent.upload_uid}`, key);
  t.deepEqual(made.structuredContent, rest.body);
  const files = await good.call('list_session_files', { upload_uid: made.structuredContent.upload_uid });
  t.deepEqual(files.structuredContent, { upload_uid: made.structuredContent.upload_uid, files: [] });

  const revoked = await svc.services.apiKeys.issue(email);
  await svc.services.apiKeys.revoke(revoked.id);
  await svc.services.accounts.create('unverified@example.org');
  const unverified = (await svc.services.apiKeys.issue('unverified@example.org')).key;
  const inactive = await svc.account();
  await svc.services.accounts.deactivate(inactive.email);
  const cases: [string | undefined, string][] = [
    [undefined, 'missing_api_key'],
    ['hello', 'malformed_api_key'],
    [revoked.key, 'invalid_api_key'],
    [unverified, 'account_not_verified'],
    [inactive.key, 'account_inactive'],
  ];
  for (const [presented, code] of cases) {
    const mcp = await mcpClient(svc.url.clearnet, presented);
    t.teardown(() => mcp.close());
    // discovery still answers
    t.falsy((await mcp.call('status')).isError, code);
    const r = await mcp.call('create_session', { type: 'hide' });
    t.is(errorCode(r), code);
    t.is(typeof r.structuredContent.message, 'string');
    const rest = await svc.api('POST', '/api/session', presented ?? '', { type: 'hide' });
    t.is(rest.body.error, code, `REST gives ${code} for the same key`);
  }
  const other = await (await mcpClient(svc.url.clearnet, revoked.key)).call('get_job_status', { upload_uid: made.structuredContent.upload_uid });
  t.is(errorCode(other), 'invalid_api_key', 'every keyed tool checks the key');

  // domain errors come back the same way
  const wrong = await good.call('get_upload_instructions', { upload_uid: made.structuredContent.upload_uid, step: 2 });
  t.is(errorCode(wrong), 'invalid_step');
  const none = await good.call('get_job_status', { upload_uid: 'up_nothing_here' });
  t.is(errorCode(none), 'session_not_found');
  const noFiles = await good.call('start_convert_job', { upload_uid: made.structuredContent.upload_uid, image_format: 'png' });
  t.is(errorCode(noFiles), 'no_files');
  // a bad argument is refused by its schema before the tool runs
  const bad = await good.call('start_convert_job', { upload_uid: made.structuredContent.upload_uid, image_format: 'bmp' });
  t.true(bad.isError);
  t.regex(bad.content[0].text!, /image_format/);
});

test('a whole conversion through the MCP tools and the upload they describe: the result is a real WebP, then delete_session destroys it', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const mcp = await mcpClient(svc.url.clearnet, key);
  t.teardown(() => mcp.close());

  const uid: string = (await mcp.call('create_session', { type: 'convert' })).structuredContent.upload_uid;
  const photo = await sharp(PHOTO).resize(400).jpeg().toBuffer();
  const how = await mcp.call('get_upload_instructions', { upload_uid: uid, step: 1, file_name: "Berg's Foto.jpg", size: photo.length });
  t.falsy(how.isError, JSON.stringify(how));
  const { direct, tus } = how.structuredContent;
  t.is(direct.url, `${svc.url.clearnet}/api/upload`);
  t.is(tus.endpoint, `${svc.url.clearnet}/api/tus`);
  t.is(direct.headers['X-Api-Key'], '<your API key>', 'the key is never echoed');
  t.false(JSON.stringify(how).includes(key));
  t.true(direct.max_bytes >= photo.length);

  // the upload, exactly as described, with the key filled in
  const up = await fetch(direct.url, { method: direct.method, headers: { ...direct.headers, 'X-Api-Key': key }, body: photo });
  t.is(up.status, 201, await up.clone().text());
  const listed = (await mcp.call('list_session_files', { upload_uid: uid })).structuredContent.files;
  t.like(listed, [{ name: "Berg's Foto.jpg", step: 1, size: photo.length, status: 'completed' }]);

  const started = await mcp.call('start_convert_job', { upload_uid: uid, image_format: 'webp', width: 200, quality: 80, expiry: '1h' });
  t.falsy(started.isError, JSON.stringify(started));
  t.like(started.structuredContent, { job_type: 'convert', status: 'queued', upload_uid: uid });

  let status: any;
  for (let i = 0; i < 20; i++) {
    status = (await mcp.call('get_job_status', { upload_uid: uid, wait: 10 })).structuredContent;
    if (['completed', 'partial', 'failed'].includes(status.status)) break;
  }
  t.is(status.status, 'completed', status.progress_message);
  t.is(status.job_uid, started.structuredContent.job_uid);

  const results = await mcp.call('get_job_results', { upload_uid: uid });
  t.falsy(results.isError, JSON.stringify(results));
  const [file] = results.structuredContent.result_files;
  t.is(file.output_name, "Berg's Foto.webp");
  t.true(file.download_url.startsWith(`${svc.url.clearnet}/api/convert/download/`));
  t.deepEqual(results.structuredContent, (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body, 'the view REST gives');
  const got = await fetch(file.download_url, { headers: { 'X-Api-Key': key } });
  t.is(got.status, 200);
  const bytes = Buffer.from(await got.arrayBuffer());
  t.is(bytes.length, file.file_size);
  const meta = await sharp(bytes).metadata();
  t.is(meta.format, 'webp');
  t.is(meta.width, 200);

  const analyseOnConvert = await mcp.call('get_analyse_result', { upload_uid: uid });
  t.is(errorCode(analyseOnConvert), 'session_not_found', 'an analyse tool does not read a convert session');

  const deleted = await mcp.call('delete_session', { upload_uid: uid });
  t.falsy(deleted.isError, JSON.stringify(deleted));
  t.deepEqual(deleted.structuredContent, { upload_uid: uid, type: 'convert', deleted: true, files_destroyed: 1, jobs_destroyed: 1 });
  t.is((await fetch(file.download_url, { headers: { 'X-Api-Key': key } })).status, 410, 'the result is gone');
  t.is(errorCode(await mcp.call('get_job_results', { upload_uid: uid })), 'session_expired');
  t.is(errorCode(await mcp.call('delete_session', { upload_uid: uid })), 'session_expired', 'a second delete changes nothing');
});

test('an analysis through the tools with a TUS upload as described; get_job_results points to get_analyse_result', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const mcp = await mcpClient(svc.url.clearnet, key);
  t.teardown(() => mcp.close());

  const uid: string = (await mcp.call('create_session', { type: 'analyse' })).structuredContent.upload_uid;
  const photo = await sharp(PHOTO).resize(320).jpeg().toBuffer();
  const { tus } = (await mcp.call('get_upload_instructions', { upload_uid: uid, step: 1, file_name: 'mountain.jpg', size: photo.length })).structuredContent;
  const created = await fetch(tus.endpoint, { method: 'POST', headers: { ...tus.create_headers, 'X-Api-Key': key } });
  t.is(created.status, 201, await created.clone().text());
  const location = created.headers.get('location')!;
  t.true(location.startsWith(`${tus.endpoint}/`));
  const half = Math.ceil(photo.length / 2);
  for (const [offset, chunk] of [[0, photo.subarray(0, half)], [half, photo.subarray(half)]] as const) {
    const patched = await fetch(location, { method: 'PATCH', headers: { ...tus.patch_headers, 'X-Api-Key': key, 'Upload-Offset': String(offset) }, body: chunk });
    t.is(patched.status, 204);
  }
  t.like((await mcp.call('list_session_files', { upload_uid: uid })).structuredContent.files, [{ name: 'mountain.jpg', status: 'completed' }]);

  const started = await mcp.call('start_analyse_job', { upload_uid: uid, tips: false });
  t.falsy(started.isError, JSON.stringify(started));
  let status: any;
  for (let i = 0; i < 20; i++) {
    status = (await mcp.call('get_job_status', { upload_uid: uid, wait: 10 })).structuredContent;
    if (['completed', 'partial', 'failed'].includes(status.status)) break;
  }
  t.is(status.status, 'completed', status.progress_message);
  t.is(errorCode(await mcp.call('get_job_results', { upload_uid: uid })), 'analyse_session');
  const byUpload = await mcp.call('get_analyse_result', { upload_uid: uid });
  const byJob = await mcp.call('get_analyse_result', { job_uid: started.structuredContent.job_uid });
  t.deepEqual(byUpload.structuredContent, byJob.structuredContent);
  t.deepEqual(byJob.structuredContent, (await svc.api('GET', `/api/analyse/result/${started.structuredContent.job_uid}`, key)).body, 'the view REST gives');
  const [item] = byJob.structuredContent.files;
  t.is(item.name, 'mountain.jpg');
  t.regex(item.grade, /^[A-F]$/);
  for (const a of item.assets) t.true(a.download_url.startsWith(`${svc.url.clearnet}/api/analyse/asset/`));
  t.is(errorCode(await mcp.call('get_analyse_result', {})), 'invalid_input');
});

test('hide and reveal through the tools: the secret comes back whole under its name', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const mcp = await mcpClient(svc.url.clearnet, key);
  t.teardown(() => mcp.close());
  const upload = async (uid: string, step: number, name: string, bytes: Buffer) => {
    const { direct } = (await mcp.call('get_upload_instructions', { upload_uid: uid, step, file_name: name })).structuredContent;
    const res = await fetch(direct.url, { method: 'POST', headers: { ...direct.headers, 'X-Api-Key': key }, body: bytes });
    t.is(res.status, 201);
  };
  const done = async (uid: string) => {
    for (;;) {
      const s = (await mcp.call('get_job_status', { upload_uid: uid, wait: 10 })).structuredContent;
      if (['completed', 'partial', 'failed'].includes(s.status)) return s;
    }
  };
  const secret = payload(2000);
  const hide: string = (await mcp.call('create_session', { type: 'hide' })).structuredContent.upload_uid;
  await upload(hide, 1, 'notes.bin', secret);
  await upload(hide, 2, 'cover.png', await sharp(PHOTO).resize(300).png().toBuffer());
  t.is(errorCode(await mcp.call('get_upload_instructions', { upload_uid: hide, step: 2 })), 'step_full', 'one cover only');
  t.falsy((await mcp.call('start_hide_job', { upload_uid: hide, password: PASSWORD })).isError);
  t.is((await done(hide)).status, 'completed');
  const [stego] = (await mcp.call('get_job_results', { upload_uid: hide })).structuredContent.result_files;
  t.is(stego.mime_type, 'image/png');
  const stegoBytes = Buffer.from(await (await fetch(stego.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());

  const reveal: string = (await mcp.call('create_session', { type: 'reveal' })).structuredContent.upload_uid;
  await upload(reveal, 1, 'holiday.png', stegoBytes);
  t.is(errorCode(await mcp.call('start_hide_job', { upload_uid: reveal, password: PASSWORD })), 'session_not_found', 'a hide does not run on a reveal session');
  t.falsy((await mcp.call('start_reveal_job', { upload_uid: reveal, password: PASSWORD })).isError);
  t.is((await done(reveal)).status, 'completed');
  const results = await mcp.call('get_job_results', { upload_uid: reveal });
  t.deepEqual(results.structuredContent, (await svc.api('GET', `/api/job/${reveal}/results`, key)).body, 'the view REST gives');
  const [back] = results.structuredContent.result_files;
  t.is(back.name, 'notes.bin');
  const bytes = Buffer.from(await (await fetch(back.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
  t.is(sha256(bytes), sha256(secret));
  const logged = svc.logs.join('');
  for (const secretThing of [PASSWORD, key, 'notes.bin', 'holiday.png']) t.false(logged.includes(secretThing), `the log names ${secretThing}`);
});

test('keyed tool calls count against the account like REST calls; discovery does not; a refused job start gives its place back', async (t) => {
  const svc = await startService({ OBSCURA_RATE_REQUESTS_PER_MINUTE: '6', OBSCURA_RATE_JOBS_PER_HOUR: '1' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const mcp = await mcpClient(svc.url.clearnet, key);
  t.teardown(() => mcp.close());

  const uid: string = (await mcp.call('create_session', { type: 'convert' })).structuredContent.upload_uid; // 1
  t.is(errorCode(await mcp.call('start_convert_job', { upload_uid: uid, image_format: 'png' })), 'no_files'); // 2, refused: no job counted
  const up = await fetch(`${svc.url.clearnet}/api/upload`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': '1' },
    body: await sharp(PHOTO).resize(64).png().toBuffer(),
  }); // 3, over REST
  t.is(up.status, 201);
  t.falsy((await mcp.call('start_convert_job', { upload_uid: uid, image_format: 'png' })).isError, 'the refused start gave its place back'); // 4
  const other: string = (await mcp.call('create_session', { type: 'convert' })).structuredContent.upload_uid; // 5
  const overJobs = await mcp.call('start_convert_job', { upload_uid: other, image_format: 'png' }); // 6
  t.is(errorCode(overJobs), 'rate_limited');
  t.regex(overJobs.structuredContent.message, /jobs/);
  t.true(overJobs.structuredContent.retry_after > 0);

  const overRequests = await mcp.call('list_session_files', { upload_uid: uid }); // 7: one more than six a minute
  t.is(errorCode(overRequests), 'rate_limited');
  t.true(overRequests.structuredContent.retry_after > 0);
  t.is((await svc.api('GET', '/api/account', key)).status, 429, 'REST shares the same count');
  for (let i = 0; i < 8; i++) t.falsy((await mcp.call('status')).isError, 'discovery needs no key and counts against no account');

  // another account is not held back by this one
  const mcp2 = await mcpClient(svc.url.clearnet, (await svc.account()).key);
  t.teardown(() => mcp2.close());
  t.falsy((await mcp2.call('create_session', { type: 'hide' })).isError);
});

test('wrong keys through the tools count towards the brake; while it is on, only keys in use are checked', async (t) => {
  const svc = await startService({ OBSCURA_RATE_BAD_KEYS: '3' });
  t.teardown(() => svc.close());
  const known = await svc.account();
  const inUse = await mcpClient(svc.url.clearnet, known.key);
  t.teardown(() => inUse.close());
  t.falsy((await inUse.call('create_session', { type: 'convert' })).isError);
  for (let i = 0; i < 4; i++) {
    const wrong = await mcpClient(svc.url.clearnet, `sw_${String(i).repeat(43)}`);
    t.teardown(() => wrong.close());
    t.is(errorCode(await wrong.call('create_session', { type: 'convert' })), 'invalid_api_key');
  }
  const fresh = await mcpClient(svc.url.clearnet, (await svc.account()).key);
  t.teardown(() => fresh.close());
  const braked = await fresh.call('create_session', { type: 'convert' });
  t.is(errorCode(braked), 'rate_limited', 'a key not seen before waits out the brake');
  t.true(braked.structuredContent.retry_after > 0);
  t.falsy((await inUse.call('create_session', { type: 'convert' })).isError, 'a key in use still works');
});

test('maintenance: the status tool says so and keyed tools refuse with retry_after, while REST answers 503', async (t) => {
  const svc = await startService({ OBSCURA_MAINTENANCE_RETRY_AFTER: '120' });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  await svc.services.maintenance.set(true);
  const mcp = await mcpClient(svc.url.clearnet, key);
  t.teardown(() => mcp.close());
  t.like((await mcp.call('status')).structuredContent, { status: 'MAINTENANCE', maintenance: true, retry_after: 120 });
  const refused = await mcp.call('create_session', { type: 'convert' });
  t.is(errorCode(refused), 'maintenance');
  t.is(refused.structuredContent.retry_after, 120);
  t.is((await fetch(`${svc.url.clearnet}/api/status`)).status, 503);
  await svc.services.maintenance.set(false);
  t.falsy((await mcp.call('create_session', { type: 'convert' })).isError);
});

test('HTTP: stateless JSON answers with the security headers, Origin checked, GET and DELETE 405, nothing on the onion and I2P listeners', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const url = `${svc.url.clearnet}/mcp`;
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PINNED, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  const r = await post(init);
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type')!, /^application\/json/);
  t.is(r.headers.get('mcp-session-id'), null, 'stateless: no session');
  t.is(r.headers.get('x-content-type-options'), 'nosniff');
  t.regex(r.headers.get('content-security-policy')!, /default-src 'none'/);
  t.is(r.headers.get('cache-control'), 'no-store');
  t.like(((await r.json()) as any).result, { protocolVersion: PINNED, serverInfo: { name: 'obscura' } });
  // a newer revision the SDK supports is accepted too
  const newer = await post({ ...init, params: { ...init.params, protocolVersion: '2025-06-18' } });
  t.is(((await newer.json()) as any).result.protocolVersion, '2025-06-18');
  // a request straight after, without initialize, is served: nothing is held between requests
  const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'MCP-Protocol-Version': PINNED });
  t.true(((await listed.json()) as any).result.tools.length > 10);

  // DNS-rebinding protection: a page elsewhere is refused, this origin and non-browsers are not
  const evil = await post(init, { Origin: 'http://evil.example' });
  t.is(evil.status, 403);
  t.like(await evil.json(), { error: 'origin_not_allowed' });
  t.is((await post(init, { Origin: 'null' })).status, 403);
  t.is((await post(init, { Origin: svc.url.clearnet })).status, 200);

  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(url, { method, headers: { Accept: 'text/event-stream' } });
    t.is(res.status, 405, method);
    t.is(res.headers.get('allow'), 'POST');
    t.like(await res.json(), { jsonrpc: '2.0', error: { code: -32000 } });
  }
  const html = await post(init, { Accept: 'application/json' });
  t.is(html.status, 406, 'the transport wants both JSON and SSE accepted');
  const junk = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{not json' });
  t.is(junk.status, 400);
  t.like(await junk.json(), { error: { code: -32700 } });

  for (const network of ['onion', 'i2p'] as const) {
    const unknown = await fetch(`${svc.url[network]}/no/such/path`);
    const mcp = await fetch(`${svc.url[network]}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify(init) });
    t.is(mcp.status, 404, network);
    t.deepEqual(await mcp.json(), await unknown.json(), `${network}: /mcp is any unknown path`);
    t.is((await fetch(`${svc.url[network]}/mcp`)).status, 404, network);
  }
  // nothing about the calls was logged but the route
  const lines = svc.logs.join('');
  t.false(lines.includes('evil.example'));
  t.regex(lines, /"route":"\/mcp"/);
});

/** Raw JSON-RPC over POST /mcp, as any client (or an abuser) may send it. */
function rawMcp(base: string, key?: string, headers: Record<string, string> = {}) {
  return (body: unknown) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': PINNED, ...(key ? { 'X-Api-Key': key } : {}), ...headers },
      body: JSON.stringify(body),
    });
}
const listBatch = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'tools/list' }));

test("a batch's answers together stay within OBSCURA_MCP_BATCH_ANSWER_MAX: 100 tools/list in 5 KB answer every id, the first in full and the rest left out with batch_answer_too_large; one tools/list alone is whole", async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const post = rawMcp(svc.url.clearnet);
  const single = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const one = await single.text();
  t.true(one.length > 10_000, `one tools/list answer is ${one.length} bytes`);

  const request = JSON.stringify(listBatch(100));
  t.true(request.length < 6000);
  const r = await post(listBatch(100));
  t.is(r.status, 200);
  const text = await r.text();
  // before: 100 whole answers, 2.5 MB
  t.log(`one tools/list: ${one.length} bytes; a batch of 100 (${request.length} bytes asked): ${text.length} bytes answered`);
  t.true(text.length <= 256 * 1024 + 100 * 400, `the batch's answer is ${text.length} bytes`);
  const answers = JSON.parse(text) as any[];
  t.deepEqual(answers.map((a) => a.id).sort((a, b) => a - b), listBatch(100).map((m) => m.id), 'every message is answered');
  const whole = answers.filter((a) => a.result);
  const left = answers.filter((a) => a.error);
  t.true(whole.length >= 1 && whole.every((a) => a.result.tools.length > 10), `${whole.length} answered in full`);
  t.true(left.length >= 80);
  for (const a of left) {
    t.like(a.error, { code: -32000, data: { error: 'batch_answer_too_large', max_bytes: 256 * 1024 } });
    t.regex(a.error.message, /Ask for it alone or in a smaller batch/);
  }
  t.deepEqual(svc.logs.filter((l) => /"level":(50|60)/.test(l)), [], 'no error logged');
});

test('keyless MCP calls are counted before they run, all together under OBSCURA_RATE_VISITOR_PER_MINUTE (a batch counts each message; then 429 with Retry-After); past that, a caller with a working key goes on, counted on its account', async (t) => {
  const svc = await startService({ OBSCURA_RATE_VISITOR_PER_MINUTE: '5', OBSCURA_RATE_REQUESTS_PER_MINUTE: '8' });
  t.teardown(() => svc.close());
  const keyless = rawMcp(svc.url.clearnet);
  const batch = await keyless(listBatch(8));
  t.is(batch.status, 200, 'some of the batch was served');
  const answers = (await batch.json()) as any[];
  t.is(answers.filter((a) => a.result).length, 5, 'five served');
  const refused = answers.filter((a) => a.error);
  t.is(refused.length, 3, 'the rest refused');
  for (const a of refused) {
    t.like(a.error, { code: -32000, data: { error: 'rate_limited' } });
    t.true(a.error.data.retry_after > 0);
    t.regex(a.error.message, /MCP requests a minute needing no key came to this service/);
  }
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PINNED, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const over = await keyless(init);
  t.is(over.status, 429, 'a request all of whose messages are refused is 429');
  t.true(Number(over.headers.get('retry-after')) > 0);
  t.like(await over.json(), { id: 1, error: { data: { error: 'rate_limited' } } });
  // a discovery tool, called without a key, is counted the same
  t.is((await keyless({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'status', arguments: {} } })).status, 429);
  // a wrong key is no way around it (and counts towards the brake, as anywhere)
  t.is((await rawMcp(svc.url.clearnet, `sw_${'0'.repeat(43)}`)(init)).status, 429);

  // with a working key: past the shared count, counted on the account
  const { key } = await svc.account();
  const keyed = rawMcp(svc.url.clearnet, key);
  const mine = (await (await keyed(listBatch(10))).json()) as any[];
  t.is(mine.filter((a) => a.result).length, 8, "the account's 8 a minute");
  t.regex(mine.find((a) => a.error).error.message, /This account made more than 8 requests in a minute/);
  t.is((await svc.api('GET', '/api/account', key)).status, 429, 'REST shares the count');
});

test('where the clearnet proxy names the client (OBSCURA_CLEARNET_CLIENT_HEADER), keyless MCP calls are counted per client: one client past its count leaves another served', async (t) => {
  const svc = await startService({ OBSCURA_RATE_VISITOR_PER_MINUTE: '5', OBSCURA_CLEARNET_CLIENT_HEADER: 'X-Forwarded-For' });
  t.teardown(() => svc.close());
  const a = rawMcp(svc.url.clearnet, undefined, { 'X-Forwarded-For': '198.51.100.7' });
  const b = rawMcp(svc.url.clearnet, undefined, { 'X-Forwarded-For': '203.0.113.9, 198.51.100.8' });
  const answers = (await (await a(listBatch(8))).json()) as any[];
  t.is(answers.filter((x) => x.result).length, 5, "the client's five");
  t.regex(answers.find((x) => x.error).error.message, /needing no key came from this client/);
  t.is((await a(listBatch(1))).status, 429);
  const other = await b(listBatch(1)[0]);
  t.is(other.status, 200, 'another client is served');
  t.truthy(((await other.json()) as any).result);
  t.false(svc.logs.some((l) => l.includes('198.51.100') || l.includes('203.0.113')), 'no client address in the logs');
});
