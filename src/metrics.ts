// What the service tells its operator, in Prometheus' text format (docs/operators.md "Metrics"). Every
// label and every value it may take is here, in one place: products, outcomes, protocols,
// limit names, listeners, route templates, status codes, store operations. Never an id, a key,
// a name, an address, a file name or a circuit: metrics show load, never who or what.
// A leaf module, like log.ts: every layer may count through it, it imports none of them.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const PRODUCTS = ['analyse', 'convert', 'hide', 'reveal'] as const;
export const JOB_OUTCOMES = ['completed', 'partial', 'failed'] as const;
export const ACTIVE_STATES = ['queued', 'processing'] as const;
export const LISTENERS = ['clearnet', 'onion', 'i2p'] as const;
export type UploadProtocol = 'tus' | 'v1' | 'direct';
export type BlobOperation = 'create' | 'append' | 'size' | 'exists' | 'read' | 'delete' | 'sweep';
/** The limits that refuse (docs/api.md "Limits"), by the setting's meaning, never by whom they refused. */
export type LimitName =
  | 'account_requests'
  | 'account_jobs'
  | 'account_upload_bytes'
  | 'account_uploads_at_once'
  | 'visitor_requests'
  | 'mcp_keyless'
  | 'wrong_keys'
  | 'web_sign_in'
  | 'web_sign_up'
  | 'web_mail_requests'
  | 'web_links';

type Product = (typeof PRODUCTS)[number];
type Outcome = (typeof JOB_OUTCOMES)[number];
type Listener = (typeof LISTENERS)[number];
type ActiveState = (typeof ACTIVE_STATES)[number];
type ActiveRows = Awaited<ReturnType<MetricSources['activeJobs']>>;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
// a route template as the router holds it ('/api/convert/:upload_uid'); anything else is 'other'
const ROUTE_TEMPLATE = /^(\/[A-Za-z0-9_.:*()-]*)+$|^\(unmatched\)$/;
/** Seconds: a quick image conversion up to a long video analysis (the job time limit defaults to 15 minutes). */
const JOB_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600];

/** Read at scrape time, from whatever this instance holds. */
export interface MetricSources {
  /** Jobs queued or processing, by product and state (every instance's, from the shared queue). */
  activeJobs(): Promise<{ product: string; state: string; count: number }[]>;
  pool(): { busy: number; total: number; memoryHeld: number; memoryBudget: number };
}

export class Metrics {
  /** Our own registry, not prom-client's global one: several services in one process (the tests) do not clash. */
  readonly registry = new Registry();
  #sources: MetricSources | undefined;
  #processMetrics = false;
  readonly #jobsFinished: Counter<'product' | 'outcome'>;
  readonly #jobDuration: Histogram<'product'>;
  readonly #jobRun: Histogram<'product'>;
  readonly #takeovers: Counter<'product'>;
  readonly #uploadBytes: Counter<'protocol'>;
  readonly #refusals: Counter<'limit'>;
  readonly #requests: Counter<'listener' | 'method' | 'route' | 'status'>;
  readonly #blobErrors: Counter<'operation'>;

