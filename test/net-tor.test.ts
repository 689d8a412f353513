// The onion service on a real, private Tor network on loopback: one directory authority and
// three relays (tor-network.ts), and one tor that is both the onion service and the visitor's
// client, started by the shipped deploy/tor/run.sh with the shipped torrc and
// onion-service.conf, plus only this network's options on its command line. The real service
// runs in this process with its onion listener on a unix socket; the visitor speaks HTTP through
// that tor's SOCKS port (socks5h: tor resolves the .onion). Also, without any network: what
// run.sh writes and refuses, how it stops, and that the old --HiddenServiceDir defect stays gone.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import * as tus from 'tus-js-client';
import { test } from './helpers/test.ts';
import { startService, type RunningService } from './helpers/service.ts';
import { freePort } from './helpers/child.ts';
import { PHOTO } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { startTorNetwork, type TorNetwork } from './helpers/tor-network.ts';
import { ORIGIN_LINE, RUN_SH, onionEnv, startOnionTor, type OnionTor } from './helpers/tor-onion.ts';
import { pidAlive } from './helpers/tor-process.ts';
import { until } from './helpers/until.ts';
import { socksHttp, type Exchange, type SocksHttp } from './helpers/tor-socks.ts';
import { startCompanion } from './helpers/companion.ts';

const CLEARNET = 'https://obscura.example';
const I2P_HOST = `${'obscuratesti2p'.padEnd(52, 'a')}.b32.i2p`; // 52 base32 characters, as I2P's
const I2P = `http://${I2P_HOST}`;
const PASSWORD = 'correct horse battery staple';
// No network for the tests that only start tor to see what run.sh does: DisableNetwork, and
// an authority on a closed loopback port in place of the public ones all the same.
const NO_NETWORK = ['--DisableNetwork', '1', '--DirAuthority', `none orport=9 v3ident=${'A'.repeat(40)} 127.0.0.1:9 ${'B'.repeat(40)}`];

const ms = (since: number) => Math.round(performance.now() - since);
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

function tmp(t: { teardown(fn: () => void): void }, tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), tag));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** tor's own judgement of a torrc, with no defaults file: [exit status, its messages]. */
function verifyConfig(torrc: string): [number | null, string] {
  const r = spawnSync('tor', ['--defaults-torrc', '/dev/null', '--verify-config', '-f', torrc], { encoding: 'utf8' });
  return [r.status, r.stdout + r.stderr];
}

/** The generated torrc's hidden-service lines, with what %include brings in read in place. */
function serviceLines(torrc: string): string[] {
  const lines: string[] = [];
  for (const raw of readFileSync(torrc, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('%include ')) lines.push(...serviceLines(line.slice(9)));
    else if (/^HiddenService/i.test(line)) lines.push(line);
  }
  return lines;
}

// --- without a network: what run.sh writes, refuses and how it stops ---------------------------

test('run.sh writes one hidden-service block that tor --verify-config accepts, for a unix socket and for TCP; a second start keeps the address', async (t) => {
  const dir = tmp(t, 'obscura-tor-cfg-');
  const state = path.join(dir, 'state');
  const started: string[] = [];
  for (const [listen, target] of [
    [`unix:${dir}/onion.sock`, `unix:${dir}/onion.sock`],
    [undefined, '127.0.0.1:8081'], // the service's default
    ['localhost:9001', '127.0.0.1:9001'],
    ['[::1]:9002', '[::1]:9002'],
  ] as const) {
    const tor = await startOnionTor(state, listen, NO_NETWORK);
    const stopped = await tor.proc.stop('SIGTERM');
    t.regex(tor.stdout(), ORIGIN_LINE, 'stdout is the one origin line, and stays so');
    t.false(stopped.killed);
    started.push(tor.origin);
    const torrc = path.join(state, 'torrc');
    const [status, said] = verifyConfig(torrc);
    t.is(status, 0, said);
    t.regex(said, /Configuration was valid/);
    const lines = serviceLines(torrc);
    t.deepEqual(lines.filter((l) => /^HiddenServiceDir /i.test(l)), [`HiddenServiceDir ${state}/onion`], 'exactly one hidden-service block, in the state folder');
    t.regex(lines[0], /^HiddenServiceDir /, 'the block opens before any per-service option');
    t.deepEqual(lines.filter((l) => /^HiddenServicePort /i.test(l)), [`HiddenServicePort 80 ${target}`], `port 80 goes to ${listen ?? 'the default listener'}`);
    for (const option of ['HiddenServicePoWDefensesEnabled 1', 'HiddenServiceEnableIntroDoSDefense 1', 'HiddenServiceMaxStreamsCloseCircuit 1']) t.true(lines.includes(option), option);
    t.deepEqual(lines.filter((l) => /ExportCircuitID/i.test(l)), ['HiddenServiceExportCircuitID haproxy'], "a PROXY line with the circuit on every connection: the onion listener reads it");
    t.regex(readFileSync(torrc, 'utf8'), new RegExp(`^DataDirectory ${state}$`, 'm'));
  }
  t.is(new Set(started).size, 1, `one address across four starts: ${started.join(' ')}`);
  t.true(existsSync(path.join(state, 'onion', 'hs_ed25519_secret_key')));
});

