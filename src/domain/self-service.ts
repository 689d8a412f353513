// What people do for themselves on the web pages: sign up with an e-mail address and a
// password, verify the address through a single-use link sent by mail, sign in. The answers
// never tell whether an address has an account: a sign-up for a taken address looks the same
// (its owner gets a mail saying so), and a sign-in fails with one message either way, in the
// same time (an unknown address is checked against a hash no password matches).
import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Account, AccountRepository, MailTokenRepository } from './ports.ts';
import type { Accounts } from './accounts.ts';
import { AppError } from './errors.ts';
import { alreadyRegisteredMail, verificationMail, type Mailer, type MailMessage } from './mail.ts';
import { checkedPassword, hashPassword, NO_ACCOUNT_HASH, PASSWORD_MAX, verifyPassword } from './passwords.ts';
import type { WebBrakes } from './web-brakes.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const address = z.email().max(254);

/** Where the links in a mail point: built by the HTTP layer for the network the request came in on. */
export interface MailLinks {
  verify(token: string): string;
  signIn: string;
}

const SIGN_IN_FAILED = 'The e-mail address or the password is wrong.';

export class SelfService {
  readonly #accounts: Accounts;
  readonly #repo: AccountRepository;
  readonly #tokens: MailTokenRepository;
  readonly #mailer: Mailer | undefined;
  readonly #brakes: WebBrakes;
  readonly #tokenKey: Buffer;
  readonly #linkLifeMs: number;

  constructor(opts: { accounts: Accounts; repo: AccountRepository; tokens: MailTokenRepository; mailer?: Mailer; brakes: WebBrakes; tokenKey: Buffer; linkLifeMs: number }) {
    this.#accounts = opts.accounts;
    this.#repo = opts.repo;
    this.#tokens = opts.tokens;
    this.#mailer = opts.mailer;
    this.#brakes = opts.brakes;
    this.#tokenKey = opts.tokenKey;
    this.#linkLifeMs = opts.linkLifeMs;
  }

  /** Sign-up needs mail: without a relay, accounts come from the command line only. */
  get signUpOpen(): boolean {
    return this.#mailer !== undefined;
  }

  async signUp(input: { email: unknown; password: unknown; passwordAgain: unknown }, links: MailLinks): Promise<{ email: string }> {
    const mailer = this.#mailer;
    if (!mailer) {
      throw new AppError('forbidden', 'sign_up_closed', 'Sign-up is closed on this service: it sends no mail, and an address must be verified. The operator adds accounts with the command line.');
    }
    const email = checkedAddress(input.email);
    const password = checkedPassword(input.password, [email]);
    if (input.passwordAgain !== password) throw new AppError('invalid', 'passwords_differ', 'The two passwords differ; type the same password twice.');
    await this.#brakes.signUp();
    await this.#brakes.mail(email);
    const hash = await hashPassword(password); // hashed for a taken address too: both answers take as long
    const existing = await this.#repo.byEmail(email);
    if (existing) {
      await this.#send(mailer, alreadyRegisteredMail(existing.email, links.signIn));
      return { email };
    }
    const account = await this.#accounts.create(email);
    await this.#repo.setPasswordHash(account.id, hash);
    await this.#send(mailer, verificationMail(account.email, links.verify(await this.#issue(account)), this.#linkLifeMs));
    return { email: account.email };
  }

  /** The account of an e-mail address and password; one message for every failure. */
  async signIn(input: { email: unknown; password: unknown }): Promise<Account> {
    const email = typeof input.email === 'string' ? input.email.trim().slice(0, 254) : '';
    const password = typeof input.password === 'string' ? input.password : '';
    if (!email || !password) throw new AppError('invalid', 'missing_credentials', 'Enter your e-mail address and your password.');
    await this.#brakes.beforeSignIn(email);
    const account = await this.#repo.byEmail(email);
    const hash = account && (await this.#repo.passwordHash(account.id));
    const ok = password.length <= PASSWORD_MAX && (await verifyPassword(password, hash ?? NO_ACCOUNT_HASH));
    if (!ok || !account || !hash) {
      await this.#brakes.signInFailed(email);
      throw new AppError('unauthorized', 'sign_in_failed', SIGN_IN_FAILED);
    }
    if (account.deactivatedAt !== null) throw new AppError('unauthorized', 'account_inactive', 'This account has been deactivated by the operator.');
    return account;
  }

  /** Sends a new verification link (the old ones keep working until they expire). */
  async resendVerification(account: Account, links: MailLinks): Promise<void> {
    const mailer = this.#mailer;
    if (!mailer) throw new AppError('forbidden', 'mail_off', 'This service sends no mail; ask the operator to verify your address.');
    if (account.verifiedAt !== null) throw new AppError('conflict', 'already_verified', 'Your address is already verified.');
    await this.#brakes.mail(account.email);
    await this.#send(mailer, verificationMail(account.email, links.verify(await this.#issue(account)), this.#linkLifeMs));
  }

  /** Whether a link's token can still be used (the page asks before it is spent). */
  async linkUsable(token: unknown, now = Date.now()): Promise<boolean> {
    const row = typeof token === 'string' && TOKEN.test(token) ? await this.#tokens.byDigest(this.#digest(token)) : undefined;
    return !!row && row.usedAt === null && row.expiresAt > now;
  }

  /** Spends a verification link: its account's address is verified. */
  async verify(token: unknown, now = Date.now()): Promise<Account> {
    await this.#brakes.beforeVerify();
    const digest = typeof token === 'string' && TOKEN.test(token) ? this.#digest(token) : undefined;
    const row = digest && (await this.#tokens.byDigest(digest));
    if (!row || row.usedAt !== null || row.expiresAt <= now || !(await this.#tokens.use(row.digest, now))) {
      await this.#brakes.verifyFailed();
      throw new AppError('gone', 'link_invalid', 'This link is not valid: it was used, it expired, or it was cut short. Sign in and send a new one from your account page.');
    }
    const account = await this.#accounts.byId(row.accountId);
    if (!account) throw new AppError('gone', 'link_invalid', 'This link is not valid: its account is gone.');
    return this.#accounts.verify(account.email);
  }

  /** Sets (or replaces) the web password of an account (the command line's way). */
  async setPassword(account: Account, password: unknown): Promise<void> {
    await this.#repo.setPasswordHash(account.id, await hashPassword(checkedPassword(password, [account.email])));
  }

  sweep(now = Date.now()): Promise<number> {
    return this.#tokens.deleteExpired(now);
  }

  async #issue(account: Account): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await this.#tokens.insert({ digest: this.#digest(token), accountId: account.id, purpose: 'verify', createdAt: now, expiresAt: now + this.#linkLifeMs, usedAt: null });
    return token;
  }

  async #send(mailer: Mailer, message: MailMessage): Promise<void> {
    try {
      await mailer.send(message);
    } catch {
      // the relay's error names the address and the relay: neither is shown or logged
      throw new AppError('unavailable', 'mail_failed', 'The mail could not be sent just now; try again in a few minutes.');
    }
  }

  #digest(token: string): Buffer {
    return createHmac('sha256', this.#tokenKey).update(token).digest();
  }
}

function checkedAddress(raw: unknown): string {
  const r = address.safeParse(typeof raw === 'string' ? raw.trim() : raw);
  if (!r.success) throw new AppError('invalid', 'invalid_email', 'That is not an e-mail address.');
  return r.data;
}
