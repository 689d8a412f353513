// The task map (src/queue/tasks.ts) types both ends: the pool's run() at the call site and the
// worker's dispatch table. The @ts-expect-error lines are checked by tsc --noEmit.
import { test } from './helpers/test.ts';
import { PHOTO } from './helpers/media.ts';
import { loadConfig } from '../src/config.ts';
import { TaskError, WorkerPool } from '../src/queue/worker-pool.ts';
import type { Engines, TaskResult } from '../src/queue/tasks.ts';
import type { Probe } from '../src/media/probe.ts';

const limits = loadConfig({}).media;

// compile-time only: never called
export function typed(pool: WorkerPool, engines: Engines): void {
  const p: Promise<Probe> = pool.run({ engine: 'probe', args: { input: 'x', limits } });
  void p;
  // @ts-expect-error an engine that does not exist
  void pool.run({ engine: 'nope', args: {} });
  // @ts-expect-error args of another engine
  void pool.run({ engine: 'probe', args: { file: 'x', limits } });
  // @ts-expect-error the result is the engine's, not whatever the caller says
  const wrong: Promise<string> = pool.run({ engine: 'probe', args: { input: 'x', limits } });
  void wrong;
  // @ts-expect-error a table missing an engine
  const missing: Engines = { ...engines, probe: undefined };
  void missing;
  const r: TaskResult<'convertCheck'> = undefined;
  void r;
}

test('a task runs on a real worker with the result its engine declares; an unknown engine is a TaskError', async (t) => {
  const pool = new WorkerPool({ size: 1, entry: new URL('../src/queue/worker.ts', import.meta.url) });
  const alive = setInterval(() => {}, 1000); // the pool's workers are unref'd, as in the service
  t.teardown(() => (clearInterval(alive), pool.close()));
  const p = await pool.run({ engine: 'probe', args: { input: PHOTO, limits } });
  t.is(p.kind, 'image');
  t.true(p.width > 0 && p.height > 0);
  const err = await t.throwsAsync(pool.run({ engine: 'toString' as 'probe', args: { input: PHOTO, limits } }));
  t.true(err instanceof TaskError && err.code === 'engine_failed');
});
