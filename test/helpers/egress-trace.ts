// Runs a command in a network namespace of its own (loopback only) under strace, and reads
// back every attempt it made to reach an address. Two witnesses:
//   - strace (-f, every thread and child) logs each connect/sendto/sendmsg/sendmmsg with its
//     address; any address that is not AF_UNIX, AF_NETLINK or loopback is a violation; it also
//     logs every program started (execve), which shows what the trace watched;
//   - the namespace's own kernel counters (Ip OutNoRoutes, Ip6OutNoRoutes) count every packet
//     or connection that found no route, which inside a loopback-only namespace is every
//     attempt to leave, however it was made (io_uring, raw sockets: ways strace cannot see).
// A PID namespace (with its own /proc) holds the whole tree: when the harness dies, the kernel
// kills everything in it (setpriv's and unshare's parent-death signals start that chain).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const TRACED_SYSCALLS = ['connect', 'sendto', 'sendmsg', 'sendmmsg'] as const;
const ALSO_TRACED = ['execve', 'execveat'];

// Inside the namespace: loopback up, the command under strace, then the counters, which
// must be read before the namespace's last process (this shell) ends.
const INSIDE = `set -eu
log=$1 counters=$2; shift 2
ip link set lo up
rc=0
strace -f --seccomp-bpf -qq -s 256 -e signal=none -e trace=${[...TRACED_SYSCALLS, ...ALSO_TRACED].join(',')} -o "$log" -- "$@" || rc=$?
cat /proc/net/snmp /proc/net/snmp6 > "$counters"
exit $rc`;

export interface Traced {
  child: ChildProcess;
  /** What the command printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout has shown text; rejects with `what` if it has not within ms, or the command ended. */
  waitForOutput(text: string, ms: number, what: string): Promise<void>;
  /** Host PIDs of the processes in the namespace whose command line matches. */
  pidsOf(match: (argv: string[]) => boolean): number[];
  /** Resolves with the exit code (or signal) once the namespace is empty. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Reads the trace and the counters; call after `ended`. */
  report(): EgressReport;
  /** Kills the whole namespace (idempotent) and removes the trace files. */
  dispose(): void;
}

export interface EgressReport {
  /** Every traced network syscall line, in order. */
  calls: string[];
  /** Every program a process in the namespace started (execve that succeeded), in order. */
  programs: string[];
  /** How many calls per address family (NULL: a connected socket, no address given). */
  byFamily: Record<string, number>;
  /** Lines that tried to reach something other than unix, netlink or loopback. */
  violations: string[];
  /** Attempts the namespace's kernel refused for want of a route (IPv4 + IPv6). */
  noRoute: { ipv4: number; ipv6: number };
}

/** Starts argv (no shell) inside a loopback-only network namespace, traced. */
export function startTraced(argv: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Traced {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-egress-'));
  const log = path.join(dir, 'strace.log');
  const counters = path.join(dir, 'snmp');
  const userns = process.getuid?.() === 0 ? [] : ['--map-root-user'];
  const child = spawn(
    'setpriv',
    ['--pdeathsig', 'KILL', 'unshare', ...userns, '--net', '--pid', '--fork', '--kill-child', '--mount-proc', 'sh', '-c', INSIDE, 'sh', log, counters, ...argv],
    { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  let done = false;
  void ended.then(() => (done = true));

  return {
    child,
    stdout: () => out,
    stderr: () => err,
    ended,
    waitForOutput(text, ms, what) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`${what}: not within ${ms / 1000} s\nstdout:\n${out}\nstderr:\n${err}`)), ms);
        const check = () => out.includes(text) && finish();
        const early = () => finish(new Error(`${what}: the command ended first\nstdout:\n${out}\nstderr:\n${err}`));
        function finish(e?: Error) {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('close', early);
          if (e) reject(e);
          else resolve();
        }
        child.stdout!.on('data', check);
        child.on('close', early);
        check();
      });
    },
    pidsOf(match) {
      return descendants(child.pid!).filter((pid) => match(argvOf(pid)));
    },
    report: () => readReport(log, counters),
    dispose() {
      if (!done) child.kill('SIGKILL'); // unshare's death kills the namespace's init, then all in it
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** Every live descendant of pid, from the parent links in /proc. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // the command name may hold spaces and parentheses: the fields start after the last ')'
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [pid, ppid] of parent) if (ppid === p) found.push(pid), walk(pid);
  };
  walk(root);
  return found;
}

