// 1 GiB through /api/tus in 5 MiB chunks with tus-js-client, against stock @tus/server with
// the unencrypted file store, each in its own child process, in the same run. Prints the
// throughput ratio (goal >= 1.0) and the service's memory growth over its idle size during the
// upload (goal <= 64 MiB: the preloaded media workers are idle memory, not the upload's).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { SERVICE_NODE_FLAGS, freePort, keyFor, startChild } from '../test/helpers/child.ts';

const MiB = 1024 * 1024;

export async function run(args: string[]): Promise<void> {
  const totalMiB = Number(args[0] ?? 1024);
  const size = totalMiB * MiB;
  const root = mkdtempSync(path.join(process.env.BENCH_DIR ?? os.tmpdir(), 'obscura-bench-upload-'));
  try {
    const source = path.join(root, 'source.bin');
    const block = randomBytes(16 * MiB);
    writeFileSync(source, '');
    for (let at = 0; at < size; at += block.length) writeFileSync(source, block.subarray(0, Math.min(block.length, size - at)), { flag: 'a' });

    // baseline first, then ours, then both again; best of two each
    const plain: number[] = [], ours: number[] = [];
    let plainRss = 0, oursRss = 0, oursIdle = 0, oursGrowth = 0;
    for (let round = 0; round < 2; round++) {
      const p = await plainRun(root, source, size);
      plain.push(p.ms);
      plainRss = Math.max(plainRss, p.rss);
      const o = await obscuraRun(root, source, size);
      ours.push(o.ms);
      oursRss = Math.max(oursRss, o.rss);
      oursIdle = Math.max(oursIdle, o.idle);
      oursGrowth = Math.max(oursGrowth, o.rss - o.idle);
    }
    const best = (xs: number[]) => Math.min(...xs);
    const mbps = (ms: number) => size / MiB / (ms / 1000);
    process.stdout.write(`${totalMiB} MiB via tus-js-client, 5 MiB chunks, best of 2\n`);
    process.stdout.write(`plain @tus/server + FileStore   ${mbps(best(plain)).toFixed(0).padStart(5)} MiB/s   peak RSS ${(plainRss / MiB).toFixed(0)} MiB\n`);
    process.stdout.write(`obscura /api/tus (encrypted)    ${mbps(best(ours)).toFixed(0).padStart(5)} MiB/s   peak RSS ${(oursRss / MiB).toFixed(0)} MiB, idle ${(oursIdle / MiB).toFixed(0)} MiB\n`);
    process.stdout.write(`throughput ratio ${(best(plain) / best(ours)).toFixed(2)} (goal >= 1.00); growth over idle ${(oursGrowth / MiB).toFixed(0)} MiB (goal <= 64 MiB)\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function plainRun(root: string, source: string, size: number) {
  const dir = mkdtempSync(path.join(root, 'plain-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['bench/plain-tus-server.ts', dir, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await up(child);
    const ms = await send(`http://127.0.0.1:${port}/files`, source, size, {});
    return { ms, rss: peakRss(child) };
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function obscuraRun(root: string, source: string, size: number) {
  const dataDir = mkdtempSync(path.join(root, 'obscura-'));
  const key = await keyFor(dataDir, 'bench@example.org');
  const port = await freePort();
  // the flags of `npm start`
  const child = await startChild(dataDir, port, { OBSCURA_FILE_MAX: '4GiB' }, SERVICE_NODE_FLAGS);
  try {
    const origin = `http://127.0.0.1:${port}`;
    // idle: started, workers preloaded, settled; the peak is reset so that it counts the upload only
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rss(child);
    writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
    const session = (await (await fetch(`${origin}/api/convert/session`, { method: 'POST', headers: { 'X-Api-Key': key } })).json()) as { upload_uid: string };
    const ms = await send(`${origin}/api/tus`, source, size, { upload_uid: session.upload_uid, step: '1', name: 'big.bin' }, { 'X-Api-Key': key });
    return { ms, rss: peakRss(child), idle };
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function send(endpoint: string, source: string, size: number, metadata: Record<string, string>, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    new tus.Upload(createReadStream(source, { highWaterMark: MiB }), {
      endpoint,
      uploadSize: size,
      chunkSize: 5 * MiB,
      retryDelays: [],
      headers,
      metadata,
      onError: reject,
      onSuccess: () => resolve(performance.now() - t0),
    }).start();
  });
}

function peakRss(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

function rss(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

function up(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('is up')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
}
