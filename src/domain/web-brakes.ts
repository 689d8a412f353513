// Brakes on the doors people use (sign-in, sign-up, mailed links), built so that they cost an
// attacker more than the person attacked:
// - per visitor (a Tor circuit, an I2P destination, a clearnet client): the one who fails is the
//   one who waits;
// - per address, only where nothing else can hold: wrong passwords for one address (guessing
//   spread over many circuits) brake that address's password, never its API keys or a mailed
//   sign-in link; and the mails one address gets an hour;
// - for everyone together only a slow-down past a high threshold, never a refusal.
// Counted on the engine's shared counters (so many instances brake as one), keyed by HMACs of the
// address and of the visitor under a key derived from the master key: neither is held in the clear.
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSettings } from '../config.ts';
import type { LimitName, Metrics } from '../metrics.ts';
import { AppError } from './errors.ts';
import type { RateCounters } from './ports.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** 429 with the seconds to wait (the HTTP layer sends them as Retry-After). */
export function rateLimited(waitMs: number, what: string): AppError {
  const s = seconds(waitMs);
  return new AppError('rate_limited', `${what}; try again in ${s} seconds.`, { retry_after: s });
}

/** A refusal of the account limits (rate-limits.ts) as the same 429. */
export function refusalError(r: { retryAfterS: number; message: string }): AppError {
  return new AppError('rate_limited', r.message, { retry_after: r.retryAfterS });
}

/** Who is at the door: an opaque name for the visitor (http/visitor-id.ts), never shown or logged. */
export type Visitor = string;

/**
 * The name of every visitor the service cannot tell apart on a network (a clearnet proxy that
 * names no client, an onion connection without its circuit, I2P without its destination). Their
 * brakes only slow down: a refusal would fall on everyone behind the same name.
 */
export const sharedVisitor = (network: string): Visitor => `shared:${network}`;
const isShared = (v: Visitor) => v.startsWith('shared:');

export const OTHER_WAYS_IN = 'Sign in with one of your API keys, or have a sign-in link mailed to you';

export class WebBrakes {
  readonly #settings: WebSettings;
  readonly #counters: RateCounters;
  readonly #tagKey: Buffer;
  readonly #now: () => number;
  readonly #metrics: Metrics | undefined;

  /** `tagKey` is the same on every instance, so an address is counted once for all of them. */
  constructor(settings: WebSettings, counters: RateCounters, tagKey: Buffer, opts: { now?: () => number; metrics?: Metrics } = {}) {
    const now = opts.now ?? Date.now;
    this.#metrics = opts.metrics;
    this.#settings = settings;
    this.#counters = counters;
    this.#tagKey = tagKey;
    this.#now = now;
  }

  /** Before a password is checked: refused once this visitor, or this address's password, failed too often. */
  async beforeSignIn(visitor: Visitor, address: string): Promise<void> {
    const s = this.#settings;
    const mins = Math.round(s.signInWindowMs / MINUTE);
    const own = await this.#full(this.#visitorKey('sign-in', visitor), s.signInFailuresPerVisitor, s.signInWindowMs);
    if (own !== undefined) await this.#refuseOrSlow('web_sign_in', visitor, rateLimited(own, `${s.signInFailuresPerVisitor} sign-ins from here failed within ${mins} minutes`));
    const addr = await this.#full(this.#addressKey('sign-in', address), s.signInFailures, s.signInWindowMs);
    if (addr !== undefined) throw this.#refused('web_sign_in', rateLimited(addr, `${s.signInFailures} password sign-ins for this address failed within ${mins} minutes, so its password is not checked for now. ${OTHER_WAYS_IN}`));
    await this.#slowPast('web:sign-in', s.signInFailuresTotal, s.signInWindowMs);
  }

  async signInFailed(visitor: Visitor, address: string): Promise<void> {
    const now = this.#now();
    const w = this.#settings.signInWindowMs;
    await this.#counters.add(this.#visitorKey('sign-in', visitor), 1, w, now);
    await this.#counters.add(this.#addressKey('sign-in', address), 1, w, now);
    await this.#counters.add('web:sign-in', 1, w, now);
  }

  /** A sign-up (counted whether or not the address was taken: the answer must not tell). */
  async signUp(visitor: Visitor): Promise<void> {
    const s = this.#settings;
    const wait = await this.#counters.take(this.#visitorKey('sign-up', visitor), 1, s.signUpsPerVisitor, HOUR, this.#now());
    if (wait !== undefined) await this.#refuseOrSlow('web_sign_up', visitor, rateLimited(wait, `${s.signUpsPerVisitor} sign-ups an hour are taken from one visitor`));
    await this.#countAndSlow('web:sign-up', s.signUpsPerHour, HOUR);
  }