test("tor's own reading of the shipped configuration: service only, DoS and PoW defences, vanguards-lite, safe logs, no single onion", async (t) => {
  const dir = tmp(t, 'obscura-tor-dump-');
  const state = path.join(dir, 'state');
  const tor = await startOnionTor(state, `unix:${dir}/onion.sock`, NO_NETWORK);
  await tor.proc.stop('SIGTERM');
  // --dump-config short: every option whose value differs from tor's default, as tor read it
  const r = spawnSync('tor', ['--defaults-torrc', '/dev/null', '-f', path.join(state, 'torrc'), '--dump-config', 'short'], { encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
  const effective = new Set(r.stdout.split('\n').map((l) => l.trim()).filter(Boolean));
  for (const option of [
    'SocksPort 0', 'ControlPort 0', 'DNSPort 0', 'TransPort 0', 'NATDPort 0', 'ClientOnly 1', 'ExitRelay 0',
    'HiddenServiceVersion 3', `HiddenServicePort 80 unix:${dir}/onion.sock`,
    'HiddenServiceEnableIntroDoSDefense 1', 'HiddenServicePoWDefensesEnabled 1',
    'HiddenServiceMaxStreams 32', 'HiddenServiceMaxStreamsCloseCircuit 1', 'HiddenServiceExportCircuitID haproxy',
    'VanguardsLiteEnabled 1', 'AvoidDiskWrites 1', 'Log notice stderr',
  ]) t.true(effective.has(option), `${option} is in effect:\n${r.stdout}`);
  // SafeLogging 1 is tor's default, so it shows only if something turned it off or to "relay"
  const changed = [...effective].filter((l) => /^(SafeLogging|HiddenServiceSingleHopMode|HiddenServiceNonAnonymousMode|ControlSocket|HiddenServiceAuthorizeClient) /i.test(l));
  t.deepEqual(changed, [], 'safe logs, a hidden (not single-hop) service, no control socket');
});

test('run.sh refuses what tor refuses, with tor\'s message: the old --HiddenServiceDir on the command line; and a listener off this machine', async (t) => {
  const dir = tmp(t, 'obscura-tor-bad-');
  const run = (env: NodeJS.ProcessEnv, extra: string[]) => spawnSync('bash', [RUN_SH, path.join(dir, 'state'), ...extra], { env, encoding: 'utf8', timeout: 30_000 });
  // what the shipped start line used to do: a second block with no port
  const old = run(onionEnv(`unix:${dir}/onion.sock`), [...NO_NETWORK, '--HiddenServiceDir', path.join(dir, 'state', 'onion')]);
  t.not(old.status, 0);
  t.is(old.stdout, '', 'no origin line for a refused configuration');
  t.regex(old.stderr, /with no ports configured/, "tor's own words");
  t.regex(old.stderr, /tor refused the configuration/);
  // a listener tor would reach over the network: the service itself refuses it too
  const far = run(onionEnv('192.0.2.7:8081'), NO_NETWORK);
  t.is(far.status, 2);
  t.regex(far.stderr, /must be loopback or a unix socket/);
  t.is(run(onionEnv('unix:relative/onion.sock'), NO_NETWORK).status, 2);
  t.is(spawnSync('bash', [RUN_SH], { env: onionEnv(), encoding: 'utf8' }).status, 2, 'no state folder: usage');
});

test('run.sh: tor exiting before the address is a clear non-zero exit; SIGTERM and SIGINT stop tor and run.sh exits with its status', async (t) => {
  const dir = tmp(t, 'obscura-tor-sig-');
  // a SOCKS port already taken: tor accepts the configuration, then cannot bind and exits
  const busy = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => busy.once('listening', r));
  t.teardown(() => busy.close());
  const port = (busy.address() as net.AddressInfo).port;
  const early = spawnSync('bash', [RUN_SH, path.join(dir, 'early'), '--TestingTorNetwork', '1', ...NO_NETWORK.slice(2), '--SocksPort', `127.0.0.1:${port}`], { env: onionEnv(), encoding: 'utf8', timeout: 30_000 });
  t.is(early.status, 1);
  t.is(early.stdout, '');
  t.regex(early.stderr, /Could not bind/);
  t.regex(early.stderr, /tor exited \(status 1\) before it wrote .*onion\/hostname/);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const tor = await startOnionTor(path.join(dir, signal), undefined, NO_NETWORK);
    t.true(pidAlive(tor.torPid));
    const stopped = await tor.proc.stop(signal, 10_000);
    t.false(stopped.killed, `${signal} alone stopped run.sh`);
    t.is(stopped.code, 0, `${signal}: tor's own status, 0 for a clean exit`);
    t.false(pidAlive(tor.torPid), `${signal}: the tor run.sh started is gone too`);
    t.regex(tor.proc.output(), new RegExp(`Catching signal ${signal.slice(3)}|Interrupt: exiting cleanly`), 'tor saw the signal');
  }
});

