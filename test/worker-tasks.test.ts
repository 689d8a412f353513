// The task map (src/domain/media-tasks.ts) types both ends: the pool's run() at the call site and the
// worker's dispatch table. The @ts-expect-error lines are checked by tsc --noEmit.
import { Writable } from 'node:stream';
import { test } from './helpers/test.ts';
import { PHOTO } from './helpers/media.ts';
import { loadConfig } from '../src/config.ts';
import { TaskError, WorkerPool } from '../src/queue/worker-pool.ts';
import { createLogger } from '../src/log.ts';
import type { Engines, TaskResult } from '../src/domain/media-tasks.ts';
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

test("a worker that dies on its own: the task fails with worker_stopped and a plain message, the log gets one line with the error's class only, and the next task runs on a new worker", async (t) => {
  const lines: string[] = [];
  const log = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
  const pool = new WorkerPool({ size: 1, entry: new URL('./helpers/crashing-worker.ts', import.meta.url), log });
  const alive = setInterval(() => {}, 1000);
  t.teardown(() => (clearInterval(alive), pool.close()));
  const err = await t.throwsAsync(pool.run({ engine: 'probe', args: { input: 'huge.webp', limits } }));
  t.true(err instanceof TaskError);
  t.is((err as TaskError).code, 'worker_stopped');
  t.regex(err!.message, /^The worker stopped while processing this file\./);
  t.false(err!.message.includes('657761067') || /typed array/i.test(err!.message), 'nothing of the internal error reaches the user');
  const stopped = lines.filter((l) => l.includes('media worker stopped'));
  t.is(stopped.length, 1, lines.join(''));
  t.like(JSON.parse(stopped[0]), { level: 50, error_class: 'RangeError', engine: 'probe' });
  t.false(lines.some((l) => l.includes('657761067') || /typed array|huge\.webp/i.test(l)), 'the log names the class only');
  t.is(await pool.run({ engine: 'probe', args: { input: 'alive', limits } }), 'alive' as never, 'a new worker took its place');
});
