// One tor (or a script that runs one) as a child of the test: its output kept for messages,
// a kernel backstop (setpriv --pdeathsig KILL: it dies with the test worker), and a stop that
// asks with a signal first and kills after a deadline.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Child {
  name: string;
  child: ChildProcess;
  /** The last 16 KiB of stdout and stderr together, for failure messages. */
  output(): string;
  alive(): boolean;
  /** Resolves when the process has exited (at once if it already has). */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal`, waits up to `ms`, then SIGKILL. `killed`: the signal was not enough. */
  stop(signal?: NodeJS.Signals, ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>;
}

const KEEP = 16 * 1024;

export function startChild(name: string, argv: string[], options: SpawnOptions = {}): Child {
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', ...argv], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let out = '';
  const keep = (c: Buffer) => {
    out = (out + c.toString()).slice(-KEEP);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (err) => {
      keep(Buffer.from(`\n${name}: ${err.message}\n`));
      resolve({ code: null, signal: null });
    });
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    child,
    output: () => out,
    alive,
    exited: () => done,
    async stop(signal = 'SIGTERM', ms = 15_000) {
      if (!alive()) return { ...(await done), killed: false };
      child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
      const first = await Promise.race([done, late]);
      clearTimeout(timer);
      if (first !== 'late') return { ...first, killed: false };
      child.kill('SIGKILL');
      return { ...(await done), killed: true };
    },
  };
}

/** Whether a process id names a live process (a zombie is not alive). */
export function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/** The ids of a process's children named `comm` (e.g. the tor a script started). */
export function childrenNamed(pid: number, comm: string): number[] {
  let ids: number[];
  try {
    ids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return ids.filter((id) => {
    try {
      return readFileSync(`/proc/${id}/comm`, 'utf8').trim() === comm;
    } catch {
      return false;
    }
  });
}
