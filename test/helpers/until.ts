// Waiting on what a process or a server did, never on a fixed delay.

/** Thrown by a probe when waiting longer cannot help (a process it waits on has exited). */
export class Hopeless extends Error {}

/** Polls `probe` until it gives a value; past `ms` throws "`what`: did not happen within N s".
 * A probe's error is kept for the message and polling goes on, unless it is Hopeless. */
export async function until<T>(what: string, ms: number, probe: () => T | undefined | Promise<T | undefined>, every = 200): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      if (e instanceof Hopeless) throw new Error(`${what}: ${e.message}`);
      last = e;
    }
    if (Date.now() > end) throw new Error(`${what}: did not happen within ${ms / 1000} s${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
