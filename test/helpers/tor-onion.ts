// Obscura's tor as an operator starts it: the shipped deploy/tor/run.sh STATE_DIR with
// OBSCURA_ONION_LISTEN in its environment; the test adds only options after STATE_DIR.
// run.sh's stdout is exactly one line, OBSCURA_ONION_ORIGIN=http://<56 chars>.onion, printed
// once tor has loaded the onion keys; tor's own messages are on its stderr.
import path from 'node:path';
import { childrenNamed, startChild, type Child } from './tor-process.ts';
import { Hopeless, until } from './until.ts';

export const RUN_SH = path.resolve(import.meta.dirname, '../../deploy/tor/run.sh');
export const ORIGIN_LINE = /^OBSCURA_ONION_ORIGIN=(http:\/\/[a-z2-7]{56}\.onion)\n$/;

export interface OnionTor {
  proc: Child;
  /** What run.sh printed on stdout, whole. */
  stdout(): string;
  origin: string;
  /** The tor run.sh started, found among its children. */
  torPid: number;
}

/** A minimal environment: nothing of the test's own OBSCURA_* settings leaks in. */
export function onionEnv(listen?: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, LANG: 'C.UTF-8', ...(listen === undefined ? {} : { OBSCURA_ONION_LISTEN: listen }) };
}

/** Starts run.sh; resolves once it printed the origin line; throws with its output otherwise. */
export async function startOnionTor(stateDir: string, listen: string | undefined, extra: string[], ms = 30_000): Promise<OnionTor> {
  const proc = startChild('deploy/tor/run.sh', [RUN_SH, stateDir, ...extra], { env: onionEnv(listen) });
  let out = '';
  proc.child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const origin = await until('deploy/tor/run.sh printing OBSCURA_ONION_ORIGIN', ms, () => {
    const m = ORIGIN_LINE.exec(out);
    if (m) return m[1];
    if (!proc.alive()) throw new Hopeless(`it exited (${proc.child.exitCode ?? proc.child.signalCode}) first:\n${proc.output()}`);
    return undefined;
  }, 50).catch(async (e: Error) => {
    for (const pid of childrenNamed(proc.child.pid!, 'tor')) process.kill(pid, 'SIGKILL');
    await proc.stop('SIGKILL');
    throw new Error(`${e.message}\n${proc.output().slice(-3000)}`);
  });
  const torPid = await until('the tor started by run.sh', 5_000, () => childrenNamed(proc.child.pid!, 'tor')[0], 20);
  return { proc, stdout: () => out, origin, torPid };
}