  /** A request for a mailed link (password reset, sign-in), whether or not the address has an account. */
  async mailRequest(visitor: Visitor): Promise<void> {
    const s = this.#settings;
    const wait = await this.#counters.take(this.#visitorKey('mail-request', visitor), 1, s.mailRequestsPerVisitor, HOUR, this.#now());
    if (wait !== undefined) await this.#refuseOrSlow('web_mail_requests', visitor, rateLimited(wait, `${s.mailRequestsPerVisitor} mailed links an hour are sent for one visitor`));
    await this.#countAndSlow('web:sign-up', s.signUpsPerHour, HOUR);
  }

  /** One more mail to this address. */
  async mail(address: string): Promise<void> {
    const wait = await this.#counters.take(this.#addressKey('mail', address), 1, this.#settings.mailsPerAddress, HOUR, this.#now());
    if (wait !== undefined) throw this.#refused('web_mail_requests', rateLimited(wait, `This address was sent ${this.#settings.mailsPerAddress} mails within the hour, the most it gets`));
  }

  /**
   * Whether a reset or sign-in link may be mailed to this address now: one per link life. Asked
   * only after the answer, for an address with an account, and never refused to the asker, so
   * that a stranger's requests cannot use up the owner's mail (the owner has the link they made
   * arrive) nor fill the mailbox.
   */
  async linkMail(purpose: 'reset' | 'sign-in', address: string, lifeMs: number): Promise<boolean> {
    return (await this.#counters.take(this.#addressKey(`mail:${purpose}`, address), 1, 1, lifeMs, this.#now())) === undefined;
  }

  /** Before a mailed link is spent: refused once this visitor tried too many that did not work. */
  async beforeLink(visitor: Visitor): Promise<void> {
    const s = this.#settings;
    const wait = await this.#full(this.#visitorKey('link', visitor), s.verifyAttemptsPerMinute, MINUTE);
    if (wait !== undefined) await this.#refuseOrSlow('web_links', visitor, rateLimited(wait, 'Too many links that do not work were tried from here'));
    await this.#slowPast('web:link', s.verifyAttemptsTotal, MINUTE);
  }

  /** A mailed link that was unknown, used or expired. */
  async linkFailed(visitor: Visitor): Promise<void> {
    const now = this.#now();
    await this.#counters.add(this.#visitorKey('link', visitor), 1, MINUTE, now);
    await this.#counters.add('web:link', 1, MINUTE, now);
  }

  /** A visitor's brake: the refusal for one the service can tell apart, a wait for a shared name. */
  async #refuseOrSlow(limit: LimitName, visitor: Visitor, refusal: AppError): Promise<void> {
    if (!isShared(visitor)) throw this.#refused(limit, refusal);
    this.#metrics?.refused(limit);
    if (this.#settings.slowdownMs > 0) await sleep(this.#settings.slowdownMs);
  }

  #refused(limit: LimitName, refusal: AppError): AppError {
    this.#metrics?.refused(limit);
    return refusal;
  }

  /** Counts one for everyone, and waits a little once the window holds more than `threshold`. */
  async #countAndSlow(key: string, threshold: number, windowMs: number): Promise<void> {
    await this.#counters.add(key, 1, windowMs, this.#now());
    await this.#slowPast(key, threshold, windowMs);
  }

  async #slowPast(key: string, threshold: number, windowMs: number): Promise<void> {
    const u = await this.#counters.used(key, windowMs, this.#now());
    if (u.used >= threshold && this.#settings.slowdownMs > 0) await sleep(this.#settings.slowdownMs);
  }

  /** Ms until the key's window ends when it is used up; failures are counted after the fact. */
  async #full(key: string, limit: number, windowMs: number): Promise<number | undefined> {
    const u = await this.#counters.used(key, windowMs, this.#now());
    return u.used >= limit ? Math.max(1, u.msLeft) : undefined;
  }

  #addressKey(door: string, address: string): string {
    return `web:${door}:${this.#tag(`address:${address.trim().toLowerCase()}`)}`;
  }

  #visitorKey(door: string, visitor: Visitor): string {
    return `web:${door}:v:${this.#tag(`visitor:${visitor}`)}`;
  }

  #tag(value: string): string {
    return createHmac('sha256', this.#tagKey).update(value).digest('base64url');
  }
}