test('every shipped start of Obscura\'s tor goes through run.sh: no --HiddenServiceDir on any command line', (t) => {
  const read = (file: string) => readFileSync(path.resolve(import.meta.dirname, '..', file), 'utf8');
  const unit = read('hardening/obscura-tor.service');
  t.deepEqual(unit.match(/^ExecStart=.*$/gm), ['ExecStart=/opt/obscura/deploy/tor/run.sh /var/lib/obscura/tor']);
  for (const file of ['hardening/obscura-tor.service', 'docker-compose.yml', 'deploy/tor/run.sh']) {
    const code = read(file).replace(/^\s*#.*$/gm, ''); // comments may name the old defect
    t.false(code.includes('--HiddenServiceDir'), `${file} starts tor with --HiddenServiceDir: a second hidden-service block with no port, refused by tor`);
  }
});

// --- the private network ----------------------------------------------------------------------

const ANY_URL = /https?:\/\/[^\s"'<>\\]+/g;
const isText = (ex: Exchange) => /json|text/.test(String(ex.headers['content-type'] ?? '')) || ex.body.length === 0;

async function multipart(fields: Record<string, string | Blob>): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, v, 'chunk');
  }
  const r = new Response(form);
  return { body: Buffer.from(await r.arrayBuffer()), type: r.headers.get('content-type')! };
}

async function tusUpload(http: SocksHttp, origin: string, key: string, uid: string, name: string, bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new tus.Upload(bytes, {
      endpoint: `${origin}/api/tus`,
      httpStack: new tus.DefaultHttpStack({ agent: http.agent }),
      chunkSize: 128 * 1024,
      retryDelays: [],
      headers: { 'X-Api-Key': key },
      metadata: { upload_uid: uid, step: '2', name },
      // keep what came back, for the checks on every answer
      onAfterResponse: (req, res) => {
        const msg = res.getUnderlyingObject() as { headers: Exchange['headers'] };
        http.seen.push({ method: req.getMethod(), url: req.getURL(), status: res.getStatus(), headers: msg.headers, body: Buffer.from(res.getBody() ?? '') });
      },
      onError: reject,
      onSuccess: () => resolve(u.url!),
    });
    u.start();
  });
}

/** Polls a newer-interface job with ?wait= until it is done. */
async function settle(http: SocksHttp, url: string, key: string): Promise<any> {
  return until(`the job at ${url} finishing`, 90_000, async () => {
    const r = await http.json('GET', `${url}?wait=10`, { 'X-Api-Key': key });
    return ['completed', 'partial', 'failed'].includes(r.json?.status) ? r.json : undefined;
  }, 50);
}

