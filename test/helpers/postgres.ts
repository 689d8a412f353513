// A throwaway PostgreSQL cluster for one test file: initdb into a temporary folder, a postmaster
// on a free loopback port with its socket in that folder, stopped and removed whatever happens
// (the caller's teardown, this process's exit, and a watchdog shell for a process that is killed
// outright). Never the system cluster the distribution package may have started on 5432.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './child.ts';

export interface Postgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres: the cluster's maintenance database. */
  url: string;
  port: number;
  /** Creates a fresh, empty database on the cluster and returns its URL. */
  database(): Promise<string>;
  /** Stops the cluster at once (-m immediate) and removes its folder; safe to call twice. */
  stop(): Promise<void>;
}

function binDir(): string {
  const base = '/usr/lib/postgresql';
  const preferred = path.join(base, '15', 'bin');
  if (existsSync(path.join(preferred, 'pg_ctl'))) return preferred;
  const versions = existsSync(base) ? readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(path.join(base, v, 'bin', 'pg_ctl'))) return path.join(base, v, 'bin');
  throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)');
}

const asRoot = process.getuid?.() === 0;

/** The postgres OS user's uid and gid, when the tests run as root (the server refuses to run as root). */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres OS user to run the test cluster as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** argv running `bin/tool args` as the postgres user when we are root, as ourselves otherwise. */
function command(bin: string, tool: string, args: string[]): [string, string[]] {
  const exe = path.join(bin, tool);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
}

function run(bin: string, tool: string, args: string[]): Promise<void> {
  const [cmd, argv] = command(bin, tool, args);
  return new Promise((resolve, reject) => {
    // The postmaster that pg_ctl forks logs to a file (-l), so it holds none of these pipes open.
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${tool} ${args.join(' ')} failed (${code ?? signal}): ${out.slice(-2000)}`))));
  });
}

function stopSync(bin: string, data: string, base: string): void {
  if (existsSync(path.join(data, 'postmaster.pid'))) {
    const [cmd, argv] = command(bin, 'pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '20']);
    spawnSync(cmd, argv, { stdio: 'ignore', timeout: 30_000 });
  }
  rmSync(base, { recursive: true, force: true });
}

/** durable: commits reach the disk, as an operator runs PostgreSQL (benchmarks); otherwise a throwaway cluster that skips fsync (tests). */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<Postgres> {
  const bin = binDir();
  const base = mkdtempSync(path.join(os.tmpdir(), 'obscura-pg-'));
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(base, uid, gid);
  }
  const data = path.join(base, 'data');
  let stopped = false;
  let watchdog: ReturnType<typeof spawn> | undefined;
  const onExit = (): void => {
    if (!stopped) stopSync(bin, data, base);
  };
  process.once('exit', onExit);
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    stopSync(bin, data, base);
    if (watchdog?.pid && watchdog.exitCode === null) watchdog.kill();
  };

  try {
    await run(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--encoding=UTF8', '--locale=C', '--no-sync']);
    let port = 0;
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      const opts = [
        `-p ${port}`,
        `-k ${base}`,
        '-c listen_addresses=127.0.0.1',
        // a throwaway cluster: durability buys nothing here
        ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
        '-c max_connections=300',
      ].join(' ');
      try {
        await run(bin, 'pg_ctl', ['start', '-D', data, '-l', path.join(base, 'server.log'), '-o', opts, '-w', '-t', '60']);
        break;
      } catch (err) {
        // another process took the port between the check and the bind: try another
        if (attempt >= 2) throw new Error(`${(err as Error).message}\n${readLog(base)}`);
      }
    }
    // A process killed outright runs no exit hook: this shell outlives it and cleans up after it.
    const [stopCmd, stopArgv] = command(bin, 'pg_ctl', ['stop', '-D', data, '-m', 'immediate']);
    const quoted = [stopCmd, ...stopArgv].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
    watchdog = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${quoted} >/dev/null 2>&1; rm -rf '${base}'`], {
      detached: true,
      stdio: 'ignore',
    });
    watchdog.unref();

    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    let n = 0;
    return {
      url,
      port,
      async database() {
        const name = `t${process.pid}_${++n}`;
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${name}`);
        } finally {
          await client.end();
        }
        return `postgres://postgres@127.0.0.1:${port}/${name}`;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function readLog(base: string): string {
  try {
    return readFileSync(path.join(base, 'server.log'), 'utf8').slice(-2000);
  } catch {
    return '';
  }
}
