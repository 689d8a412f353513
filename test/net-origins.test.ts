// What crosses from one network to another: every URL the service hands out is built for the
// network the request came in on, i2pd's visitor headers never reach the app outside the I2P
// listener (and not even there, past the listener), and socket files are handled safely.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import Koa from 'koa';
import sharp from 'sharp';
import * as tus from 'tus-js-client';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';
import { C2PA_PNG, PHOTO } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { v1 } from './helpers/v1.ts';
import type { Network } from '../src/config.ts';
import { closeListener, listen, ListenError, type Listener } from '../src/http/listeners.ts';
import type { AppState } from '../src/http/context.ts';
import { visitorTag } from '../src/http/network-headers.ts';
import { UNNAMED_VISITOR } from '../src/domain/rate-limits.ts';

const ORIGIN: Record<Network, string> = {
  clearnet: 'https://obscura.example',
  onion: `http://${'obscura2x'.padEnd(56, 'q')}.onion`,
  i2p: `http://${'obscura7i'.padEnd(52, 'a')}.b32.i2p`,
};
const HOST = Object.fromEntries(Object.entries(ORIGIN).map(([n, o]) => [n, new URL(o).hostname])) as Record<Network, string>;

/** Everything a client saw on one network: each response's headers and body, as text. */
interface Seen {
  where: string;
  text: string;
}

/**
 * The client talks to the listener on loopback, as tor or i2pd would, while the service names
 * its public origin: a URL it handed out on that origin is followed to the listener; a URL on
 * any other origin is an error (and would be refused by the egress guard anyway).
 */
function follower(own: string, base: string) {
  return (url: string) => {
    if (!/^https?:/.test(url)) return `${base}${url}`;
    if (!url.startsWith(`${own}/`)) throw new Error(`handed out a URL off this network: ${url}`);
    return `${base}${url.slice(own.length)}`;
  };
}

