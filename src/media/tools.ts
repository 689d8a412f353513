// Runs a media tool (ffmpeg, heif-enc, cjxl, ...) with an argument array, never a shell, and
// makes sure it is gone when the call settles: an abort or a timeout SIGKILLs it and the
// promise waits for its exit, so no process outlives the job that started it. A tool started
// for a job admitted under the memory budget runs under an address-space limit (RLIMIT_AS, set
// by util-linux prlimit, which then execs the tool): one that needs more than its job's share
// fails its allocation and is reported as over its memory, not left to take the machine's.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { MediaError, abortedError } from './errors.ts';

/** A CPU-time allowance shared by the tools of one piece of work (a file's conversion). */
export interface CpuMeter {
  /** CPU time (ms) a tool started now may still use. */
  remainingMs(): number;
  /** Books what a tool used, as last measured. */
  spend(ms: number): void;
  /** What a tool over the allowance is stopped with. */
  exceeded(): MediaError;
}

const CPU_POLL_MS = 200;

/**
 * A process's CPU time so far (user + system of all its threads, and of its reaped children),
 * from /proc/<pid>/stat: fields 14-17 of proc(5), in clock ticks, which Linux fixes at 100 a
 * second for user space. Undefined once the process is gone.
 */
async function cpuTimeMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'latin1');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name can hold spaces and ')'
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** The memory share of the job this thread runs (the worker sets it once the job is admitted). */
let share: number | undefined;

/** Sets (or, undefined, clears) the address-space limit of the tools this thread starts from now on. */
export function setToolMemoryShare(bytes: number | undefined): void {
  share = bytes;
}

/** The command that runs `cmd` within the job's memory share (prlimit, which execs it), or `cmd` itself when there is none. */
export function withinShare(cmd: string, args: string[]): [string, string[]] {
  return share === undefined ? [cmd, args] : ['prlimit', [`--as=${Math.floor(share)}`, '--', cmd, ...args]];
}

// what the tools say when an allocation fails (measured under prlimit: cjxl, heif-enc, ffmpeg with x264, x265, libvpx and decoding)
const OUT_OF_MEMORY = /bad_alloc|JXL_CHECK: bytes_|malloc of size|memory allocation|allocation (error|fail)|cannot allocate|out of memory/i;
// libheif files its own size limits under "Memory allocation error" too: those are the file's, not ours
const OWN_LIMIT = /Security limit exceeded/i;
const MiB = 1024 * 1024;

export interface RunToolOptions {
  signal?: AbortSignal;
  /** Called with the child's pid once it runs (for the job engine's bookkeeping). */
  onSpawn?: (pid: number) => void;
  /** Called with the pid once the child has exited and been reaped. */
  onReap?: (pid: number) => void;
  timeoutMs?: number;
  stdin?: Buffer | string;
  /** Stderr kept (its tail), in characters. Default 64 KiB. */
  maxStderr?: number;
  /** Stdout kept, in bytes; more kills the tool. Default 16 MiB. */
  maxStdout?: number;
  onStderrLine?: (line: string) => void;
  onStdoutLine?: (line: string) => void;
  cwd?: string;
  /** Measures the tool's CPU time while it runs and kills it once it is over the allowance. */
  cpu?: CpuMeter;
  /** Address space the tool may map, in bytes; default: the job's memory share, if any. */
  memoryLimit?: number;
}

export interface ToolResult {
  stdout: Buffer;
  /** Tool diagnostics: may quote paths and content, so never show it to users as it is. */
  stderr: string;
  /** Exit code; -1 when the tool died of a signal. */
  code: number;
}

// Tools get a minimal environment: nothing of the service's (keys, config) leaks into them.
// Two malloc arenas: glibc otherwise reserves 64 MiB of address space per thread, which counts
// against the address-space limit without ever being used.
export function toolEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', MALLOC_ARENA_MAX: '2' };
}

function lineSplitter(cb: (line: string) => void): { push(chunk: string): void; end(): void } {
  let rest = '';
  return {
    push(chunk) {
      rest += chunk;
      let i: number;
      while ((i = rest.search(/\r?\n|\r/)) >= 0) {
        const m = /\r?\n|\r/.exec(rest.slice(i))!;
        cb(rest.slice(0, i));
        rest = rest.slice(i + m[0].length);
      }
      if (rest.length > 65_536) rest = rest.slice(-65_536);
    },
    end() {
      if (rest) cb(rest);
      rest = '';
    },
  };
}