test('the onion service on a private Tor network: started by the shipped run.sh, reached through SOCKS; v1 upload and analyse, hide and reveal with TUS, every URL on the onion origin', async (t) => {
  t.timeout(170_000, 'the whole private-network run (measured 25-40 s)');
  const t0 = performance.now();
  const timings: Record<string, number> = {};
  const dir = tmp(t, 'obscura-tor-net-');
  let network: TorNetwork | undefined;
  let onion: OnionTor | undefined;
  let svc: RunningService | undefined;
  t.teardown(async () => {
    // every process we started, whatever happened above; then tmp() removes the folder
    await svc?.close().catch((e) => t.log(`service close: ${e.message}`));
    await onion?.proc.stop('SIGTERM', 10_000);
    if (onion && pidAlive(onion.torPid)) process.kill(onion.torPid, 'SIGKILL');
    await network?.stop();
  });

  // 1. the network: an authority and three relays, until the consensus lists all four
  let phase = performance.now();
  network = await startTorNetwork(path.join(dir, 'net'));
  await network.waitForConsensus(90_000);
  timings.consensus = ms(phase);

  // 2. Obscura's tor, exactly as shipped, plus this network's options and a SOCKS port
  phase = performance.now();
  const socket = path.join(dir, 'onion.sock');
  const state = path.join(dir, 'tor-state');
  const socksPort = await freePort();
  const extra = [...network.clientOptions(), '--SocksPort', `127.0.0.1:${socksPort}`];
  onion = await startOnionTor(state, `unix:${socket}`, extra);
  const O = onion.origin;
  t.regex(onion.stdout(), ORIGIN_LINE);
  timings.originPrinted = ms(phase);

  // 3. the service, told its onion origin; fake clearnet and I2P origins that must never show
  // PROXY lines required, as shipped (the test helper turns them off for tests without tor):
  // every answer below is proof that tor sends one on every connection
  const serviceEnv = { OBSCURA_ONION_LISTEN: `unix:${socket}`, OBSCURA_ONION_ORIGIN: O, OBSCURA_CLEARNET_ORIGIN: CLEARNET, OBSCURA_I2P_ORIGIN: I2P, OBSCURA_ONION_PROXY_PROTOCOL: 'required' };
  svc = await startService(serviceEnv);
  const nodes = network.nodes.map((n) => n.nick);
  await until('the onion descriptor stored on every HSDir', 90_000, () => {
    if (!onion!.proc.alive()) throw new Error(`run.sh exited:\n${onion!.proc.output()}`);
    const stored = network!.descriptorsStored();
    return nodes.every((n) => stored[n] > 0) ? stored : undefined;
  }).catch((e: Error) => {
    throw new Error(`${e.message}; stored: ${JSON.stringify(network!.descriptorsStored())}\n${onion!.proc.output().slice(-3000)}`);
  });
  timings.descriptorStored = ms(phase);

  const http = socksHttp(socksPort);
  let attempts = 0;
  const status = await until('GET /api/status answering through the onion', 60_000, async () => {
    attempts++;
    return http.json('GET', `${O}/api/status`, {});
  }, 500);
  t.is(status.status, 200);
  t.is(status.json.status, 'UP');
  timings.firstAnswer = ms(t0);
  t.log(`first answer after ${attempts} attempt(s)`);

  const { key } = await svc.account();
  const A = { api_key: key };
  const X = { 'X-Api-Key': key };

  // 4. v1: create-media-url, PATCH in chunks, HEAD; then analyse, poll, result, an asset
  phase = performance.now();
  const photo = await sharp(PHOTO).resize(800).jpeg({ quality: 85 }).toBuffer();
  const created = await http.json('POST', `${O}/v1/upload/create-media-url`, A, { name: 'trip.jpg', size: photo.length });
  t.is(created.status, 201, JSON.stringify(created.json));
  const media = String(created.headers.location);
  t.true(media.startsWith(`${O}/v1/upload/resumable/`), media);
  const step = Math.ceil(photo.length / 3);
  for (let off = 0; off < photo.length; off += step) {
    const form = await multipart({ offset: String(off), file: new Blob([photo.subarray(off, off + step)]) });
    const p = await http.request('PATCH', media, { headers: { ...A, 'Content-Type': form.type }, body: form.body });
    t.is(p.status, off + step >= photo.length ? 204 : 200, p.body.toString());
  }
  const head = await http.request('HEAD', media, { headers: A });
  t.is(head.headers['upload-offset'], String(photo.length));
  const mediaKey = media.split('/').pop()!;
  const job = await http.json('POST', `${O}/v1/job/analyse`, A, { key: mediaKey, enableTips: true, enableExtraAnalysis: false });
  t.is(job.status, 200, JSON.stringify(job.json));
  const jobUrl = String(job.headers.location);
  t.true(jobUrl.startsWith(`${O}/v1/job/`), jobUrl);
  const jobKey = jobUrl.split('/').pop()!;
  const done = await until('the v1 analyse job completing', 90_000, async () => {
    const s = await http.json('POST', `${O}/v1/job/status/${jobKey}`, A);
    return ['COMPLETED', 'FAILED'].includes(s.json?.status) ? s.json : (await sleep(300), undefined);
  }, 0);
  t.is(done.status, 'COMPLETED', done.message);
  t.true(done.resultUrl.startsWith(`${O}/v1/job/result/`), done.resultUrl);
  const result = await http.json('GET', done.resultUrl, A);
  t.is(result.status, 200);
  const item = result.json.results.files[0];
  t.is(item.name, 'trip.jpg');
  t.true(item.assets.length > 0);
  const asset = await http.request('GET', item.assets[0].download_url, { headers: X });
  t.is(asset.status, 200);
  t.is(asset.body.length, item.assets[0].file_size);
  timings.v1UploadAndAnalyse = ms(phase);

  // 5. hide over the newer interface: the secret by direct upload, the cover by TUS
  phase = performance.now();
  const secret = payload(3000);
  const cover = await sharp(PHOTO).resize(480, 360).png().toBuffer();
  const hideUid = (await http.json('POST', `${O}/api/session`, X, { type: 'hide' })).json.upload_uid;
  const direct = await http.request('POST', `${O}/api/upload`, { headers: { ...X, 'X-Upload-Uid': hideUid, 'X-Upload-Step': '1', 'X-Filename': encodeURIComponent('field notes.bin') }, body: secret });
  t.is(direct.status, 201, direct.body.toString());
  const tusUrl = await tusUpload(http, O, key, hideUid, 'cover.png', cover);
  t.true(tusUrl.startsWith(`${O}/api/tus/`), tusUrl);
  const hideStart = await http.json('POST', `${O}/api/job`, X, { upload_uid: hideUid, password: PASSWORD, expiry: '1h' });
  t.is(hideStart.status, 201, JSON.stringify(hideStart.json));
  const hidden = await settle(http, `${O}/api/job/${hideUid}`, key);
  t.is(hidden.status, 'completed', hidden.progress_message);
  const hideFile = (await http.json('GET', `${O}/api/job/${hideUid}/results`, X)).json.result_files[0];
  t.true(hideFile.download_url.startsWith(`${O}/api/job/download/`), hideFile.download_url);
  const stego = (await http.request('GET', hideFile.download_url, { headers: X })).body;
  t.is(stego.length, hideFile.file_size);

  // ... and reveal it: the secret comes back byte for byte, under its name
  const revealUid = (await http.json('POST', `${O}/api/session`, X, { type: 'reveal' })).json.upload_uid;
  const up = await http.request('POST', `${O}/api/upload`, { headers: { ...X, 'X-Upload-Uid': revealUid, 'X-Upload-Step': '1', 'X-Filename': 'holiday.png' }, body: stego });
  t.is(up.status, 201, up.body.toString());
  t.is((await http.json('POST', `${O}/api/job`, X, { upload_uid: revealUid, password: PASSWORD })).status, 201);
  const revealed = await settle(http, `${O}/api/job/${revealUid}`, key);
  t.is(revealed.status, 'completed', revealed.progress_message);
  const back = (await http.json('GET', `${O}/api/job/${revealUid}/results`, X)).json.result_files;
  t.is(back.length, 1);
  t.is(back[0].name, 'field notes.bin');
  t.true(back[0].download_url.startsWith(`${O}/api/job/download/`), back[0].download_url);
  const secretBack = (await http.request('GET', back[0].download_url, { headers: X })).body;
  t.is(sha256(secretBack), sha256(secret), 'the secret came back byte-identical');
  timings.hideAndReveal = ms(phase);

  // 5b. the local companion (obscura-mcp) through the same SOCKS port: a whole convert_file
  phase = performance.now();
  const companion = await startCompanion({ OBSCURA_API_KEY: key, OBSCURA_BASE_URL: O, OBSCURA_SOCKS_PROXY: `socks5h://127.0.0.1:${socksPort}`, HOME: dir });
  t.teardown(() => companion.close());
  const small = path.join(dir, 'trip small.jpg');
  await sharp(PHOTO).resize(320).jpeg().toFile(small);
  const converted = await companion.call('convert_file', { file_path: small, output_format: 'webp' });
  t.false(converted.isError, converted.text);
  t.is(converted.data.saved_to, path.join(dir, 'trip small.webp'));
  t.is((await sharp(readFileSync(converted.data.saved_to)).metadata()).format, 'webp');
  await companion.close();
  t.deepEqual(companion.protocolErrors.map(String), []);
  t.false(companion.stderr().includes(key));
  timings.companion = ms(phase);

  // 6. /mcp is clearnet-only: over the onion it is any unknown path
  const mcp = await http.request('POST', `${O}/mcp`, { headers: { 'Content-Type': 'application/json' }, body: '{}' });
  const unknown = await http.request('POST', `${O}/no-such-path`, { headers: { 'Content-Type': 'application/json' }, body: '{}' });
  t.is(mcp.status, 404);
  t.is(mcp.body.toString(), unknown.body.toString(), '/mcp answers as any unknown path does');

  // 7. every answer over the onion: URLs only on the onion origin, no other origin named
  let urls = 0;
  for (const ex of http.seen) {
    const text = `${JSON.stringify(ex.headers)}\n${isText(ex) ? ex.body.toString() : ''}`;
    for (const u of text.match(ANY_URL) ?? []) {
      urls++;
      t.true(u.startsWith(`${O}/`) || u === O, `${ex.method} ${ex.url} hands out ${u}`);
    }
    for (const other of ['obscura.example', I2P_HOST]) {
      t.false(text.includes(other) || ex.body.includes(other), `${ex.method} ${ex.url} names ${other}`);
    }
  }
  t.true(urls >= 10, `URLs were handed out and checked (${urls} in ${http.seen.length} answers)`);

  // 8. a restart of Obscura's tor: SIGTERM ends tor and run.sh; the next start keeps the address
  phase = performance.now();
  const before = network.descriptorsStored();
  const firstTor = onion.torPid;
  const stopped = await onion.proc.stop('SIGTERM', 10_000);
  t.false(stopped.killed);
  t.is(stopped.code, 0);
  t.false(pidAlive(firstTor), 'run.sh left no tor behind');
  t.regex(onion.stdout(), ORIGIN_LINE, "stdout held only the origin line, all along: tor's log is on stderr");
  onion = await startOnionTor(state, `unix:${socket}`, extra);
  t.is(onion.origin, O, 'the same onion address after a restart');
  await until('the restarted service uploading its descriptor', 90_000, () => {
    const now = network!.descriptorsStored();
    return nodes.every((n) => now[n] > before[n]) ? true : undefined;
  });
  const again = await until('GET /api/status through the onion after the restart', 60_000, () => http.json('GET', `${O}/api/status`, {}), 500);
  t.is(again.json.status, 'UP');
  timings.restartToAnswer = ms(phase);

  // 9. per-circuit limits from the circuit ids the real tor sends: the service again, at 5
  // requests a minute per circuit. Each request is a new SOCKS connection, so a new stream and
  // a new connection to the listener; what they share is the circuit tor isolates per SOCKS
  // username. One circuit runs into 429; a fresh circuit is served at once.
  phase = performance.now();
  const first = svc;
  svc = undefined;
  await first.close();
  svc = await startService({ ...serviceEnv, OBSCURA_RATE_VISITOR_PER_MINUTE: '5' });
  const overA = socksHttp(socksPort, 'circuit-a');
  const firstA = await until('GET /api/status over a new circuit', 60_000, () => overA.json('GET', `${O}/api/status`, {}), 500);
  t.is(firstA.status, 200);
  let servedA = 1;
  let limitedA: Exchange & { json: any } | undefined;
  for (let i = 0; i < 20 && !limitedA; i++) {
    const r = await overA.json('GET', `${O}/api/status`, {});
    if (r.status === 200) servedA++;
    else limitedA = r;
  }
  t.is(limitedA?.status, 429, 'one circuit runs into its limit');
  t.is(limitedA?.json.error, 'rate_limited');
  t.regex(String(limitedA?.headers['retry-after']), /^\d+$/);
  t.true(servedA <= 5, `at most 5 served over one circuit (${servedA})`);
  t.log(`served over one circuit before its 429: ${servedA}`);
  const overB = socksHttp(socksPort, 'circuit-b');
  const firstB = await until('GET /api/status over a second new circuit', 60_000, () => overB.json('GET', `${O}/api/status`, {}), 500);
  t.is(firstB.status, 200, 'a fresh circuit is counted on its own: the listener tells circuits apart');
  t.false(svc.logs.some((l) => /fc00|dead:beef/.test(l)), 'no circuit id in the logs');
  timings.perCircuit = ms(phase);

  timings.total = ms(t0);
  t.log(`timings (ms): ${JSON.stringify(timings)}`);
  const closing = svc;
  svc = undefined;
  await closing.close(); // and no plaintext of the secret on the service's disk
});