// strace prints addresses as {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("1.2.3.4")}
// or {sa_family=AF_INET6, ..., inet_pton(AF_INET6, "::1", &sin6_addr), ...}.
const FAMILY = /sa_family=(AF_[A-Z0-9]+)/g;
const V4 = /inet_addr\("([^"]+)"\)/;
const V6 = /inet_pton\(AF_INET6, "([^"]+)"/;
const CALL = new RegExp(`^\\d+\\s+(${TRACED_SYSCALLS.join('|')})\\(`);
const EXEC = /^\d+\s+execve(?:at)?\((?:\w+, )?"([^"]+)".* = 0$/;

function loopbackV4(a: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(a);
}

function loopbackV6(a: string): boolean {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return a === '::1' || (m !== null && loopbackV4(m[1]));
}

/** Why a traced line counts as egress, or undefined when it stays on this machine. */
export function egressOf(line: string): string | undefined {
  const syscall = CALL.exec(line)?.[1];
  if (!syscall) return undefined;
  const families = [...line.matchAll(FAMILY)].map((m) => m[1]);
  if (!families.length) {
    // sendto/sendmsg on a connected socket name no address (its connect was traced);
    // a connect without a readable address is suspect
    if (syscall === 'connect') return 'connect without a readable address';
    if (/^\d+\s+sendto\(\d+, .*, NULL, 0\)/.test(line) || /msg_name=NULL/.test(line)) return undefined;
    if (/^\d+\s+sendmmsg\(\d+, \[\]/.test(line)) return undefined;
    return `${syscall} with an unreadable address`;
  }
  for (const f of families) {
    if (f === 'AF_UNIX' || f === 'AF_NETLINK') continue;
    if (f === 'AF_INET' && loopbackV4(V4.exec(line)?.[1] ?? '')) continue;
    if (f === 'AF_INET6' && loopbackV6(V6.exec(line)?.[1] ?? '')) continue;
    return `${syscall} to ${f} ${V4.exec(line)?.[1] ?? V6.exec(line)?.[1] ?? ''}`.trim();
  }
  return undefined;
}

/**
 * The log's calls, one line each: a call another thread interrupted is printed in two halves
 * ("... <unfinished ...>", later "PID <... name resumed>...") and is joined back here.
 */
export function callsOf(log: string): string[] {
  const pending = new Map<string, string>();
  const calls: string[] = [];
  for (const raw of log.split('\n')) {
    const pid = /^(\d+)\s/.exec(raw)?.[1];
    if (!pid) continue;
    let line = raw;
    const resumed = /^\d+\s+<\.\.\. \w+ resumed>(.*)$/.exec(raw);
    if (resumed) {
      const head = pending.get(pid);
      pending.delete(pid);
      if (head === undefined) continue;
      line = head + resumed[1];
    } else if (raw.endsWith(' <unfinished ...>')) {
      pending.set(pid, raw.slice(0, -' <unfinished ...>'.length));
      continue;
    }
    if (CALL.test(line) || EXEC.test(line)) calls.push(line);
  }
  // a call still unfinished when its process died is kept as printed
  for (const head of pending.values()) if (CALL.test(head) || EXEC.test(head)) calls.push(head);
  return calls;
}

function readReport(log: string, counters: string): EgressReport {
  const all = callsOf(readFileSync(log, 'utf8'));
  const calls = all.filter((l) => CALL.test(l));
  const programs = all.map((l) => EXEC.exec(l)?.[1]).filter((p): p is string => p !== undefined);
  const byFamily: Record<string, number> = {};
  const violations: string[] = [];
  for (const line of calls) {
    const families = [...line.matchAll(FAMILY)].map((m) => m[1]);
    for (const f of families.length ? families : ['NULL']) byFamily[f] = (byFamily[f] ?? 0) + 1;
    if (egressOf(line)) violations.push(line);
  }
  return { calls, programs, byFamily, violations, noRoute: noRoutes(readFileSync(counters, 'utf8')) };
}

/** Ip OutNoRoutes from /proc/net/snmp (a header line, then a value line) and Ip6OutNoRoutes from snmp6. */
function noRoutes(text: string): { ipv4: number; ipv6: number } {
  const ip = text.split('\n').filter((l) => l.startsWith('Ip: '));
  const header = ip[0]?.split(/\s+/) ?? [];
  const values = ip[1]?.split(/\s+/) ?? [];
  const at = header.indexOf('OutNoRoutes');
  const v6 = /^Ip6OutNoRoutes\s+(\d+)/m.exec(text);
  if (at < 0 || !v6) throw new Error(`the namespace's IP counters are missing or unreadable:\n${text}`);
  return { ipv4: Number(values[at]), ipv6: Number(v6[1]) };
}
