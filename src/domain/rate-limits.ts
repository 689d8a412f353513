// How much one client may ask of the service: per account (requests a minute, job starts and
// uploaded bytes an hour, counted on the engine's shared counters so that the limits hold across
// instances; uploads at once, per instance), per anonymous visitor (a Tor circuit or an I2P
// destination, by an opaque tag, in memory: each instance has its own routers), and one brake
// on wrong keys. Counter keys are account ids, never addresses; nothing here is logged.
import { createHmac, randomBytes } from 'node:crypto';
import type { AbuseLimits } from '../config.ts';
import type { RateCounters } from './ports.ts';
import { WindowCounter } from './window-counter.ts';

export interface Refusal {
  /** Seconds until asking again can succeed, for Retry-After. */
  retryAfterS: number;
  message: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// Keys that authenticated pass the brake; remembered (as an HMAC under a key of this process)
// for a day, at most this many.
const KNOWN_KEYS_MAX = 10_000;
const KNOWN_KEY_LIFE = 24 * HOUR;
// An upload over the per-account cap waits on another to finish: no window to count down.
const BUSY_RETRY_S = 10;

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class RateLimits {
  readonly settings: AbuseLimits;
  readonly #counters: RateCounters;
  readonly #visitors: WindowCounter;
  readonly #badKeys: WindowCounter;
  readonly #now: () => number;
  readonly #tagKey = randomBytes(32);
  readonly #known = new Map<string, number>();
  readonly #uploading = new Map<string, number>();
  #brakeUntil = 0;

  constructor(settings: AbuseLimits, counters: RateCounters, now: () => number = Date.now) {
    this.settings = settings;
    this.#now = now;
    this.#counters = counters;
    this.#visitors = new WindowCounter({ limit: settings.visitorPerMinute, windowMs: MINUTE, now });
    this.#badKeys = new WindowCounter({ limit: settings.badKeys.limit, windowMs: settings.badKeys.windowMs, maxKeys: 1, now });
  }

  /** One request from an anonymous visitor: a Tor circuit or an I2P destination, by its opaque tag. */
  visitor(kind: 'circuit' | 'destination', tag: string): Refusal | undefined {
    const wait = this.#visitors.take(`${kind}:${tag}`);
    if (wait === undefined) return undefined;
    const over = kind === 'circuit' ? 'this Tor circuit' : 'this I2P destination';
    return this.#refuse(wait, `More than ${this.settings.visitorPerMinute} requests a minute came over ${over}`);
  }

  /**
   * Before a key is looked up. While the brake is on, only keys that authenticated before are
   * looked up at all: a guess is answered 429 without being checked, so guessing stops paying.
   */
  keyCheck(presented: string | undefined): Refusal | undefined {
    const now = this.#now();
    if (presented === undefined || now >= this.#brakeUntil) return undefined;
    const tag = this.#tag(presented);
    const known = this.#known.get(tag);
    if (known !== undefined && known > now) return undefined;
    return {
      retryAfterS: seconds(this.#brakeUntil - now),
      message: `Too many wrong API keys reached this service; new keys are not checked for the next ${seconds(this.#brakeUntil - now)} seconds. Keys already in use keep working.`,
    };
  }

  /** A key that was looked up and is unknown, revoked or expired: past the threshold, the brake goes on. */
  keyRejected(presented: string): void {
    this.#known.delete(this.#tag(presented));
    if (this.#badKeys.take('all') === undefined) return;
    this.#brakeUntil = this.#now() + this.settings.badKeys.brakeMs;
    this.#badKeys.add('all', -this.settings.badKeys.limit); // the next window starts after the brake
  }

  keyAccepted(presented: string): void {
    const tag = this.#tag(presented);
    this.#known.delete(tag); // re-inserted at the end: the map stays in order of last use
    if (this.#known.size >= KNOWN_KEYS_MAX) this.#known.delete(this.#known.keys().next().value!);
    this.#known.set(tag, this.#now() + KNOWN_KEY_LIFE);
  }

  /** Whether the brake on wrong keys is on now. */
  braking(): boolean {
    return this.#now() < this.#brakeUntil;
  }

  /** One authenticated request. */
  async request(accountId: string): Promise<Refusal | undefined> {
    const wait = await this.#counters.take(`requests:${accountId}`, 1, this.settings.requestsPerMinute, MINUTE, this.#now());
    return wait === undefined ? undefined : this.#refuse(wait, `This account made more than ${this.settings.requestsPerMinute} requests in a minute`);
  }

  /** A job start; give it back with refundJob() if the start was refused. */
  async startJob(accountId: string): Promise<Refusal | undefined> {
    const wait = await this.#counters.take(`jobs:${accountId}`, 1, this.settings.jobsPerHour, HOUR, this.#now());
    return wait === undefined ? undefined : this.#refuse(wait, `This account started ${this.settings.jobsPerHour} jobs within the hour, the most it may`);
  }

  async refundJob(accountId: string): Promise<void> {
    await this.#counters.add(`jobs:${accountId}`, -1, HOUR, this.#now());
  }

  /**
   * An upload request (a body of `declared` bytes, 0 if unknown) begins: one more at once, and
   * the declared bytes against the hour's allowance. endUpload() must follow unless refused.
   */
  async startUpload(accountId: string, declared: number): Promise<Refusal | undefined> {
    const busy = this.#uploading.get(accountId) ?? 0;
    if (busy >= this.settings.maxUploadsPerAccount) {
      return {
        retryAfterS: BUSY_RETRY_S,
        message: `This account already has ${busy} uploads under way, the most it may have at once; send this one when another has finished.`,
      };
    }
    const limit = this.settings.uploadBytesPerHour;
    const key = `bytes:${accountId}`;
    const now = this.#now();
    let wait: number | undefined;
    if (declared > 0) wait = await this.#counters.take(key, declared, limit, HOUR, now);
    else {
      const u = await this.#counters.used(key, HOUR, now);
      wait = u.used >= limit ? u.msLeft : undefined;
    }
    if (wait !== undefined) {
      const left = Math.max(0, limit - (await this.#counters.used(key, HOUR, now)).used);
      return this.#refuse(wait, `This account may upload ${limit} bytes an hour; ${left} are left in this hour and this request carries ${declared || 'more'}`);
    }
    // counted again now: another request of the account may have started while this one waited
    this.#uploading.set(accountId, (this.#uploading.get(accountId) ?? 0) + 1);
    return undefined;
  }

  /** The upload request ended, with `received` body bytes (what arrived, not what was declared). */
  async endUpload(accountId: string, declared: number, received: number): Promise<void> {
    await this.#counters.add(`bytes:${accountId}`, received - declared, HOUR, this.#now()).catch(() => {});
    const busy = (this.#uploading.get(accountId) ?? 1) - 1;
    if (busy > 0) this.#uploading.set(accountId, busy);
    else this.#uploading.delete(accountId);
  }

  #refuse(waitMs: number, what: string): Refusal {
    const s = seconds(waitMs);
    return { retryAfterS: s, message: `${what}; try again in ${s} seconds.` };
  }

  #tag(presented: string): string {
    return createHmac('sha256', this.#tagKey).update(presented).digest('base64url');
  }
}
