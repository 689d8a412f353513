// One contract for the Locker port, run against every backend (in-process, PostgreSQL advisory
// locks), and for the @tus/server adapter over each of them.
import type { ExecutionContext } from 'ava';
import { ERRORS } from '@tus/utils';
import { test } from './helpers/test.ts';
import { startPostgres, type Postgres } from './helpers/postgres.ts';
import type { Locker } from '../src/domain/ports.ts';
import { LocalLocker } from '../src/store/local/locker.ts';
import { PostgresLocker } from '../src/store/postgres/locker.ts';
import { openPostgres, type PgDb } from '../src/store/postgres/index.ts';
import { TusLocker } from '../src/http/tus/locker.ts';
import { PostgresJobEvents } from '../src/store/postgres/job-events.ts';
import { until } from './helpers/until.ts';

/** Two lockers standing for two instances: the same one twice where there is only one process. */
type Open = (t: ExecutionContext) => Promise<[Locker, Locker]>;

const tick = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves when `p` has settled within `ms`, to whether it did. */
const settlesWithin = (p: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([p.then(() => true, () => true), tick(ms).then(() => false)]);

/** What `p` rejects with (tus's errors are plain objects, not Errors). */
const rejection = (p: Promise<unknown>): Promise<unknown> => p.then(() => new Error('resolved'), (e: unknown) => e);

function contract(name: string, open: Open): void {
  const it = (title: string, fn: (t: ExecutionContext, one: Locker, two: Locker) => Promise<void>): void => {
    test(`${name}: ${title}`, async (t) => {
      const [one, two] = await open(t);
      await fn(t, one, two);
    });
  };

  it('runs on one key never overlap, from one instance or two', async (t, one, two) => {
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    const work = (i: number) => async (): Promise<number> => {
      inside++;
      most = Math.max(most, inside);
      await tick(2);
      await Promise.resolve();
      await tick(1);
      order.push(i);
      inside--;
      return i;
    };
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? one : two).run('k', work(i))));
    t.deepEqual(results, Array.from({ length: 12 }, (_, i) => i), 'each run returns its own value');
    t.is(most, 1, 'never two inside');
    t.is(order.length, 12);
  });

  it('different keys run in parallel', async (t, one, two) => {
    let inside = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const work = async (): Promise<void> => {
      inside++;
      most = Math.max(most, inside);
      if (inside === 4) open();
      await gate; // only passes once all four are inside at once
      inside--;
    };
    await Promise.all([one.run('a', work), one.run('b', work), two.run('c', work), two.run('d', work)]);
    t.is(most, 4);
  });

  it('a run that throws releases the key, and its error reaches the caller', async (t, one, two) => {
    const boom = new Error('boom');
    await t.throwsAsync(() => one.run('k', async () => {
      await tick(1);
      throw boom;
    }), { is: boom });
    t.is(await two.run('k', async () => 'next'), 'next');
    // and while a throwing run waits behind another, the queue still drains
    const runs = [
      one.run('k', async () => tick(5).then(() => 1)),
      two.run('k', async () => {
        throw boom;
      }),
      one.run('k', async () => 3),
    ];
    const settled = await Promise.allSettled(runs);
    t.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
    t.is(await one.run('k', async () => 'free'), 'free');
  });

  it('a second run on a held key waits until the first ends', async (t, one, two) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const events: string[] = [];
    const first = one.run('k', async () => {
      events.push('first in');
      await held;
      events.push('first out');
    });
    await tick(20);
    const second = two.run('k', async () => {
      events.push('second in');
    });
    t.false(await settlesWithin(second, 100), 'second waits');
    release();
    await Promise.all([first, second]);
    t.deepEqual(events, ['first in', 'first out', 'second in']);
  });

  it('a waiter asks for the key through requestRelease: the holder, on either instance, is told', async (t, one, two) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let asked = 0;
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    const first = one.run('k', async (hold) => {
      hold.onReleaseRequest(() => {
        asked++;
        release();
      });
      inside();
      await held;
      return hold.lost.aborted;
    });
    await entered;
    const second = two.run('k', async () => 'second');
    await tick(50); // the second is waiting now
    await two.requestRelease('k');
    t.false(await first, 'the hold was not lost');
    t.is(await second, 'second');
    t.is(asked, 1);
    await one.requestRelease('k'); // nobody holds it: nothing to tell, nothing fails
  });

  // ---- the @tus/server adapter over this Locker ----

  /** One TusLocker per instance (one process: the same one twice). */
  const tus = (one: Locker, two: Locker, timeout?: number): [TusLocker, TusLocker] => {
    const a = new TusLocker(one, { acquireLockTimeout: timeout });
    return [a, one === two ? a : new TusLocker(two, { acquireLockTimeout: timeout })];
  };

  it('tus: in one process, the holder is asked to release when a second request asks, and the third asks the second', async (t, one) => {
    const locker = new TusLocker(one);
    const asked: string[] = [];
    const first = locker.newLock('up');
    await first.lock(new AbortController().signal, () => void asked.push('first'));
    const second = locker.newLock('up');
    const secondIn = second.lock(new AbortController().signal, () => void asked.push('second'));
    await tick(20);
    t.deepEqual(asked, ['first']);
    const third = locker.newLock('up');
    const thirdIn = third.lock(new AbortController().signal, () => void asked.push('third'));
    await tick(20);
    await first.unlock();
    await secondIn;
    await tick(20);
    t.true(asked.includes('second'), 'the new holder is asked at once: someone waits behind it');
    t.false(asked.includes('third'));
    await second.unlock();
    await thirdIn;
    await third.unlock();
    t.is(locker.uploads.size, 0, 'nothing kept for a free upload');
  });

  it('tus: a second lock on one upload waits until the first unlocks; the holder is asked to release', async (t, one, two) => {
    const [a, b] = tus(one, two);
    const requests: string[] = [];
    const first = a.newLock('up1');
    await first.lock(new AbortController().signal, () => {
      requests.push('first asked');
    });
    const second = b.newLock('up1');
    let secondIn = false;
    const waiting = second.lock(new AbortController().signal, () => {}).then(() => (secondIn = true));
    // another upload is not held up
    const other = a.newLock('up2');
    await other.lock(new AbortController().signal, () => {});
    await other.unlock();

    await until('the holder is asked to release', 5000, () => (requests.length ? true : undefined), 10);
    t.false(await settlesWithin(waiting, 150), 'the second waits');
    t.false(secondIn);
    t.deepEqual(requests, ['first asked'], 'the holder, in this process or another instance, was asked to release, once');
    await first.unlock();
    await waiting;
    t.true(secondIn);
    await second.unlock();
    await second.unlock(); // twice is harmless
    // free again
    const third = a.newLock('up1');
    await third.lock(new AbortController().signal, () => {});
    await third.unlock();
  });

  it('tus: acquiring times out with ERR_LOCK_TIMEOUT, as MemoryLocker does, and the upload stays usable', async (t, one, two) => {
    const [a, b] = tus(one, two, 300);
    const holder = a.newLock('up');
    await holder.lock(new AbortController().signal, () => {});
    const started = Date.now();
    t.teardown(() => holder.unlock());
    t.is(await rejection(b.newLock('up').lock(new AbortController().signal, () => {})), ERRORS.ERR_LOCK_TIMEOUT);
    t.true(Date.now() - started >= 250);
    // a waiter whose request ends gives up too
    const stop = new AbortController();
    const aborted = b.newLock('up').lock(stop.signal, () => {});
    await tick(20);
    stop.abort();
    t.is(await rejection(aborted), ERRORS.ERR_LOCK_TIMEOUT);
    // and one whose request had ended before it asked
    t.is(await rejection(b.newLock('up').lock(AbortSignal.abort(), () => {})), ERRORS.ERR_LOCK_TIMEOUT);
    await holder.unlock();
    // the abandoned waiters left nothing behind: the upload is free at once
    const next = b.newLock('up');
    await next.lock(new AbortController().signal, () => {});
    await next.unlock();
  });

  it('tus: a held lock is released when its request ends, even without unlock', async (t, one, two) => {
    const [a, b] = tus(one, two);
    const request = new AbortController();
    await a.newLock('up').lock(request.signal, () => {});
    const waiting = b.newLock('up');
    const got = waiting.lock(new AbortController().signal, () => {});
    t.false(await settlesWithin(got, 100));
    request.abort();
    await got;
    await waiting.unlock();
    t.pass();
  });
}

