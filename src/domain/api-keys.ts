// API keys: shown once, stored only as an HMAC under a server pepper, compared in constant
// time. New keys carry the current prefix; keys with a former prefix stay valid.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account, ApiKeyRepository, WebSessionRepository } from './ports.ts';
import type { Accounts } from './accounts.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';

const KEY_BODY = /^[A-Za-z0-9_-]{43,128}$/;

export interface KeyListing {
  id: string;
  shown: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export class ApiKeys {
  readonly #repo: ApiKeyRepository;
  readonly #accounts: Accounts;
  readonly #pepper: Buffer;
  readonly #current: string;
  readonly #prefixes: string[];
  readonly #webSessions: WebSessionRepository | undefined;

  constructor(opts: { repo: ApiKeyRepository; accounts: Accounts; pepper: Buffer; prefix: string; formerPrefixes: string[]; webSessions?: WebSessionRepository }) {
    this.#repo = opts.repo;
    this.#webSessions = opts.webSessions;
    this.#accounts = opts.accounts;
    this.#pepper = opts.pepper;
    this.#current = opts.prefix;
    // longest first, so a prefix that extends another is matched whole
    this.#prefixes = [opts.prefix, ...opts.formerPrefixes].sort((a, b) => b.length - a.length);
  }

  /** Creates a key for the account; the returned key is the only copy there will ever be. */
  async issue(email: string, opts: { expiresAt?: number; prefix?: string } = {}): Promise<{ id: string; key: string }> {
    const account = await this.#accounts.get(email);
    const prefix = opts.prefix ?? this.#current;
    const key = prefix + randomBytes(32).toString('base64url');
    const id = newId('key', 9);
    await this.#repo.insert({
      id,
      accountId: account.id,
      prefix,
      last4: key.slice(-4),
      digest: this.#digest(key),
      createdAt: Date.now(),
      expiresAt: opts.expiresAt ?? null,
      revokedAt: null,
    });
    return { id, key };
  }

  async list(email: string): Promise<KeyListing[]> {
    const account = await this.#accounts.get(email);
    return (await this.#repo.listForAccount(account.id)).map((k) => ({
      id: k.id,
      shown: `${k.prefix}…${k.last4}`,
      createdAt: k.createdAt,
      expiresAt: k.expiresAt,
      revokedAt: k.revokedAt,
    }));
  }

  /** Revokes the key and ends the web sessions it signed in: whoever held it is out everywhere. */
  async revoke(id: string): Promise<void> {
    if (!(await this.#repo.byId(id))) throw new AppError('key_not_found', 'no key with that id');
    await this.#repo.revoke(id, Date.now());
    await this.#webSessions?.deleteForKey(id);
  }

  /** The account a presented key belongs to, or an `unauthorized` error with one of the five codes. */
  async authenticate(presented: string | undefined, header = 'X-Api-Key'): Promise<Account> {
    return (await this.authenticateKey(presented, header)).account;
  }

  /** As authenticate(), with the key's id (a web session signed in with it remembers it). */
  async authenticateKey(presented: string | undefined, header = 'X-Api-Key'): Promise<{ account: Account; keyId: string }> {
    if (presented === undefined || presented === '') {
      throw new AppError('missing_api_key', `An API key is required: send it in the ${header} header.`);
    }
    const prefix = this.#prefixes.find((p) => presented.startsWith(p));
    if (!prefix || !KEY_BODY.test(presented.slice(prefix.length))) {
      throw new AppError('malformed_api_key');
    }
    const digest = this.#digest(presented);
    const row = await this.#repo.byDigest(digest);
    const now = Date.now();
    if (!row || !timingSafeEqual(row.digest, digest) || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) {
      throw new AppError('invalid_api_key');
    }
    const account = await this.#accounts.byId(row.accountId);
    if (!account) throw new AppError('invalid_api_key');
    if (account.deactivatedAt !== null) {
      throw new AppError('account_inactive', 'The account that owns this key cannot use the API.');
    }
    if (account.verifiedAt === null) {
      throw new AppError(
        'account_not_verified',
        'The account that owns this key has not verified its e-mail address. Verify it and this same key will work.',
      );
    }
    return { account, keyId: row.id };
  }

  #digest(key: string): Buffer {
    return createHmac('sha256', this.#pepper).update(key, 'utf8').digest();
  }
}
