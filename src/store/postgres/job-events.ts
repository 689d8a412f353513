// "This job changed" across every instance on one PostgreSQL: NOTIFY on one channel with the job
// id as payload, heard by one dedicated LISTEN connection per instance. That connection is
// re-established with back-off when it drops; since whatever was published meanwhile is lost,
// every subscriber is then called once, so that long polls read their job again.
import pg from 'pg';
import type { JobEvents } from '../../domain/ports.ts';

export interface PostgresJobEventsOptions {
  /** The NOTIFY channel; every instance of one deployment must use the same one. */
  channel?: string;
  /** First wait before reconnecting, doubled on each failure up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Told of each lost connection and each failed reconnect (for the log); never throws back. */
  onError?: (err: Error) => void;
}

type Fn = () => void;

export class PostgresJobEvents implements JobEvents {
  readonly #pool: pg.Pool;
  readonly #url: string;
  readonly #channel: string;
  readonly #minBackoff: number;
  readonly #maxBackoff: number;
  readonly #onError: (err: Error) => void;
  /** job id -> its subscribers, in this process. */
  readonly #subscribers = new Map<string, Set<Fn>>();

  #client: pg.Client | undefined;
  /** The first connection, shared by start() and the first subscribe(). */
  #starting: Promise<void> | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #backoff: number;
  #closed = false;

  /** `pool` publishes; `url` opens the one listening connection (outside the pool). */
  constructor(pool: pg.Pool, url: string, options: PostgresJobEventsOptions = {}) {
    this.#pool = pool;
    this.#url = url;
    this.#channel = options.channel ?? 'obscura_job';
    if (!/^[a-z_][a-z0-9_]*$/.test(this.#channel)) throw new Error(`not a plain channel name: ${this.#channel}`);
    this.#minBackoff = options.minBackoffMs ?? 100;
    this.#maxBackoff = options.maxBackoffMs ?? 10_000;
    this.#backoff = this.#minBackoff;
    this.#onError = options.onError ?? (() => {});
  }

  /** Opens the listening connection; rejects when the first attempt fails (nothing is retried then). */
  start(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('job events closed'));
    this.#starting ??= this.#connect().catch((err: unknown) => {
      this.#starting = undefined; // a later start() or subscribe() tries again
      throw err;
    });
    return this.#starting;
  }

  async publish(jobId: string): Promise<void> {
    await this.#pool.query('SELECT pg_notify($1, $2)', [this.#channel, jobId]);
  }

  async subscribe(jobId: string, fn: () => void): Promise<() => void> {
    // Once started, a subscription never waits on the connection: while it is down, the
    // reconnect calls every subscriber, this one included.
    if (!this.#starting) await this.start();
    let set = this.#subscribers.get(jobId);
    if (!set) this.#subscribers.set(jobId, (set = new Set()));
    // the same function subscribed twice is two subscriptions
    const mine: Fn = () => fn();
    set.add(mine);
    return () => {
      const s = this.#subscribers.get(jobId);
      if (!s?.delete(mine)) return;
      if (!s.size) this.#subscribers.delete(jobId);
    };
  }

  /** Stops listening and reconnecting; subscriptions are dropped. Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    this.#subscribers.clear();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }

  /** Subscriptions live in this process (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const s of this.#subscribers.values()) n += s.size;
    return n;
  }

  /** Whether the listening connection is up right now. */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, keepAlive: true, application_name: 'obscura-job-events' });
    let lost = false;
    const onLost = (err?: Error): void => {
      if (lost) return;
      lost = true;
      client.removeAllListeners('notification');
      // the connection is gone either way; end() frees its socket if something is left of it
      client.end().catch(() => {});
      if (this.#client === client) this.#client = undefined;
      if (this.#closed) return;
      this.#onError(err ?? new Error('job events: the listening connection ended'));
      this.#scheduleReconnect();
    };
    // an error or end before LISTEN succeeded is the connect's rejection, not a lost connection
    let up = false;
    client.on('error', (err) => (up ? onLost(err) : undefined));
    client.on('end', () => (up ? onLost() : undefined));
    client.on('notification', (msg) => {
      if (msg.channel === this.#channel && msg.payload) this.#deliver(msg.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (err) {
      lost = true;
      await client.end().catch(() => {});
      throw err;
    }
    if (this.#closed) {
      lost = true;
      await client.end().catch(() => {});
      return;
    }
    up = true;
    this.#client = client;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return;
    // full jitter, so that instances that lost the database together do not return together
    const wait = Math.round(this.#backoff / 2 + (Math.random() * this.#backoff) / 2);
    this.#backoff = Math.min(this.#backoff * 2, this.#maxBackoff);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      this.#connect().then(
        () => {
          if (this.#closed) return;
          this.#backoff = this.#minBackoff;
          this.#everyone();
        },
        (err: unknown) => {
          if (this.#closed) return;
          this.#onError(err as Error);
          this.#scheduleReconnect();
        },
      );
    }, wait);
    // a process that has nothing else to do may exit while the database is away
    this.#reconnectTimer.unref();
  }

  #deliver(jobId: string): void {
    const set = this.#subscribers.get(jobId);
    if (!set) return;
    for (const fn of [...set]) call(fn);
  }

  /** After a reconnect: anything may have changed while no one listened. */
  #everyone(): void {
    const all = [...this.#subscribers.values()].flatMap((s) => [...s]);
    for (const fn of all) call(fn);
  }
}

/** A subscriber that throws neither stops the others nor reaches the connection. */
function call(fn: Fn): void {
  try {
    fn();
  } catch {
    // the subscriber's own failure
  }
}
