// Worker-thread entry: runs media engines by name for the pool. Each task gets an
// AbortController; the pool's "abort" message fires it.
import { parentPort } from 'node:worker_threads';
import { MediaError, type MediaErrorCode } from '../media/errors.ts';
import { setToolMemoryShare } from '../media/tools.ts';
import { engines, preload } from './engines.ts';
import type { EngineContext, EngineName, TaskArgs, TaskResult } from '../domain/media-tasks.ts';

const port = parentPort!;
void preload().catch(() => {}); // a module that fails to load fails again, visibly, in its task
const controllers = new Map<number, AbortController>();
/** A task's ask for memory, until the pool answers (queue/memory-budget.ts). */
const admissions = new Map<number, { bytes: number; granted: () => void; refused: (e: Error) => void }>();

/** Asks the pool for `bytes` of the memory budget and waits for them; the tools started after get them as their limit. */
function admit(id: number, bytes: number): Promise<void> {
  return new Promise((granted, refused) => {
    admissions.set(id, { bytes, granted, refused });
    port.postMessage({ type: 'admit', id, bytes });
  });
}

/** Whether a name from a message is one of the table's engines (and not, say, "toString"). */
const isEngine = (name: unknown): name is EngineName => typeof name === 'string' && Object.hasOwn(engines, name);

/** Runs one engine on args the pool typed by the same task map (they crossed as a structured clone). */
const runEngine = <E extends EngineName>(engine: E, args: unknown, ctx: EngineContext): Promise<TaskResult<E>> =>
  (engines[engine] as (args: TaskArgs<E>, ctx: EngineContext) => Promise<TaskResult<E>>)(args as TaskArgs<E>, ctx);

type ToWorker =
  | { type: 'run'; id: number; engine?: string; args?: unknown }
  | { type: 'abort'; id: number }
  | { type: 'admitted'; id: number }
  | { type: 'refused'; id: number; code: string; message: string };

port.on('message', async (m: ToWorker) => {
  if (m.type === 'abort') {
    controllers.get(m.id)?.abort();
    return;
  }
  if (m.type === 'admitted' || m.type === 'refused') {
    const a = admissions.get(m.id);
    admissions.delete(m.id);
    if (m.type === 'admitted') {
      setToolMemoryShare(a?.bytes);
      a?.granted();
    } else a?.refused(new MediaError(m.code as MediaErrorCode, m.message));
    return;
  }
  const engine = m.engine;
  if (!isEngine(engine)) {
    port.postMessage({ type: 'error', id: m.id, code: 'engine_failed', message: `no engine ${m.engine}` });
    return;
  }
  const ac = new AbortController();
  controllers.set(m.id, ac);
  try {
    const result = await runEngine(engine, m.args, {
      signal: ac.signal,
      onProgress: (fraction: number) => port.postMessage({ type: 'progress', id: m.id, fraction }),
      onSpawn: (pid: number) => port.postMessage({ type: 'spawn', id: m.id, pid }),
      onReap: (pid: number) => port.postMessage({ type: 'reaped', id: m.id, pid }),
      admit: (bytes: number) => admit(m.id, bytes),
    });
    port.postMessage({ type: 'done', id: m.id, result });
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown; name?: string };
    const known = typeof e.code === 'string' && e.name === 'MediaError';
    port.postMessage({
      type: 'error',
      id: m.id,
      code: known ? e.code : ac.signal.aborted ? 'aborted' : 'engine_failed',
      // only the engines' own user-facing messages cross over; anything else may quote paths
      message: known ? String(e.message) : 'The media engine failed on this file.',
    });
  } finally {
    controllers.delete(m.id);
    admissions.delete(m.id);
    setToolMemoryShare(undefined);
  }
});
