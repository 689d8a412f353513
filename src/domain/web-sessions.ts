// Signed-in web sessions. The browser holds a random token in an HttpOnly cookie; the database
// holds only its HMAC, so a copy of the database signs no one in. A session ends after
// inactivity or at an absolute limit, whichever comes first, and at sign-out.
// Every form carries a CSRF token derived from the cookie's token (an HMAC under another key):
// it cannot be made without the cookie, and one session's token is worthless in another's.
// Visitors who are not signed in get a token too (for the sign-in and sign-up forms); it is
// just as random but maps to no row.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account, AccountRepository, WebSessionRepository, WebSessionRow } from './ports.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type SignedInBy = { network: WebSessionRow['network'] } & ({ method: 'password' | 'link' } | { method: 'key'; keyId: string });

export interface WebSessionListing {
  /** The row's digest, base64url: names the session on the page without being its token. */
  id: string;
  openedAt: number;
  seenAt: number;
  network: WebSessionRow['network'];
  method: WebSessionRow['method'];
  current: boolean;
}

export interface WebSessionLimits {
  sessionIdleMs: number;
  sessionMaxMs: number;
}

export class WebSessions {
  readonly #rows: WebSessionRepository;
  readonly #accounts: AccountRepository;
  readonly #digestKey: Buffer;
  readonly #csrfKey: Buffer;
  readonly #limits: WebSessionLimits;

  constructor(opts: { rows: WebSessionRepository; accounts: AccountRepository; digestKey: Buffer; csrfKey: Buffer; limits: WebSessionLimits }) {
    this.#rows = opts.rows;
    this.#accounts = opts.accounts;
    this.#digestKey = opts.digestKey;
    this.#csrfKey = opts.csrfKey;
    this.#limits = opts.limits;
  }

  /** A token for a visitor who is not signed in. */
  anonymous(): string {
    return randomBytes(32).toString('base64url');
  }

  /**
   * Signs the account in under a new token (never the one the browser had: no fixation),
   * noting the network and how (a key's id, so that revoking the key ends the session).
   */
  async open(account: Account, how: SignedInBy, now = Date.now()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.#rows.insert({
      digest: this.#digest(token),
      accountId: account.id,
      createdAt: now,
      seenAt: now,
      expiresAt: this.#expiry(now, now),
      network: how.network,
      method: how.method,
      keyId: how.method === 'key' ? how.keyId : null,
    });
    return token;
  }

  /** The account's sessions as its page lists them; `current` marks the one asking. */
  async list(accountId: string, currentToken: string | undefined, now = Date.now()): Promise<WebSessionListing[]> {
    const current = currentToken && TOKEN.test(currentToken) ? this.#digest(currentToken) : undefined;
    return (await this.#rows.listForAccount(accountId))
      .filter((r) => r.expiresAt > now)
      .map((r) => ({
        id: r.digest.toString('base64url'),
        openedAt: r.createdAt,
        seenAt: r.seenAt,
        network: r.network,
        method: r.method,
        current: !!current && current.equals(r.digest),
      }));
  }

  /** Ends one of the account's sessions by its listed id; false when it has no such session. */
  async end(accountId: string, id: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return false;
    const digest = Buffer.from(id, 'base64url');
    const row = await this.#rows.byDigest(digest);
    if (!row || row.accountId !== accountId) return false;
    await this.#rows.delete(digest);
    return true;
  }

  /** Ends every session of the account but the one of `token`. */
  endOthers(accountId: string, token: string): Promise<number> {
    return this.#rows.deleteForAccount(accountId, this.#digest(token));
  }

  /** The signed-in account of a token, moving the inactivity limit on; undefined when none. */
  async resolve(token: string | undefined, now = Date.now()): Promise<Account | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const digest = this.#digest(token);
    const row = await this.#rows.byDigest(digest);
    if (!row) return undefined;
    const account = await this.#accounts.byId(row.accountId);
    if (row.expiresAt <= now || !account || account.deactivatedAt !== null) {
      await this.#rows.delete(digest);
      return undefined;
    }
    await this.#rows.touch(digest, now, this.#expiry(row.createdAt, now));
    return account;
  }

  async close(token: string | undefined): Promise<void> {
    if (token && TOKEN.test(token)) await this.#rows.delete(this.#digest(token));
  }

  /** Ends every web session of the account (its password changed, it was deactivated). */
  closeAll(accountId: string): Promise<number> {
    return this.#rows.deleteForAccount(accountId);
  }

  csrf(token: string): string {
    return createHmac('sha256', this.#csrfKey).update(token).digest('base64url');
  }

  csrfValid(token: string | undefined, presented: unknown): boolean {
    if (!token || !TOKEN.test(token) || typeof presented !== 'string' || presented.length !== 43) return false;
    return timingSafeEqual(Buffer.from(this.csrf(token)), Buffer.from(presented));
  }

  sweep(now = Date.now()): Promise<number> {
    return this.#rows.deleteExpired(now);
  }

  #expiry(createdAt: number, now: number): number {
    return Math.min(now + this.#limits.sessionIdleMs, createdAt + this.#limits.sessionMaxMs);
  }

  #digest(token: string): Buffer {
    return createHmac('sha256', this.#digestKey).update(token).digest();
  }
}
