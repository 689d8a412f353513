// What finished jobs leave: their sealed report and their assets, read by their owner until
// they expire, then destroyed (by the sweep, or at once when their session is deleted). The
// job's life up to its end is jobs.ts; this is everything after it.
import type { Readable } from 'node:stream';
import { AppError } from './errors.ts';
import { TERMINAL, type AssetPrivate, type Sealed } from './jobs.ts';
import type { Account, AssetRepository, AssetRow, BlobStore, JobRepository, JobRow, Product, SessionRow, Sealer } from './ports.ts';

export class JobResults {
  readonly #rows: JobRepository;
  readonly #assets: AssetRepository;
  readonly #blobs: BlobStore;
  readonly #sealer: Sealer;

  constructor(opts: { rows: JobRepository; assets: AssetRepository; blobs: BlobStore; sealer: Sealer }) {
    this.#rows = opts.rows;
    this.#assets = opts.assets;
    this.#blobs = opts.blobs;
    this.#sealer = opts.sealer;
  }

  /** The finished job's report (`R`: its runner's report; an empty one for a failed job) and assets; 409 while it runs, 410 once its results expired. */
  async of<R extends object = Record<string, unknown>>(job: JobRow): Promise<{ report: Partial<R>; assets: (AssetRow & AssetPrivate)[] }> {
    if (!TERMINAL.includes(job.state)) {
      throw new AppError('job_not_finished', undefined, { retry_after: 2 });
    }
    if (this.expired(job)) throw new AppError('results_expired', 'These results have expired and were destroyed.');
    const sealed = this.#sealer.open<Sealed<unknown, Partial<R>>>(`job:${job.id}`, job.sealed);
    return {
      report: sealed.report ?? {},
      assets: (await this.#assets.forJob(job.id)).map((a) => ({ ...a, ...this.#sealer.open<AssetPrivate>(`asset:${a.id}`, a.sealed) })),
    };
  }

  /** An asset for download, for its owner: 404 unknown, 410 expired. */
  async asset(account: Account, assetId: string, product: Product): Promise<{ asset: AssetRow & AssetPrivate; read(range?: { start?: number; end?: number }): Readable }> {
    const a = typeof assetId === 'string' && assetId.length < 80 ? await this.#assets.byId(assetId) : undefined;
    const job = a && (await this.#rows.byId(a.jobId));
    if (!a || !job || a.accountId !== account.id || job.product !== product) throw new AppError('asset_not_found');
    if (a.state !== 'available' || this.expired(job)) throw new AppError('results_expired', 'This file has expired and was destroyed.');
    return {
      asset: { ...a, ...this.#sealer.open<AssetPrivate>(`asset:${a.id}`, a.sealed) },
      read: (range) => this.#blobs.read(a.id, range),
    };
  }

  /** The bytes of an asset of() just listed (the checks were its). */
  bytes(asset: AssetRow, range?: { start?: number; end?: number }): Readable {
    return this.#blobs.read(asset.id, range);
  }

  /**
   * Whether the job's results are past their expiry: checked on every read, so they are gone
   * the moment `expires_at` passes; the janitor (expire()) only reclaims the space later.
   */
  expired(job: JobRow, now = Date.now()): boolean {
    return job.resultsState === 'expired' || (job.expiresAt !== null && job.expiresAt <= now);
  }

  /** Destroys the results of every job whose expiry has passed. Returns how many jobs. */
  async expire(now = Date.now()): Promise<number> {
    let n = 0;
    for (;;) {
      const batch = await this.#rows.resultsExpiredBefore(now, 50);
      if (!batch.length) return n;
      for (const job of batch) {
        await this.#destroyAssets(job);
        await this.#rows.update(job.id, { resultsState: 'expired' });
      }
      n += batch.length;
    }
  }

  /**
   * Destroys what the jobs of a deleted session left: result bytes and keys, and the sealed
   * report (names, verdicts). Their results answer 410 from now on. Returns how many jobs.
   */
  async destroyOf(session: SessionRow): Promise<number> {
    const now = Date.now();
    const done = (await this.#rows.forSession(session.id)).filter((j) => TERMINAL.includes(j.state));
    for (const job of done) {
      await this.#destroyAssets(job);
      await this.#rows.update(job.id, {
        resultsState: 'expired',
        expiresAt: Math.min(job.expiresAt ?? now, now),
        sealed: this.#sealer.seal(`job:${job.id}`, { options: {} } satisfies Sealed),
      });
    }
    return done.length;
  }

  /** The bytes and keys of the job's assets go; their rows stay, marked expired (410 from then on). */
  async #destroyAssets(job: JobRow): Promise<void> {
    for (const a of await this.#assets.forJob(job.id)) {
      await this.#blobs.delete(a.id);
      await this.#assets.setState(a.id, 'expired');
    }
  }
}