// ---- the backends -------------------------------------------------------------

contract('local', async () => {
  const l = new LocalLocker();
  return [l, l];
});

let cluster: Promise<Postgres> | undefined;
const postgres = (): Promise<Postgres> => (cluster ??= startPostgres());
test.after.always('the PostgreSQL cluster is stopped and removed', async () => {
  if (cluster) await (await cluster.catch(() => undefined))?.stop();
});

async function pool(t: ExecutionContext, url: string, max = 4): Promise<PgDb> {
  const db = await openPostgres(url, { max });
  t.teardown(() => db.close());
  return db;
}

/** One instance's locker: its pool, and its bus for release requests, as services.ts makes them. */
async function instanceLocker(t: ExecutionContext, url: string, max = 4): Promise<{ locker: PostgresLocker; db: PgDb }> {
  const db = await pool(t, url, max);
  const bus = new PostgresJobEvents(db.pool, url, { channel: 'obscura_lock_release' });
  await bus.start();
  t.teardown(() => bus.close());
  return { locker: new PostgresLocker(db.pool, bus), db };
}

// two PostgresLockers on two pools: two instances
contract('postgres', async (t) => {
  const url = await (await postgres()).database();
  const [a, b] = await Promise.all([instanceLocker(t, url), instanceLocker(t, url)]);
  return [a.locker, b.locker];
});