function recorder(follow: (url: string) => string, key: string, seen: Seen[]) {
  return async (method: string, path: string, init: { json?: unknown; body?: Buffer; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { 'X-Api-Key': key, ...init.headers };
    let body: Buffer | string | undefined = init.body;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const res = await fetch(follow(path), { method, headers, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    record(seen, `${method} ${path.replace(/^https?:\/\/[^/]+/, '')}`, res.headers, bytes);
    const text = bytes.toString('utf8');
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, bytes };
  };
}

function record(seen: Seen[], where: string, headers: Headers, body: Buffer): void {
  const lines = [...headers].map(([k, v]) => `${k}: ${v}`);
  seen.push({ where, text: `${lines.join('\n')}\n\n${body.toString('latin1')}` });
}

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + 90_000; Date.now() < end; ) {
    const v = await fn();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

const finished = (s: string) => ['completed', 'partial', 'failed'].includes(s);

async function everyProduct(own: string, base: string, key: string, seen: Seen[]): Promise<Record<string, unknown>> {
  const follow = follower(own, base);
  const call = recorder(follow, key, seen);
  const tusStack = new tus.DefaultHttpStack({});
  const facts: Record<string, unknown> = {};

  // a hide: the secret by direct upload, the cover by TUS, then the job, its poll, results, download
  const secret = payload(3000);
  const hide = await call('POST', '/api/session', { json: { type: 'hide' } });
  const uid = hide.json.upload_uid;
  const direct = await call('POST', '/api/upload', { body: secret, headers: { 'X-Upload-Uid': uid, 'X-Upload-Step': '1', 'X-Filename': 'notes.bin' } });
  facts.direct = direct.status;
  const cover = await sharp(PHOTO).resize(400, 300).png().toBuffer();
  const tusUrl = await new Promise<string>((resolve, reject) => {
    const u = new tus.Upload(cover, {
      endpoint: `${own}/api/tus`,
      retryDelays: [],
      headers: { 'X-Api-Key': key },
      metadata: { upload_uid: uid, step: '2', name: 'cover.png' },
      httpStack: { createRequest: (method, url) => tusStack.createRequest(method, follow(url)), getName: () => 'follower' },
      onAfterResponse: (_req, res) => {
        const h = new Headers();
        for (const name of ['location', 'upload-offset', 'upload-expires', 'tus-resumable']) {
          const v = res.getHeader(name);
          if (v) h.set(name, v);
        }
        seen.push({ where: 'TUS', text: `${[...h].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${res.getBody() ?? ''}` });
      },
      onError: reject,
      onSuccess: () => resolve(u.url!),
    });
    u.start();
  });
  facts.tusUrl = tusUrl;
  await call('GET', `/api/session/${uid}/files`);
  const job = await call('POST', '/api/job', { json: { upload_uid: uid, password: 'a long and private passphrase', expiry: '1h' } });
  facts.hideStart = job.status;
  const hidePoll = await until('the hide', async () => {
    const r = await call('GET', `/api/job/${uid}?wait=10`);
    return finished(r.json.status) ? r.json : undefined;
  });
  facts.hideStatus = hidePoll.status;
  const hideResults = await call('GET', `/api/job/${uid}/results`);
  const file = hideResults.json.result_files[0];
  facts.downloadUrl = file.download_url;
  const stego = await call('GET', file.download_url);
  facts.stegoBytes = stego.bytes.length;

  // its reveal, so the hide is whole
  const rev = await call('POST', '/api/session', { json: { type: 'reveal' } });
  await call('POST', '/api/upload', { body: stego.bytes, headers: { 'X-Upload-Uid': rev.json.upload_uid, 'X-Upload-Step': '1', 'X-Filename': 'cover.png' } });
  await call('POST', '/api/job', { json: { upload_uid: rev.json.upload_uid, password: 'a long and private passphrase' } });
  await until('the reveal', async () => {
    const r = await call('GET', `/api/job/${rev.json.upload_uid}?wait=10`);
    return finished(r.json.status) ? r.json : undefined;
  });
  const revealed = await call('GET', `/api/job/${rev.json.upload_uid}/results`);
  const back = await call('GET', revealed.json.result_files[0].download_url);
  facts.revealedSame = sha256(back.bytes) === sha256(secret);

  // an analyse, with its assets
  const an = await call('POST', '/api/analyse/session', { json: {} });
  await call('POST', '/api/upload', { body: readFileSync(C2PA_PNG), headers: { 'X-Upload-Uid': an.json.upload_uid, 'X-Upload-Step': '1', 'X-Filename': 'made.png' } });
  const anJob = await call('POST', '/api/analyse/job', { json: { upload_uid: an.json.upload_uid } });
  await until('the analyse', async () => {
    const r = await call('GET', `/api/analyse/job/${an.json.upload_uid}?wait=10`);
    return finished(r.json.status) ? r.json : undefined;
  });
  const result = await call('GET', `/api/analyse/result/${anJob.json.job_uid}`);
  const assets = result.json.files[0].assets as { download_url: string }[];
  facts.assets = assets.length;
  for (const a of assets) await call('GET', a.download_url);

  // a v1 upload and its analyse
  const client = v1(base, key);
  const photo = await sharp(PHOTO).resize(640).jpeg().toBuffer();
  const created = await client.create('photo.jpg', photo.length);
  record(seen, 'v1 create', created.headers, Buffer.from(JSON.stringify(created.body ?? '')));
  const mediaKey = client.keyOf(created.headers.get('location')!);
  facts.v1Location = created.headers.get('location');
  const patched = await client.patch(mediaKey, 0, photo);
  record(seen, 'v1 patch', patched.headers, Buffer.from(JSON.stringify(patched.body ?? '')));
  const head = await client.head(mediaKey);
  record(seen, 'v1 head', head.headers, Buffer.alloc(0));
  facts.v1Offset = head.headers.get('upload-offset');
  facts.v1Size = String(photo.length);
  const analyse = await client.send('POST', '/v1/job/analyse', { json: { key: mediaKey, enableTips: true, enableExtraAnalysis: false } });
  if (analyse.status !== 200) throw new Error(`v1 analyse: ${analyse.status} ${JSON.stringify(analyse.body)}`);
  record(seen, 'v1 analyse', analyse.headers, Buffer.from(JSON.stringify(analyse.body ?? '')));
  facts.v1JobUrl = analyse.headers.get('location');
  const status = await until('the v1 analyse', async () => {
    const r = await client.send('POST', `/v1/job/status/${analyse.body.key}`);
    record(seen, 'v1 status', r.headers, Buffer.from(JSON.stringify(r.body ?? '')));
    if (r.body.status === 'COMPLETED' || r.body.status === 'FAILED') return r.body;
    await new Promise((res) => setTimeout(res, 100));
    return undefined;
  });
  facts.v1Status = status.status;
  facts.v1ResultUrl = status.resultUrl;
  const v1Result = await client.send('GET', `/v1/job/result/${analyse.body.key}`);
  record(seen, 'v1 result', v1Result.headers, Buffer.from(JSON.stringify(v1Result.body ?? '')));

  // answers that are not successes name no origin either
  const unknown = await call('GET', '/no/such/path');
  const mcp = await call('POST', '/mcp', { json: { jsonrpc: '2.0', id: 1, method: 'initialize' } });
  facts.unknown = { status: unknown.status, body: unknown.json };
  facts.mcp = { status: mcp.status, body: mcp.json };
  return facts;
}

test('a whole hide and reveal, an analyse and a v1 upload over each listener name only that network', async (t) => {
  t.timeout(240_000);
  const svc = await startService({
    OBSCURA_CLEARNET_ORIGIN: ORIGIN.clearnet,
    OBSCURA_ONION_ORIGIN: ORIGIN.onion,
    OBSCURA_I2P_ORIGIN: ORIGIN.i2p,
  });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  for (const network of ['clearnet', 'onion', 'i2p'] as const) {
    const seen: Seen[] = [];
    const f = await everyProduct(ORIGIN[network], svc.url[network], key, seen);
    const own = ORIGIN[network];
    t.is(f.direct, 201, network);
    t.is(f.hideStart, 201, network);
    t.is(f.hideStatus, 'completed', network);
    t.true(f.revealedSame, `${network}: the secret came back`);
    t.true((f.assets as number) >= 1, `${network}: analyse assets`);
    t.is(f.v1Status, 'COMPLETED', network);
    t.is(f.v1Offset, f.v1Size, `${network}: the v1 upload is whole`);
    for (const url of [f.tusUrl, f.downloadUrl, f.v1Location, f.v1JobUrl, f.v1ResultUrl] as string[]) {
      t.true(url.startsWith(`${own}/`), `${network}: ${url} is on ${own}`);
    }
    // /mcp is the same 404 as any unknown path off the clearnet; on it, the MCP endpoint answers
    // (406 here: this request does not accept the transport's JSON and SSE)
    if (network === 'clearnet') {
      t.is((f.mcp as { status: number }).status, 406, network);
    } else {
      t.is((f.mcp as { status: number }).status, 404, network);
      t.deepEqual((f.mcp as { body: unknown }).body, (f.unknown as { body: unknown }).body, network);
    }

    t.true(seen.length > 25, `${network}: ${seen.length} answers recorded`);
    for (const s of seen) {
      for (const other of ['clearnet', 'onion', 'i2p'] as const) {
        if (other === network) continue;
        // the one deliberate exception: clearnet answers announce the onion service
        const text = network === 'clearnet' && other === 'onion' ? s.text.replace(/^onion-location: .*$/m, '') : s.text;
        t.false(text.includes(HOST[other]), `${network} ${s.where} names the ${other} host`);
      }
      // nor the addresses tor and i2pd reach the listeners on (a URL built from the Host header)
      for (const l of svc.listeners) t.false(s.text.includes(l.address), `${network} ${s.where} names the listener ${l.address}`);
      t.false(/https?:\/\/(127\.|localhost|\[::1\])/.test(s.text), `${network} ${s.where} names a loopback URL`);
    }
    const onionLocation = seen.filter((s) => /^onion-location: /m.test(s.text));
    if (network === 'clearnet') {
      t.is(onionLocation.length, seen.filter((s) => s.where !== 'TUS').length, 'every clearnet answer carries Onion-Location');
    } else t.is(onionLocation.length, 0, `${network} answers carry no Onion-Location`);
  }
});

test('Onion-Location joins the onion origin and the path, only on clearnet, only when an onion origin is named', async (t) => {
  const named = await startService({ OBSCURA_ONION_ORIGIN: ORIGIN.onion });
  t.teardown(() => named.close());
  const a = await fetch(`${named.url.clearnet}/api/status?x=1`);
  t.is(a.headers.get('onion-location'), `${ORIGIN.onion}/api/status`);
  const b = await fetch(`${named.url.clearnet}//evil.example/x`);
  t.is(b.headers.get('onion-location'), `${ORIGIN.onion}//evil.example/x`, 'a path that looks like a host stays a path');
  t.is((await fetch(`${named.url.onion}/api/status`)).headers.get('onion-location'), null);
  t.is((await fetch(`${named.url.i2p}/api/status`)).headers.get('onion-location'), null);

  const unnamed = await startService();
  t.teardown(() => unnamed.close());
  t.is((await fetch(`${unnamed.url.clearnet}/api/status`)).headers.get('onion-location'), null, 'no onion origin set: nothing announced');
});

/** Sends a request with extra raw headers and returns what the app saw. */
function send(port: number, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', headers }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      })
      .on('error', reject);
  });
}

