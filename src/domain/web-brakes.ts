// Brakes on the doors people use: sign-in failures per address and for all addresses, sign-ups
// an hour, mails per address, and unknown verification links. Counted on the engine's shared
// counters (so many instances brake as one), keyed by an HMAC of the address under a key derived
// from the master key: no address is held in the clear here.
import { createHmac } from 'node:crypto';
import type { WebSettings } from '../config.ts';
import { AppError } from './errors.ts';
import type { RateCounters } from './ports.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** 429 with the seconds to wait (the HTTP layer sends them as Retry-After). */
export function rateLimited(waitMs: number, what: string): AppError {
  const s = seconds(waitMs);
  return new AppError('rate_limited', 'rate_limited', `${what}; try again in ${s} seconds.`, { retry_after: s });
}

/** A refusal of the account limits (rate-limits.ts) as the same 429. */
export function refusalError(r: { retryAfterS: number; message: string }): AppError {
  return new AppError('rate_limited', 'rate_limited', r.message, { retry_after: r.retryAfterS });
}

export class WebBrakes {
  readonly #settings: WebSettings;
  readonly #counters: RateCounters;
  readonly #tagKey: Buffer;
  readonly #now: () => number;

  /** `tagKey` is the same on every instance, so an address is counted once for all of them. */
  constructor(settings: WebSettings, counters: RateCounters, tagKey: Buffer, now: () => number = Date.now) {
    this.#settings = settings;
    this.#counters = counters;
    this.#tagKey = tagKey;
    this.#now = now;
  }

  /** Before a sign-in is checked: refused once the address (or everyone) failed too often. */
  async beforeSignIn(address: string): Promise<void> {
    const s = this.#settings;
    const own = await this.#full(`web:sign-in:${this.#tag(address)}`, s.signInFailures, s.signInWindowMs);
    if (own !== undefined) throw rateLimited(own, `${s.signInFailures} sign-ins for this address failed within ${Math.round(s.signInWindowMs / MINUTE)} minutes`);
    const all = await this.#full('web:sign-in', s.signInFailuresTotal, s.signInWindowMs);
    if (all !== undefined) throw rateLimited(all, 'Too many sign-ins failed on this service');
  }

  async signInFailed(address: string): Promise<void> {
    const now = this.#now();
    await this.#counters.add(`web:sign-in:${this.#tag(address)}`, 1, this.#settings.signInWindowMs, now);
    await this.#counters.add('web:sign-in', 1, this.#settings.signInWindowMs, now);
  }

  /** A new account (counted whether or not the address was taken: the answer must not tell). */
  async signUp(): Promise<void> {
    const wait = await this.#counters.take('web:sign-up', 1, this.#settings.signUpsPerHour, HOUR, this.#now());
    if (wait !== undefined) throw rateLimited(wait, `This service takes ${this.#settings.signUpsPerHour} sign-ups an hour`);
  }

  /** One more mail to this address. */
  async mail(address: string): Promise<void> {
    const wait = await this.#counters.take(`web:mail:${this.#tag(address)}`, 1, this.#settings.mailsPerAddress, HOUR, this.#now());
    if (wait !== undefined) throw rateLimited(wait, `This address was sent ${this.#settings.mailsPerAddress} mails within the hour, the most it gets`);
  }

  /** A verification link that was unknown, used or expired. */
  async beforeVerify(): Promise<void> {
    const wait = await this.#full('web:verify', this.#settings.verifyAttemptsPerMinute, MINUTE);
    if (wait !== undefined) throw rateLimited(wait, 'Too many verification links were tried');
  }

  async verifyFailed(): Promise<void> {
    await this.#counters.add('web:verify', 1, MINUTE, this.#now());
  }

  /** Ms until the key's window ends when it is used up; failures are counted after the fact. */
  async #full(key: string, limit: number, windowMs: number): Promise<number | undefined> {
    const u = await this.#counters.used(key, windowMs, this.#now());
    return u.used >= limit ? Math.max(1, u.msLeft) : undefined;
  }

  #tag(address: string): string {
    return createHmac('sha256', this.#tagKey).update(address.trim().toLowerCase()).digest('base64url');
  }
}
