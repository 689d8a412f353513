// Brakes on the doors people use: sign-in failures per address and for all addresses, sign-ups
// an hour, mails per address, and unknown verification links. In memory only, keyed by an HMAC
// of the address under a key of this process: no address is held in the clear here.
import { createHmac, randomBytes } from 'node:crypto';
import type { WebSettings } from '../config.ts';
import { AppError } from './errors.ts';
import { WindowCounter } from './window-counter.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
/** Ms until the key's window ends when it is used up; failures are counted after the fact. */
const full = (c: WindowCounter, key: string) => (c.used(key) >= c.limit ? c.msLeft(key) : undefined);

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
  readonly #tagKey = randomBytes(32);
  readonly #failures: WindowCounter;
  readonly #allFailures: WindowCounter;
  readonly #signUps: WindowCounter;
  readonly #mails: WindowCounter;
  readonly #verifies: WindowCounter;

  constructor(settings: WebSettings, now: () => number = Date.now) {
    this.#settings = settings;
    this.#failures = new WindowCounter({ limit: settings.signInFailures, windowMs: settings.signInWindowMs, now });
    this.#allFailures = new WindowCounter({ limit: settings.signInFailuresTotal, windowMs: settings.signInWindowMs, maxKeys: 1, now });
    this.#signUps = new WindowCounter({ limit: settings.signUpsPerHour, windowMs: HOUR, maxKeys: 1, now });
    this.#mails = new WindowCounter({ limit: settings.mailsPerAddress, windowMs: HOUR, now });
    this.#verifies = new WindowCounter({ limit: settings.verifyAttemptsPerMinute, windowMs: MINUTE, maxKeys: 1, now });
  }

  /** Before a sign-in is checked: refused once the address (or everyone) failed too often. */
  beforeSignIn(address: string): void {
    const s = this.#settings;
    const own = full(this.#failures, this.#tag(address));
    if (own !== undefined) throw rateLimited(own, `${s.signInFailures} sign-ins for this address failed within ${Math.round(s.signInWindowMs / MINUTE)} minutes`);
    const all = full(this.#allFailures, 'all');
    if (all !== undefined) throw rateLimited(all, 'Too many sign-ins failed on this service');
  }

  signInFailed(address: string): void {
    this.#failures.add(this.#tag(address), 1);
    this.#allFailures.add('all', 1);
  }

  /** A new account (counted whether or not the address was taken: the answer must not tell). */
  signUp(): void {
    const wait = this.#signUps.take('all');
    if (wait !== undefined) throw rateLimited(wait, `This service takes ${this.#settings.signUpsPerHour} sign-ups an hour`);
  }

  /** One more mail to this address. */
  mail(address: string): void {
    const wait = this.#mails.take(this.#tag(address));
    if (wait !== undefined) throw rateLimited(wait, `This address was sent ${this.#settings.mailsPerAddress} mails within the hour, the most it gets`);
  }

  /** A verification link that was unknown, used or expired. */
  beforeVerify(): void {
    const wait = full(this.#verifies, 'all');
    if (wait !== undefined) throw rateLimited(wait, 'Too many verification links were tried');
  }

  verifyFailed(): void {
    this.#verifies.add('all', 1);
  }

  #tag(address: string): string {
    return createHmac('sha256', this.#tagKey).update(address.trim().toLowerCase()).digest('base64url');
  }
}