test('X-I2P-* headers are taken off before the app runs; only the I2P listener turns the hash into an opaque visitor tag', async (t) => {
  const seen: { network: Network; names: string[]; raw: string[]; visitor?: string }[] = [];
  const listeners: Listener[] = [];
  for (const network of ['clearnet', 'onion', 'i2p'] as const) {
    const app = new Koa<AppState>();
    app.use(async (ctx) => {
      seen.push({ network, names: Object.keys(ctx.headers), raw: ctx.req.rawHeaders, visitor: visitorTag(ctx.req) });
      ctx.body = 'ok';
    });
    const l = (await listen(network, { kind: 'tcp', host: '127.0.0.1', port: 0 }, app))!;
    listeners.push(l);
  }
  t.teardown(() => Promise.all(listeners.map(closeListener)));
  const dest = (n: string) => ({
    'X-I2P-DestHash': `${n.repeat(43)}=`,
    'X-I2P-DestB64': `${n.repeat(516)}AAAA`,
    'X-I2P-DestB32': `${n.repeat(52)}.b32.i2p`,
    'x-i2p-anything': 'else',
  });
  for (const l of listeners) {
    const port = Number(l.address.split(':').pop());
    await send(port, dest('a'));
    await send(port, dest('a'));
    await send(port, dest('b'));
    await send(port, {});
  }
  t.is(seen.length, 12);
  for (const s of seen) {
    t.false(s.names.some((n) => n.startsWith('x-i2p')), `${s.network}: ${s.names.join(',')}`);
    t.false(s.raw.some((n) => /^x-i2p/i.test(n) || n.includes('aaaaaaaa') || n.includes('bbbbbbbb')), `${s.network}: raw headers`);
  }
  const i2p = seen.filter((s) => s.network === 'i2p');
  t.truthy(i2p[0].visitor);
  t.is(i2p[0].visitor, i2p[1].visitor, 'the same destination gets the same tag');
  t.not(i2p[0].visitor, i2p[2].visitor, 'another destination gets another tag');
  t.is(i2p[3].visitor, UNNAMED_VISITOR, 'no header from i2pd: the one shared tag of all such, still counted');
  t.false(i2p[0].visitor!.includes('aaaa'), 'the tag is not the hash');
  for (const s of seen.filter((x) => x.network !== 'i2p')) t.is(s.visitor, undefined, `${s.network} trusts no X-I2P header`);
});

