// A real S3-compatible store for tests and benchmarks: OpenStack Swift with its s3api, started
// by the shipped deploy/s3/start.sh (as root), exactly as the compose `scale` profile runs it. Swift's account, container and object servers bind the
// fixed ports 6200-6202 (and memcached 11211), so only one can run on the machine at a time:
// startSwift() first takes a machine-wide lock (an exclusive flock held by a small child
// process, released when it ends or this process dies), and a Swift left running by a holder
// that died is stopped before a new one starts.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { makeS3Client } from '../../src/store/blobs/s3-store.ts';
import { freePort as loopbackPort } from './child.ts';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const START = path.resolve(HERE, '../../deploy/s3/start.sh');
const STOP = path.resolve(HERE, '../../deploy/s3/stop.sh');
const LOCK = '/tmp/obscura-swift.lock';
/** The state folder of the Swift now running, written while the lock is held. */
const STATE = '/tmp/obscura-swift.state';

export const SWIFT_CREDENTIALS = { accessKeyId: 'test:tester', secretAccessKey: 'testing' };
export const SWIFT_REGION = 'us-east-1';
export { freePort as swiftPort };

export interface RunningSwift {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** A client for this Swift (path-style, plain bodies, Content-MD5 on DeleteObjects). */
  client: S3Client;
  /** Creates a fresh, empty bucket and returns its name. */
  createBucket(): Promise<string>;
  /** The s3:// URL of a bucket on this Swift. */
  url(bucket: string, prefix?: string): string;
  stop(): Promise<void>;
}

export async function startSwift(opts: { lockTimeoutMs?: number } = {}): Promise<RunningSwift> {
  if (!existsSync('/usr/bin/swift-proxy-server')) {
    throw new Error('Swift is not installed (apt-get install swift-proxy swift-object swift-container swift-account)');
  }
  if (process.getuid?.() !== 0) throw new Error('starting Swift needs root');
  const lock = await takeLock(opts.lockTimeoutMs ?? 10 * 60_000);
  let dir: string | undefined;
  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    if (dir) spawnSync('bash', [STOP, dir], { stdio: 'ignore' });
    rmSync(STATE, { force: true });
    lock.kill();
  };
  process.once('exit', stopSync);
  try {
    // a Swift whose holder died without stopping it
    if (existsSync(STATE)) {
      const stale = readFileSync(STATE, 'utf8').trim();
      if (stale) await run('bash', [STOP, stale]).catch(() => {});
      rmSync(STATE, { force: true });
    }
    const port = await freePort();
    const env = { ...process.env, S3_PORT: String(port), S3_ACCESS_KEY: SWIFT_CREDENTIALS.accessKeyId, S3_SECRET_KEY: SWIFT_CREDENTIALS.secretAccessKey };
    const { stdout } = await run('bash', [START], { env, timeout: 180_000 });
    dir = stdout.trim().split('\n').pop()!;
    writeFileSync(STATE, dir);
    const endpoint = `http://127.0.0.1:${port}`;
    const client = makeS3Client({ endpoint, region: SWIFT_REGION }, SWIFT_CREDENTIALS);
    return {
      endpoint,
      region: SWIFT_REGION,
      credentials: SWIFT_CREDENTIALS,
      client,
      async createBucket() {
        const name = `obscura-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
        await client.send(new CreateBucketCommand({ Bucket: name }));
        return name;
      },
      url: (bucket, prefix) => `s3://${bucket}${prefix ? `/${prefix}` : ''}?endpoint=${encodeURIComponent(endpoint)}&region=${SWIFT_REGION}`,
      async stop() {
        if (stopped) return;
        stopped = true;
        process.removeListener('exit', stopSync);
        client.destroy();
        try {
          if (dir) await run('bash', [STOP, dir]);
        } finally {
          rmSync(STATE, { force: true });
          lock.kill();
        }
      },
    };
  } catch (err) {
    process.removeListener('exit', stopSync);
    stopSync();
    throw err;
  }
}

export interface Lock {
  kill(): void;
}

/** Holds an exclusive flock on LOCK for as long as the child lives (its stdin closes when we die). */
export function takeLock(timeoutMs: number): Promise<Lock> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn('flock', ['-x', '-w', String(Math.ceil(timeoutMs / 1000)), LOCK, 'sh', '-c', 'echo locked; exec cat >/dev/null'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('locked')) {
        child.stdout!.off('data', onData);
        // the lock must not keep this process alive, nor outlive it
        child.unref();
        (child.stdin as unknown as { unref?: () => void }).unref?.();
        (child.stdout as unknown as { unref?: () => void }).unref?.();
        resolve({ kill: () => child.kill('SIGTERM') });
      }
    };
    child.stdout!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!out.includes('locked')) reject(new Error(`could not take the Swift lock ${LOCK} (flock exited ${code})`));
    });
  });
}

/** A free loopback port (child.ts's) that is not one of Swift's own fixed ports. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = await loopbackPort();
    if (!(port >= 6200 && port <= 6202) && port !== 11211) return port;
  }
}