export function runTool(cmd: string, args: string[], opts: RunToolOptions = {}): Promise<ToolResult> {
  const maxStderr = opts.maxStderr ?? 65_536;
  const maxStdout = opts.maxStdout ?? 16 * 1024 * 1024;
  return new Promise<ToolResult>((resolve, reject) => {
    if (opts.signal?.aborted) return reject(abortedError());

    const memoryLimit = opts.memoryLimit ?? share;
    const limited = memoryLimit !== undefined && Number.isFinite(memoryLimit);
    const child = spawn(limited ? 'prlimit' : cmd, limited ? [`--as=${Math.floor(memoryLimit!)}`, '--', cmd, ...args] : args, {
      shell: false,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      cwd: opts.cwd,
      env: toolEnv(),
      windowsHide: true,
    });

    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let stopped: MediaError | undefined;
    let spawnError: Error | undefined;
    let exited = false;
    let cpuUsed = 0;
    let cpuPoll: NodeJS.Timeout | undefined;

    const stop = (why: MediaError) => {
      if (stopped) return;
      stopped = why;
      child.kill('SIGKILL');
    };

    const onAbort = () => stop(abortedError());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => stop(new MediaError('limit_exceeded', `Processing took longer than the ${Math.round(opts.timeoutMs! / 1000)} s allowed and was stopped.`)),
            opts.timeoutMs,
          );

    const outLines = opts.onStdoutLine ? lineSplitter(opts.onStdoutLine) : undefined;
    const errLines = opts.onStderrLine ? lineSplitter(opts.onStderrLine) : undefined;

    child.stdout!.on('data', (chunk: Buffer) => {
      outLines?.push(chunk.toString('utf8'));
      if (outBytes + chunk.length > maxStdout) {
        stop(new MediaError('engine_failed', `The media tool ${cmd} produced more output than expected and was stopped.`));
        return;
      }
      out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      errLines?.push(chunk);
      stderr += chunk;
      if (stderr.length > maxStderr * 2) stderr = stderr.slice(-maxStderr);
    });

    if (opts.stdin !== undefined) {
      child.stdin!.on('error', () => {}); // the tool may exit before reading all of it
      child.stdin!.end(opts.stdin);
    }

    child.on('spawn', () => {
      if (child.pid !== undefined) opts.onSpawn?.(child.pid);
      const meter = opts.cpu;
      const pid = child.pid;
      if (!meter || pid === undefined) return;
      const allowed = meter.remainingMs();
      const measure = async () => {
        const ms = await cpuTimeMs(pid);
        if (ms === undefined || exited) return; // gone: its pid may be another's by now
        cpuUsed = ms;
        if (ms > allowed) stop(meter.exceeded());
      };
      void measure();
      cpuPoll = setInterval(() => void measure(), CPU_POLL_MS);
    });
    child.on('exit', () => {
      exited = true;
      if (cpuPoll) clearInterval(cpuPoll);
    });
    // 'close' comes after exit and after stdio closed, so nothing is left running or pending.
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      if (timer) clearTimeout(timer);
      if (cpuPoll) clearInterval(cpuPoll);
      opts.cpu?.spend(cpuUsed);
      outLines?.end();
      errLines?.end();
      if (child.pid !== undefined) opts.onReap?.(child.pid);
      if (stopped) return reject(stopped);
      if (spawnError) {
        const missing = (spawnError as NodeJS.ErrnoException).code === 'ENOENT';
        const tool = limited ? 'prlimit (util-linux), which limits the memory of media tools,' : cmd;
        return reject(
          new MediaError('engine_failed', missing ? `The tool ${tool} is not installed on this server.` : `The media tool ${cmd} could not be started.`, {
            cause: spawnError,
          }),
        );
      }
      if (limited) {
        // prlimit could not exec the tool (126, 127: util-linux's exit codes for that)
        if ((code === 127 || code === 126) && /^prlimit: failed to execute/m.test(stderr)) {
          return reject(new MediaError('engine_failed', code === 127 ? `The media tool ${cmd} is not installed on this server.` : `The media tool ${cmd} could not be started.`));
        }
        // a failed allocation, in the tool's words (a crash alone may be a damaged file's)
        const said = stderr.slice(-4096);
        if ((signal || code !== 0) && OUT_OF_MEMORY.test(said) && !OWN_LIMIT.test(said)) {
          const limit = `${Math.ceil(memoryLimit! / MiB)} MiB`;
          return reject(
            new MediaError(
              'too_much_memory',
              opts.memoryLimit === undefined
                ? `The media tool ${cmd} needed more memory than this job's share (${limit}, from its estimate under OBSCURA_MEDIA_MEMORY_BUDGET) and was stopped.`
                : `The media tool ${cmd} needed more memory than it may use for this step (${limit}) and was stopped.`,
            ),
          );
        }
      }
      if (stderr.length > maxStderr) stderr = stderr.slice(-maxStderr);
      resolve({ stdout: Buffer.concat(out), stderr, code: signal ? -1 : (code ?? -1) });
    };
    child.on('close', finish);
    child.on('error', (e) => {
      spawnError = e;
      // A tool that never started emits no reliable 'close'.
      if (child.pid === undefined) finish(null, null);
    });
  });
}
