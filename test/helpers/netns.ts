// A network namespace of the test's own, for routers that must talk to each other on real
// addresses without any packet leaving the machine: only `lo` is in it (no route out), with
// the addresses asked for. A holder process keeps it alive; every command is run in it through
// nsenter. Each process (holder included) gets `setpriv --pdeathsig KILL`, so it dies with the
// test worker however that ends, and the namespace goes away with the last of them.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const CAPTURE_MAX = 4 * 1024 * 1024; // per stream: the tail is kept, enough for any message

export interface NsProcess {
  child: ChildProcess;
  argv: string[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of re in stdout; rejects with `what` on the deadline or an early exit. */
  waitForStdout(re: RegExp, ms: number, what: string): Promise<RegExpMatchArray>;
  /** Sends signal and waits for the exit; SIGKILL after ms. Resolves how it ended. */
  stop(signal: NodeJS.Signals, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface Netns {
  /** The holder's pid: /proc/<pid>/ns/net is the namespace. */
  pid: number;
  /** The namespace's identity (the ns/net link, e.g. net:[4026532]). */
  id: string;
  spawn(argv: string[], opts?: { env?: NodeJS.ProcessEnv; cwd?: string }): NsProcess;
  /** Runs a command in the namespace to completion (ip, checks). */
  run(argv: string[]): string;
  /** Host pids of every process in the namespace but the holder. */
  members(): number[];
  /** Stops every process started here (SIGTERM, then SIGKILL) and the holder. */
  close(): Promise<void>;
}

export async function createNetns(addresses: string[]): Promise<Netns> {
  const holder = spawn('setpriv', ['--pdeathsig', 'KILL', 'unshare', '--net', 'sleep', 'infinity'], { stdio: 'ignore' });
  const pid = holder.pid!;
  const own = readlinkSync('/proc/self/ns/net');
  let id = own;
  for (const until = Date.now() + 10_000; id === own; await sleep(20)) {
    if (Date.now() > until || holder.exitCode !== null) {
      holder.kill('SIGKILL');
      throw new Error('the network namespace was not made within 10 s (unshare --net needs root)');
    }
    try {
      id = readlinkSync(`/proc/${pid}/ns/net`);
    } catch {
      /* not there yet */
    }
  }
  const enter = ['nsenter', `--net=/proc/${pid}/ns/net`, '--'];
  const run = (argv: string[]) => execFileSync(enter[0], [...enter.slice(1), ...argv], { encoding: 'utf8', timeout: 10_000 });
  const started: NsProcess[] = [];
  try {
    run(['ip', 'link', 'set', 'lo', 'up']);
    for (const a of addresses) run(['ip', 'addr', 'add', `${a}/32`, 'dev', 'lo']);
  } catch (e) {
    holder.kill('SIGKILL');
    throw e;
  }

  return {
    pid,
    id,
    run,
    spawn(argv, opts = {}) {
      const p = nsProcess(spawn('setpriv', ['--pdeathsig', 'KILL', ...enter, ...argv], { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] }), argv);
      started.push(p);
      return p;
    },
    members() {
      const found: number[] = [];
      for (const name of readdirSync('/proc')) {
        if (!/^\d+$/.test(name) || Number(name) === pid) continue;
        try {
          if (readlinkSync(`/proc/${name}/ns/net`) === id && !isZombie(Number(name))) found.push(Number(name));
        } catch {
          /* gone, or not ours to read */
        }
      }
      return found;
    },
    async close() {
      await Promise.all(started.map((p) => p.stop('SIGTERM', 5_000)));
      holder.kill('SIGKILL');
      if (holder.exitCode === null && holder.signalCode === null) await new Promise((r) => holder.once('exit', r));
    },
  };
}

function nsProcess(child: ChildProcess, argv: string[]): NsProcess {
  const stdout = tail(child.stdout!);
  const stderr = tail(child.stderr!);
  // 'exit' can come before the last output: wait for the pipes too, unless a detached
  // grandchild holds them open (then 2 s is plenty for what was already written).
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => void Promise.race([closed, sleep(2_000)]).then(() => resolve({ code, signal }))),
  );
  let done: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((r) => (done = r));
  const name = argv.map((a) => a.split('/').pop()).slice(0, 2).join(' ');
  return {
    child,
    argv,
    stdout: stdout.text,
    stderr: stderr.text,
    exited,
    waitForStdout(re, ms, what) {
      return new Promise((resolve, reject) => {
        let over = false;
        const timer = setTimeout(() => finish(new Error(`${what}: not within ${ms / 1000} s\n${name} stderr (tail):\n${stderr.text().slice(-3000)}`)), ms);
        const check = () => {
          if (over) return;
          const m = re.exec(stdout.text());
          if (m) finish(undefined, m);
        };
        const early = () => !over && finish(new Error(`${what}: ${name} exited first (${JSON.stringify(done)})\nstderr (tail):\n${stderr.text().slice(-3000)}`));
        function finish(e?: Error, m?: RegExpMatchArray) {
          over = true;
          clearTimeout(timer);
          child.stdout!.off('data', check);
          if (e) reject(e);
          else resolve(m!);
        }
        child.stdout!.on('data', check);
        void exited.then(() => {
          check();
          early();
        });
        check();
      });
    },
    async stop(signal, ms) {
      if (done) return { ...done, killed: false };
      child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
      const how = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (how !== 'late') return { ...how, killed: false };
      child.kill('SIGKILL');
      return { ...(await exited), killed: true };
    },
  };
}

/** The stream's last CAPTURE_MAX characters, kept as chunks (no copying per chunk). */
function tail(stream: NodeJS.ReadableStream): { text: () => string } {
  let chunks: string[] = [];
  let size = 0;
  stream.setEncoding('utf8');
  stream.on('data', (c: string) => {
    chunks.push(c);
    size += c.length;
    while (size - chunks[0].length >= CAPTURE_MAX) size -= chunks.shift()!.length;
  });
  return {
    text() {
      const s = chunks.join('');
      chunks = [s];
      return s;
    },
  };
}

function isZombie(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
