// How much one client may ask of the service: per account (requests a minute, job starts and
// uploaded bytes an hour, counted on the engine's shared counters so that the limits hold across
// instances; uploads at once, per instance), per anonymous visitor (a Tor circuit or an I2P
// destination, by an opaque tag, in memory: a circuit's number means something only to the tor
// that made it, and each instance has its own), and one brake on wrong keys, shared by every
// instance. Counter keys are account ids and HMACs of keys, never addresses; nothing here is logged.
import { createHmac } from 'node:crypto';
import type { AbuseLimits } from '../config.ts';
import type { LimitName, Metrics } from '../metrics.ts';
import type { RateCounters } from './ports.ts';
import { WindowCounter } from './window-counter.ts';

export interface Refusal {
  /** Seconds until asking again can succeed, for Retry-After. */
  retryAfterS: number;
  message: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// Keys that authenticated pass the brake; remembered (as an HMAC under a key every instance
// derives from the master key) for a day, in this process at most this many.
const KNOWN_KEYS_MAX = 10_000;
const KNOWN_KEY_LIFE = 24 * HOUR;
// How stale this instance's view of the brake may be: a brake another instance put on reaches it within this.
const BRAKE_READ_MS = 1000;
// An upload over the per-account cap waits on another to finish: no window to count down.
const BUSY_RETRY_S = 10;

/**
 * The one visitor every request that names none is counted as, per network: an onion
 * connection whose PROXY line says UNKNOWN, an I2P request without i2pd's destination header.
 * Neither comes from tor or i2pd as shipped; counted together, they cannot escape the limit.
 * (No opaque tag, 22 base64url characters, can be this.)
 */
export const UNNAMED_VISITOR = 'unnamed';

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class RateLimits {
  readonly settings: AbuseLimits;
  readonly #counters: RateCounters;
  readonly #visitors: WindowCounter;
  readonly #now: () => number;
  readonly #tagKey: Buffer;
  readonly #metrics: Metrics | undefined;
  /** Keys known to have authenticated (by tag), with when their shared mark was written. */
  readonly #known = new Map<string, number>();
  readonly #uploading = new Map<string, number>();
  /** The brake as last read from the shared counters. */
  #brake = { until: 0, readAt: Number.NEGATIVE_INFINITY };

  /** `tagKey` is the same on every instance, so that they share what they know of keys. */
  constructor(settings: AbuseLimits, counters: RateCounters, tagKey: Buffer, opts: { now?: () => number; metrics?: Metrics } = {}) {
    const now = opts.now ?? Date.now;
    this.settings = settings;
    this.#now = now;
    this.#metrics = opts.metrics;
    this.#counters = counters;
    this.#tagKey = tagKey;
    this.#visitors = new WindowCounter({ limit: settings.visitorPerMinute, windowMs: MINUTE, now });
  }

  /** One request from an anonymous visitor: a Tor circuit or an I2P destination, by its opaque tag. */
  visitor(kind: 'circuit' | 'destination', tag: string): Refusal | undefined {
    const wait = this.#visitors.take(`${kind}:${tag}`);
    if (wait === undefined) return undefined;
    const over =
      tag === UNNAMED_VISITOR
        ? kind === 'circuit'
          ? 'Tor connections whose PROXY line names no circuit, counted together'
          : 'I2P requests that name no destination, counted together'
        : kind === 'circuit'
          ? 'this Tor circuit'
          : 'this I2P destination';
    return this.#refuse('visitor_requests', wait, `More than ${this.settings.visitorPerMinute} requests a minute came over ${over}`);
  }

  /**
   * One MCP message that needs no key (initialize, tools/list, the discovery tools), counted per
   * clearnet client where the operator's proxy names it (OBSCURA_CLEARNET_CLIENT_HEADER), else
   * with every such message together (callers arriving through the proxy cannot be told apart),
   * so batches of them cannot go unbounded; past the limit, a caller with a working key goes on,
   * counted on its account (http/mcp/limits.ts).
   */
  keyless(client?: string): Refusal | undefined {
    const wait = this.#visitors.take(`mcp:${client ?? UNNAMED_VISITOR}`);
    if (wait === undefined) return undefined;
    const who = client === undefined ? 'came to this service, counted together (callers cannot be told apart)' : 'came from this client';
    return this.#refuse('mcp_keyless', wait, `More than ${this.settings.visitorPerMinute} MCP requests a minute needing no key ${who}; send a working X-Api-Key to be counted on your own account instead`);
  }

  /**
   * Before a key is looked up. While the brake is on, only keys that authenticated before (on
   * any instance) are looked up at all: a guess is answered 429 without being checked, so
   * guessing stops paying.
   */
  async keyCheck(presented: string | undefined): Promise<Refusal | undefined> {
    if (presented === undefined) return undefined;
    const now = this.#now();
    const until = await this.#brakeUntil(now);
    if (now >= until) return undefined;
    if (await this.#isKnown(this.#tag(presented), now)) return undefined;
    this.#metrics?.refused('wrong_keys');
    return {
      retryAfterS: seconds(until - now),
      message: `Too many wrong API keys reached this service; new keys are not checked for the next ${seconds(until - now)} seconds. Keys already in use keep working.`,
    };
  }

  /** A key that was looked up and is unknown, revoked or expired: past the threshold, the brake goes on for every instance. */
  async keyRejected(presented: string): Promise<void> {
    const tag = this.#tag(presented);
    const now = this.#now();
    if (this.#known.delete(tag)) await this.#counters.add(`known-key:${tag}`, -1, KNOWN_KEY_LIFE, now);
    const { limit, windowMs, brakeMs } = this.settings.badKeys;
    if ((await this.#counters.take('wrong-keys', 1, limit, windowMs, now)) === undefined) return;
    await this.#counters.add('wrong-keys:brake', 1, brakeMs, now);
    await this.#counters.add('wrong-keys', -limit, windowMs, now); // the next window starts after the brake
    this.#brake = { until: now + brakeMs, readAt: now };
  }

  async keyAccepted(presented: string): Promise<void> {
    const tag = this.#tag(presented);
    const now = this.#now();
    const written = this.#known.get(tag);
    this.#known.delete(tag); // re-inserted at the end: the map stays in order of last use
    if (this.#known.size >= KNOWN_KEYS_MAX) this.#known.delete(this.#known.keys().next().value!);
    if (written !== undefined && now - written < KNOWN_KEY_LIFE) {
      this.#known.set(tag, written);
      return;
    }
    // written once a day per key and instance, not per request
    await this.#counters.add(`known-key:${tag}`, 1, KNOWN_KEY_LIFE, now);
    this.#known.set(tag, now);
  }

  /** The brake's end, read from the shared counters at most once a BRAKE_READ_MS. */
  async #brakeUntil(now: number): Promise<number> {
    if (now - this.#brake.readAt < BRAKE_READ_MS) return this.#brake.until;
    const u = await this.#counters.used('wrong-keys:brake', this.settings.badKeys.brakeMs, now);
    this.#brake = { until: u.used > 0 ? now + u.msLeft : 0, readAt: now };
    return this.#brake.until;
  }

  async #isKnown(tag: string, now: number): Promise<boolean> {
    const written = this.#known.get(tag);
    if (written !== undefined && now - written < KNOWN_KEY_LIFE) return true;
    const u = await this.#counters.used(`known-key:${tag}`, KNOWN_KEY_LIFE, now);
    if (u.used <= 0) return false;
    this.#known.set(tag, now - (KNOWN_KEY_LIFE - u.msLeft)); // another instance wrote it then
    return true;
  }

  /** One authenticated request. */
  async request(accountId: string): Promise<Refusal | undefined> {
    const wait = await this.#counters.take(`requests:${accountId}`, 1, this.settings.requestsPerMinute, MINUTE, this.#now());
    return wait === undefined ? undefined : this.#refuse('account_requests', wait, `This account made more than ${this.settings.requestsPerMinute} requests in a minute`);
  }

  /** A job start; give it back with refundJob() if the start was refused. */
  async startJob(accountId: string): Promise<Refusal | undefined> {
    const wait = await this.#counters.take(`jobs:${accountId}`, 1, this.settings.jobsPerHour, HOUR, this.#now());
    return wait === undefined ? undefined : this.#refuse('account_jobs', wait, `This account started ${this.settings.jobsPerHour} jobs within the hour, the most it may`);
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
      this.#metrics?.refused('account_uploads_at_once');
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
      return this.#refuse('account_upload_bytes', wait, `This account may upload ${limit} bytes an hour; ${left} are left in this hour and this request carries ${declared || 'more'}`);
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

  #refuse(limit: LimitName, waitMs: number, what: string): Refusal {
    this.#metrics?.refused(limit);
    const s = seconds(waitMs);
    return { retryAfterS: s, message: `${what}; try again in ${s} seconds.` };
  }

  #tag(presented: string): string {
    return createHmac('sha256', this.#tagKey).update(presented).digest('base64url');
  }
}
