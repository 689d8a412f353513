// No egress, proven at the system-call level: the service, started exactly as `npm start`
// starts it, runs every product once inside a network namespace that has only loopback,
// while strace watches every thread and every child it starts. Its three listeners are unix
// sockets in a temp folder, the only way in from outside the namespace.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { keyFor } from './helpers/child.ts';
import { unixClient } from './helpers/egress-client.ts';
import { startTraced, type EgressReport } from './helpers/egress-trace.ts';
import { C2PA_PNG, PHOTO, ffprobe, testVideo, toPng } from './helpers/media-kit.ts';
import { payload, sha256 } from './helpers/payload.ts';

const START = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start as string;

function tmp(t: { teardown(fn: () => void): void }, tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `obscura-${tag}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const summary = (r: EgressReport) => `${r.calls.length} network calls ${JSON.stringify(r.byFamily)}, no-route ${JSON.stringify(r.noRoute)}`;

// The probe reaches out three ways the service could: from its main thread (TCP), from a
// worker thread (UDP over IPv6, i.e. sendmsg with an address) and from a child it spawns
// (bash's /dev/tcp). It also connects to loopback and to a unix socket, which must not count.
const PROBE = `
const net = require('node:net'), dgram = require('node:dgram');
const { Worker } = require('node:worker_threads');
const { spawnSync } = require('node:child_process');
const tcp = (opts) => new Promise((r) => net.connect(opts).on('connect', function () { this.destroy(); r('connected'); }).on('error', (e) => r(e.code)));
(async () => {
  const out = {};
  out.main = await tcp({ host: '192.0.2.1', port: 80 });
  out.worker = await new Promise((r) => new Worker("const d = require('node:dgram').createSocket('udp6'); d.send('x', 53, '2001:db8::1', (e) => { require('node:worker_threads').parentPort.postMessage(e ? e.code : 'sent'); d.close(); });", { eval: true }).on('message', r));
  out.child = spawnSync('bash', ['-c', 'exec 3<>/dev/tcp/192.0.2.2/443'], { encoding: 'utf8' }).stderr.trim();
  out.loopback = await tcp({ host: '127.0.0.1', port: 9 });
  out.unix = await tcp({ path: '/nonexistent/obscura-probe.sock' });
  console.log(JSON.stringify(out));
})();
`;

test('the harness reports attempts to leave from a thread, a worker and a child, and lets loopback and unix sockets be', async (t) => {
  const probe = startTraced([process.execPath, '-e', PROBE], { env: { PATH: process.env.PATH } });
  t.teardown(() => probe.dispose());
  const end = await within(probe.ended, 60_000, 'the probe did not finish');
  t.is(end.code, 0, probe.stderr());
  const seen = JSON.parse(probe.stdout());
  // inside the namespace there is no route: nothing left the machine
  t.is(seen.main, 'ENETUNREACH');
  t.is(seen.worker, 'ENETUNREACH');
  t.regex(seen.child, /Network is unreachable/);
  t.is(seen.loopback, 'ECONNREFUSED');
  t.is(seen.unix, 'ENOENT');

  const r = probe.report();
  t.log(summary(r));
  t.is(r.violations.length, 3, r.violations.join('\n'));
  t.regex(r.violations.find((l) => l.includes('192.0.2.1')) ?? '', /^\d+\s+connect\(.*AF_INET.*htons\(80\)/);
  t.regex(r.violations.find((l) => l.includes('2001:db8::1')) ?? '', /^\d+\s+sendmsg\(.*AF_INET6/);
  t.regex(r.violations.find((l) => l.includes('192.0.2.2')) ?? '', /^\d+\s+connect\(.*htons\(443\)/);
  const pids = new Set(r.violations.map((l) => l.split(/\s/)[0]));
  t.is(pids.size, 3, 'main thread, worker thread and child each have their own line');
  t.true(r.calls.some((l) => l.includes('inet_addr("127.0.0.1")')), 'the loopback connect was seen');
  t.true(r.calls.some((l) => l.includes('/nonexistent/obscura-probe.sock')), 'the unix connect was seen');
  t.true(r.programs.some((p) => p.endsWith('/bash')), 'the child was traced from its start');
  t.deepEqual(r.noRoute, { ipv4: 2, ipv6: 1 }, "the namespace's kernel counted the same three attempts");
});

test('the service as npm start runs it, every product once in a loopback-only namespace: no connection beyond loopback and unix sockets', async (t) => {
  t.timeout(10 * 60_000); // measured about a minute; a busy machine gets room
  const dir = tmp(t, 'egress');
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir);
  const sock = (n: string) => path.join(dir, `${n}.sock`);
  const key = await keyFor(dataDir, 'egress@example.org');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    OBSCURA_DATA_DIR: dataDir,
    OBSCURA_CLEARNET_LISTEN: `unix:${sock('clearnet')}`,
    OBSCURA_ONION_LISTEN: `unix:${sock('onion')}`,
    OBSCURA_I2P_LISTEN: `unix:${sock('i2p')}`,
    OBSCURA_LOG_LEVEL: 'warn',
    OBSCURA_ONION_PROXY_PROTOCOL: 'off', // the test asks the onion listener itself, without tor's PROXY line
  };
  delete env.NODE_OPTIONS; // the service as shipped: no test guard loaded into it
  const started = Date.now();
  const svc = startTraced(['sh', '-c', START], { env, cwd: process.cwd() }); // what npm start runs, without npm
  t.teardown(() => svc.dispose());
  await svc.waitForOutput('is up', 120_000, 'the service did not say it is up');
  const phases: string[] = [`up ${Date.now() - started} ms`];
  const mark = (name: string, since: number) => phases.push(`${name} ${Date.now() - since} ms`);

  const api = unixClient(sock('clearnet'), key);
  for (const n of ['clearnet', 'onion', 'i2p']) {
    const s = await unixClient(sock(n), key).json('GET', '/api/status');
    t.is(s.json?.status, 'UP', `${n} listener answers`);
  }
  // the web pages, and sign-up closed without a mail relay: nothing dials out for it
  for (const n of ['clearnet', 'onion', 'i2p']) {
    const home = await unixClient(sock(n), key).request('GET', '/');
    t.is(home.status, 200, `${n} home page`);
    const signUp = await unixClient(sock(n), key).request('GET', '/sign-up');
    t.is(signUp.status, 403);
    t.regex(signUp.bytes.toString('utf8'), /Sign-up is closed/);
  }
  const work = tmp(t, 'egress-media');
  const JOB = 180_000;

  let at = Date.now();
  {
    // convert an image (heif-enc) and a video (ffprobe, ffmpeg)
    const image = await api.session('convert');
    await api.upload(image, 1, 'mountain.jpg', await sharp(PHOTO).resize(640).jpeg().toBuffer());
    const done = await api.run('convert', image, { image_format: 'heic', width: 320 }, JOB);
    t.is(done.poll.status, 'completed', done.poll.progress_message);
    const [heic] = await api.results('convert', image);
    t.is(heic.meta.mime_type, 'image/heic');
    const heicFile = path.join(work, 'out.heic');
    writeFileSync(heicFile, heic.bytes);
    t.is((await sharp(await toPng(heicFile, work)).metadata()).width, 320, 'a real HEIC, 320 px wide');

    const video = await api.session('convert');
    await api.upload(video, 1, 'clip.mp4', readFileSync(await testVideo(path.join(work, 'clip.mp4'))));
    const vdone = await api.run('convert', video, { video_format: 'webm' }, JOB);
    t.is(vdone.poll.status, 'completed', vdone.poll.progress_message);
    const [webm] = await api.results('convert', video);
    const webmFile = path.join(work, 'out.webm');
    writeFileSync(webmFile, webm.bytes);
    const probe = await ffprobe(webmFile);
    t.true(probe.format.format_name.includes('webm'), probe.format.format_name);
    t.true(probe.streams.some((s) => s.codec_type === 'video' && s.width === 320), 'the video came through');
    t.true(Math.abs(Number(probe.format.duration) - 2) < 0.2, `duration ${probe.format.duration}`);
  }
  mark('convert image + video', at);

  at = Date.now();
  {
    // hide (the secret by TUS, the cover by direct upload), then reveal
    const secret = payload(20_000);
    const hide = await api.session('hide');
    await api.tus(hide, 1, 'notes.bin', secret);
    await api.upload(hide, 2, 'cover.png', await sharp(PHOTO).resize(640, 480).png().toBuffer());
    const hidden = await api.run('hide', hide, { password: 'correct horse battery staple' }, JOB);
    t.is(hidden.poll.status, 'completed', hidden.poll.progress_message);
    const [stego] = await api.results('hide', hide);
    t.is(stego.meta.mime_type, 'image/png');

    const reveal = await api.session('reveal');
    await api.upload(reveal, 1, 'cover.png', stego.bytes);
    const revealed = await api.run('reveal', reveal, { password: 'correct horse battery staple' }, JOB);
    t.is(revealed.poll.status, 'completed', revealed.poll.progress_message);
    const [back] = await api.results('reveal', reveal);
    t.is(back.meta.name, 'notes.bin');
    t.is(sha256(back.bytes), sha256(secret), 'the secret comes back bit-exact');
  }
  mark('hide + reveal', at);

  at = Date.now();
  {
    // analyse the C2PA-signed AI image (C2PA readers like to fetch OCSP, timestamps and
    // certificates: exactly what must not happen) and a photo (exiftool)
    const uid = await api.session('analyse');
    await api.upload(uid, 1, 'made-by-ai.png', readFileSync(C2PA_PNG));
    await api.upload(uid, 1, 'mountain.jpg', await sharp(PHOTO).resize(800).jpeg({ quality: 90 }).withExif({ IFD0: { Make: 'Canon' } }).toBuffer());
    const done = await api.run('analyse', uid, {}, JOB);
    t.is(done.poll.status, 'completed', done.poll.progress_message);
    const result = await api.json('GET', `/api/analyse/result/${done.start.json.job_uid}`);
    t.is(result.status, 200);
    const [ai, photo] = result.json.files;
    t.is(ai.verdicts.c2pa.verdict, 'valid');
    t.is(ai.verdicts.ai_generation.verdict, 'declared_aigc');
    t.regex(photo.grade, /^[ABCDF]$/);
    t.is(photo.verdicts.camera_fingerprint.quality_level, 90);
  }
  mark('analyse C2PA + photo', at);

  at = Date.now();
  {
    const bytes = payload(300_000);
    const v1 = await api.v1Upload('holiday.jpg', bytes, 128 * 1024);
    t.is(v1.last.status, 204, 'the last chunk completes the upload');
    t.is(v1.last.headers['upload-offset'], String(bytes.length));
    const head = await api.request('HEAD', `/v1/upload/resumable/${v1.key}`, { headers: { api_key: key } });
    t.is(head.headers['upload-offset'], String(bytes.length));
  }
  mark('v1 upload', at);

  at = Date.now();
  const [node] = svc.pidsOf((argv) => path.basename(argv[0] ?? '') === 'node' && argv.includes('src/main.ts'));
  t.truthy(node, 'the service process is found in the namespace');
  process.kill(node, 'SIGTERM');
  const end = await within(svc.ended, 60_000, 'the service did not stop after SIGTERM');
  t.is(end.code, 0, `the service stopped cleanly\n${svc.stderr()}`);
  mark('stop', at);
  phases.push(`total ${Date.now() - started} ms`);

  const r = svc.report();
  t.log(phases.join(', '));
  t.log(summary(r));
  t.log(`programs started: ${[...new Set(r.programs.map((p) => path.basename(p)))].join(' ')}`);
  t.deepEqual(r.violations, [], 'no connect/sendto/sendmsg/sendmmsg to anything but unix, netlink or loopback');
  t.deepEqual(r.noRoute, { ipv4: 0, ipv6: 0 }, "the namespace's kernel refused nothing for want of a route");
  // the trace watched the service and the tools it ran, not just the shell that started it
  const ran = new Set(r.programs.map((p) => path.basename(p)));
  for (const tool of ['node', 'heif-enc', 'ffprobe', 'ffmpeg', 'exiftool']) t.true(ran.has(tool), `${tool} ran under the trace`);
});