  constructor() {
    const registers = [this.registry];
    this.#jobsFinished = new Counter({ name: 'obscura_jobs_finished_total', help: 'Jobs that ended, by product and outcome.', labelNames: ['product', 'outcome'], registers });
    this.#jobDuration = new Histogram({
      name: 'obscura_job_duration_seconds',
      help: 'From a job being queued to its end, by product.',
      labelNames: ['product'],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.#jobRun = new Histogram({
      name: 'obscura_job_run_seconds',
      help: 'From a job being claimed by a worker slot to its end (its last attempt), by product.',
      labelNames: ['product'],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.#takeovers = new Counter({
      name: 'obscura_job_lease_takeovers_total',
      help: 'Jobs this instance took over because the lease of the instance running them ran out.',
      labelNames: ['product'],
      registers,
    });
    for (const product of PRODUCTS) {
      this.#takeovers.inc({ product }, 0);
      for (const outcome of JOB_OUTCOMES) this.#jobsFinished.inc({ product, outcome }, 0);
    }
    this.#uploadBytes = new Counter({ name: 'obscura_upload_bytes_total', help: 'Bytes stored from uploads, by protocol (tus, v1, direct).', labelNames: ['protocol'], registers });
    for (const protocol of ['tus', 'v1', 'direct']) this.#uploadBytes.inc({ protocol }, 0);
    this.#refusals = new Counter({ name: 'obscura_rate_limit_refusals_total', help: 'Requests refused (or slowed) by a limit, by the limit.', labelNames: ['limit'], registers });
    this.#requests = new Counter({
      name: 'obscura_http_requests_total',
      help: 'Requests answered, by listener, method, route template (never the path) and status.',
      labelNames: ['listener', 'method', 'route', 'status'],
      registers,
    });
    this.#blobErrors = new Counter({ name: 'obscura_blob_store_errors_total', help: 'Failures of the blob store, by operation.', labelNames: ['operation'], registers });
    const sources = () => this.#sources;
    const active = () => this.#activeJobs();
    new Gauge({
      name: 'obscura_jobs',
      help: 'Jobs queued or processing now, by product and state (on every instance sharing the queue).',
      labelNames: ['product', 'state'],
      registers,
      async collect() {
        const rows = await active();
        if (!rows) return;
        this.reset();
        for (const product of PRODUCTS) for (const state of ACTIVE_STATES) this.set({ product, state }, 0);
        for (const r of rows) {
          if (PRODUCTS.includes(r.product as Product) && ACTIVE_STATES.includes(r.state as ActiveState)) this.set({ product: r.product, state: r.state }, r.count);
        }
      },
    });
    new Gauge({
      name: 'obscura_queue_depth',
      help: 'Jobs waiting for a worker (queued), all products (on every instance sharing the queue).',
      registers,
      async collect() {
        const rows = await active();
        if (rows) this.set(rows.filter((r) => r.state === 'queued').reduce((n, r) => n + r.count, 0));
      },
    });
    const pool = (name: string, help: string, pick: (p: ReturnType<MetricSources['pool']>) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const s = sources();
          if (s) this.set(pick(s.pool()));
        },
      });
    pool('obscura_workers_busy', 'Media workers of this instance running a task now.', (p) => p.busy);
    pool('obscura_workers', 'Media workers of this instance (OBSCURA_WORKERS).', (p) => p.total);
    pool('obscura_media_memory_reserved_bytes', 'Memory the running media tasks of this instance have reserved.', (p) => p.memoryHeld);
    pool('obscura_media_memory_budget_bytes', 'The media memory budget of this instance (OBSCURA_MEDIA_MEMORY_BUDGET).', (p) => p.memoryBudget);
  }

  /** One read of the queue serves every gauge of one scrape (they are collected at once), and only it: the next scrape reads again. */
  #activeRead: Promise<ActiveRows | undefined> | undefined;

  #activeJobs(): Promise<ActiveRows | undefined> {
    const s = this.#sources;
    if (!s) return Promise.resolve(undefined);
    // a queue that cannot be read leaves the gauges out of this scrape rather than failing it
    this.#activeRead ??= s
      .activeJobs()
      .catch(() => undefined)
      .finally(() => (this.#activeRead = undefined));
    return this.#activeRead;
  }

  /** Where the gauges read from, once the service is built. */
  watch(sources: MetricSources): void {
    this.#sources = sources;
  }

  /** prom-client's process metrics (CPU, memory, event loop, GC), named obscura_process_*, obscura_nodejs_*: only once served. */
  withProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'obscura_' });
  }

  jobFinished(product: string, outcome: string, at: { createdAt: number; startedAt: number | null; finishedAt: number }): void {
    if (!PRODUCTS.includes(product as Product) || !JOB_OUTCOMES.includes(outcome as Outcome)) return;
    this.#jobsFinished.inc({ product, outcome });
    this.#jobDuration.observe({ product }, Math.max(0, at.finishedAt - at.createdAt) / 1000);
    if (at.startedAt !== null) this.#jobRun.observe({ product }, Math.max(0, at.finishedAt - at.startedAt) / 1000);
  }

  leaseTakeover(product: string): void {
    if (PRODUCTS.includes(product as Product)) this.#takeovers.inc({ product });
  }

  uploadBytes(protocol: UploadProtocol, bytes: number): void {
    if (bytes > 0) this.#uploadBytes.inc({ protocol }, bytes);
  }

  refused(limit: LimitName): void {
    this.#refusals.inc({ limit });
  }

  /** One answered request; `route` is the router's template, or '(unmatched)'. */
  request(listener: Listener, method: string, route: string, status: number): void {
    this.#requests.inc({
      listener,
      method: METHODS.has(method) ? method : 'other',
      route: ROUTE_TEMPLATE.test(route) && route.length <= 100 ? route : 'other',
      status: Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other',
    });
  }

  blobError(operation: BlobOperation): void {
    this.#blobErrors.inc({ operation });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