test('the real app logs nothing of X-I2P headers on any listener, at the most verbose level', async (t) => {
  const svc = await startService({ OBSCURA_LOG_LEVEL: 'trace' });
  t.teardown(() => svc.close());
  const secret = 'zz7visitorzz7'.repeat(4);
  for (const network of ['clearnet', 'onion', 'i2p'] as const) {
    for (const path of ['/api/status', '/api/account', '/nope', '/api/upload']) {
      await fetch(`${svc.url[network]}${path}`, { method: path === '/api/upload' ? 'POST' : 'GET', headers: { 'X-I2P-DestHash': secret, 'X-I2P-DestB32': `${secret}.b32.i2p`, 'X-Api-Key': 'sw_bad' } });
    }
  }
  t.true(svc.logs.length >= 12, 'the requests were logged');
  t.false(svc.logs.some((l) => l.includes('zz7visitor')), 'no log line holds the destination');
});

test('a stale socket file is replaced; a live socket or a file that is not a socket is refused and kept', async (t) => {
  const dir = tempDir();
  const app = new Koa<AppState>();
  app.use((ctx) => {
    ctx.body = 'ok';
  });

  // a socket left behind by a process that was killed
  const stale = `${dir}/stale.sock`;
  const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((r) => child.stdout!.once('data', r));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  t.true(existsSync(stale), 'the killed process left its socket file');
  const l = (await listen('onion', { kind: 'unix', path: stale }, app))!;
  const body = await new Promise<string>((resolve, reject) => {
    http.get({ socketPath: stale, path: '/' }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve(b));
    }).on('error', reject);
  });
  t.is(body, 'ok');

  // the same path again, while the first listener serves on it
  await t.throwsAsync(listen('onion', { kind: 'unix', path: stale }, app), { instanceOf: ListenError, message: /in use/ });
  await closeListener(l);

  // a mistyped path that names a real file
  const file = `${dir}/obscura.db`;
  writeFileSync(file, 'precious');
  await t.throwsAsync(listen('i2p', { kind: 'unix', path: file }, app), { instanceOf: ListenError, message: /not a socket/ });
  t.is(readFileSync(file, 'utf8'), 'precious');
});
