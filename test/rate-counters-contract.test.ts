// One contract for the RateCounters port, run against every backend: in memory (the embedded
// engine) and PostgreSQL (shared by instances: two pools stand for two instances).
import type { ExecutionContext } from 'ava';
import { test } from './helpers/test.ts';
import { startPostgres, type Postgres } from './helpers/postgres.ts';
import type { RateCounters } from '../src/domain/ports.ts';
import { LocalRateCounters } from '../src/store/local/rate-counters.ts';
import { PostgresRateCounters } from '../src/store/postgres/rate-counters.ts';
import { openPostgres } from '../src/store/postgres/index.ts';

type Open = (t: ExecutionContext) => Promise<[RateCounters, RateCounters]>;
const T0 = 1_800_000_000_000;
const MIN = 60_000;

function contract(name: string, open: Open): void {
  const it = (title: string, fn: (t: ExecutionContext, one: RateCounters, two: RateCounters) => Promise<void>): void => {
    test(`${name}: ${title}`, async (t) => {
      const [one, two] = await open(t);
      await fn(t, one, two);
    });
  };

  it('takes while the window has room, then gives the time left; a new window starts afresh', async (t, c) => {
    for (let i = 0; i < 3; i++) t.is(await c.take('a', 1, 3, MIN, T0 + i), undefined);
    t.is(await c.take('a', 1, 3, MIN, T0 + 10_000), 50_000, 'refused: 50 s left of the window');
    t.deepEqual(await c.used('a', MIN, T0 + 10_000), { used: 3, msLeft: 50_000 }, 'a refusal counts nothing');
    t.is(await c.take('b', 1, 3, MIN, T0 + 10_000), undefined, 'keys are separate');
    t.is(await c.take('a', 1, 3, MIN, T0 + MIN), undefined, 'the next window');
    t.deepEqual(await c.used('a', MIN, T0 + MIN), { used: 1, msLeft: MIN });
  });

  it('amounts: a take of n fits or not as a whole; add gives back, never below zero', async (t, c) => {
    t.is(await c.take('bytes', 700, 1000, MIN, T0), undefined);
    t.truthy(await c.take('bytes', 301, 1000, MIN, T0 + 1));
    t.is(await c.take('bytes', 300, 1000, MIN, T0 + 1), undefined);
    await c.add('bytes', -500, MIN, T0 + 2);
    t.is((await c.used('bytes', MIN, T0 + 2)).used, 500);
    await c.add('bytes', -5000, MIN, T0 + 3);
    t.is((await c.used('bytes', MIN, T0 + 3)).used, 0);
    t.truthy(await c.take('huge', 1001, 1000, MIN, T0), 'more than the limit never fits');
    t.is((await c.used('huge', MIN, T0)).used, 0);
  });

  it('many takes at once, from one instance or two, never pass the limit together', async (t, one, two) => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).take('race', 1, 10, MIN, T0 + 5)));
    t.is(results.filter((r) => r === undefined).length, 10);
    t.is((await one.used('race', MIN, T0 + 5)).used, 10);
    t.is((await two.used('race', MIN, T0 + 5)).used, 10, 'both instances see one count');
  });
}

contract('local', async () => {
  const c = new LocalRateCounters();
  return [c, c];
});

let cluster: Promise<Postgres> | undefined;
const postgres = (): Promise<Postgres> => (cluster ??= startPostgres());
test.after.always('the PostgreSQL cluster is stopped and removed', async () => {
  if (cluster) await (await cluster.catch(() => undefined))?.stop();
});

contract('postgres', async (t) => {
  const url = await (await postgres()).database();
  const [a, b] = await Promise.all([openPostgres(url), openPostgres(url)]);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  return [new PostgresRateCounters(a), new PostgresRateCounters(b)];
});