test('postgres: a release request that finds nobody waiting in the database is not passed on', async (t) => {
  const url = await (await postgres()).database();
  const [a, b] = await Promise.all([instanceLocker(t, url), instanceLocker(t, url)]);
  let asked = 0;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let inside!: () => void;
  const entered = new Promise<void>((r) => (inside = r));
  const first = a.locker.run('k', async (hold) => {
    hold.onReleaseRequest(() => void asked++);
    inside();
    await held;
  });
  await entered;
  // a late request (its waiter got another key, gave up, or is this very holder): dropped
  await b.locker.requestRelease('k');
  await tick(200);
  t.is(asked, 0);
  // one with a waiter behind it: passed on
  const second = b.locker.run('k', async () => 'second');
  await tick(50);
  await b.locker.requestRelease('k');
  await until('the holder is asked', 5000, () => (asked === 1 ? true : undefined), 10);
  release();
  await first;
  t.is(await second, 'second');
});

test('postgres: waiters of one process on one key take one pool client, and every client comes back', async (t) => {
  const url = await (await postgres()).database();
  const db = await pool(t, url, 3);
  const locker = new PostgresLocker(db.pool);
  let inside = 0;
  let most = 0;
  const runs = Array.from({ length: 10 }, () =>
    locker.run('k', async () => {
      inside++;
      most = Math.max(most, inside);
      t.true(db.pool.totalCount - db.pool.idleCount <= 1, 'one client for one key');
      await tick(2);
      inside--;
    }),
  );
  await Promise.all(runs);
  t.is(most, 1);
  t.is(db.pool.totalCount - db.pool.idleCount, 0, 'all clients released');
  t.is(locker.size, 0);
  const held = await db.pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
  t.is(held.rows[0].n, 0, 'no advisory lock left');
});

test('postgres: a run whose connection dies releases the key for the other instance, and its holder is told the hold is lost', async (t) => {
  const url = await (await postgres()).database();
  const [a, b] = await Promise.all([pool(t, url), pool(t, url)]);
  const one = new PostgresLocker(a.pool);
  const two = new PostgresLocker(b.pool);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let pid = 0;
  let lost: AbortSignal | undefined;
  const first = one.run('k', async (hold) => {
    lost = hold.lost;
    pid = (await b.pool.query("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")).rows[0]?.pid;
    await held;
  });
  await new Promise<void>((r) => { const poll = (): void => void (pid ? r() : setTimeout(poll, 5)); poll(); });
  const second = two.run('k', async () => 'second');
  t.false(await settlesWithin(second, 100));
  t.false(lost!.aborted);
  // the first instance's session ends (a crash): the database drops its lock, and its holder is told
  await b.pool.query('SELECT pg_terminate_backend($1)', [pid]);
  t.is(await second, 'second');
  await until('the holder hears its lock is lost', 5000, () => (lost!.aborted ? true : undefined), 10);
  release();
  await first; // its unlock fails on a dead connection; the client is thrown away, not reused
  t.is(await one.run('k', async () => 'after'), 'after');
});
