// What people do for themselves on the web pages: sign up with an e-mail address and a
// password, verify the address through a single-use link sent by mail (or refuse a sign-up they
// did not start), sign in. The answers never tell whether an address has an account: a sign-up
// for a taken address looks the same (its owner gets a mail saying so), and a sign-in fails with
// one message either way, in the same time (an unknown address is checked against a hash no
// password matches).
//
// An address nobody verified is not taken: a sign-up on it replaces the unverified account (the
// old one goes with its password, links and sessions; the new one gets a new link by mail),
// so whoever signed up first with someone else's address holds nothing once the owner signs up.
// Only the mailbox decides, and the mail says how to refuse a sign-up one did not start.
import { z } from 'zod';
import type { Account, AccountRepository } from './ports.ts';
import type { Accounts } from './accounts.ts';
import { AppError } from './errors.ts';
import type { Lang } from '../i18n/languages.ts';
import { alreadyRegisteredMail, verificationMail, type Mailer } from './mail.ts';
import { LINK_INVALID, sendMail, type MailTokens } from './mail-tokens.ts';
import { checkedPassword, hashPassword, NO_ACCOUNT_HASH, PASSWORD_MAX, verifyPassword } from './passwords.ts';
import type { Visitor, WebBrakes } from './web-brakes.ts';

const address = z.email().max(254);

/** Where the links in a mail point: built by the HTTP layer for the network the request came in on. */
export interface MailLinks {
  verify(token: string): string;
  refuse(token: string): string;
  reset(token: string): string;
  signInWith(token: string): string;
  signIn: string;
  forgot: string;
}

const SIGN_IN_FAILED = 'The e-mail address or the password is wrong.';

export class SelfService {
  readonly #accounts: Accounts;
  readonly #repo: AccountRepository;
  readonly #tokens: MailTokens;
  readonly #mailer: Mailer | undefined;
  readonly #brakes: WebBrakes;
  readonly #linkLifeMs: number;
  readonly #unverifiedLifeMs: number;

  constructor(opts: {
    accounts: Accounts;
    repo: AccountRepository;
    tokens: MailTokens;
    mailer?: Mailer;
    brakes: WebBrakes;
    linkLifeMs: number;
    unverifiedLifeMs: number;
  }) {
    this.#accounts = opts.accounts;
    this.#repo = opts.repo;
    this.#tokens = opts.tokens;
    this.#mailer = opts.mailer;
    this.#brakes = opts.brakes;
    this.#linkLifeMs = opts.linkLifeMs;
    this.#unverifiedLifeMs = opts.unverifiedLifeMs;
  }

  /** Sign-up needs mail: without a relay, accounts come from the command line only. */
  get signUpOpen(): boolean {
    return this.#mailer !== undefined;
  }

  async signUp(input: { email: unknown; password: unknown; passwordAgain: unknown }, links: MailLinks, visitor: Visitor, lang: Lang = 'en'): Promise<{ email: string }> {
    const mailer = this.#mailer;
    if (!mailer) {
      throw new AppError('sign_up_closed');
    }
    const email = checkedAddress(input.email);
    const password = checkedPassword(input.password, [email]);
    if (input.passwordAgain !== password) throw new AppError('passwords_differ');
    await this.#brakes.signUp(visitor);
    await this.#brakes.mail(email);
    const hash = await hashPassword(password); // hashed for a taken address too: both answers take as long
    let existing = await this.#repo.byEmail(email);
    // an unverified address is taken over by the newest sign-up: the old account goes with its
    // password, links and sessions, and the new one starts its own life
    if (existing && existing.verifiedAt === null && (await this.#repo.deleteUnverified(Number.MAX_SAFE_INTEGER, existing.id)) > 0) existing = undefined;
    if (existing) {
      await sendMail(mailer, alreadyRegisteredMail(existing.email, links, lang));
      return { email };
    }
    const account = await this.#accounts.create(email);
    await this.#repo.setPasswordHash(account.id, hash);
    await this.#sendVerification(mailer, account, links, lang);
    return { email: account.email };
  }

  /** The account of an e-mail address and password; one message for every failure. */
  async signIn(input: { email: unknown; password: unknown }, visitor: Visitor): Promise<Account> {
    const email = typeof input.email === 'string' ? input.email.trim().slice(0, 254) : '';
    const password = typeof input.password === 'string' ? input.password : '';
    if (!email || !password) throw new AppError('missing_credentials');
    await this.#brakes.beforeSignIn(visitor, email);
    const account = await this.#repo.byEmail(email);
    const hash = account && (await this.#repo.passwordHash(account.id));
    const ok = password.length <= PASSWORD_MAX && (await verifyPassword(password, hash ?? NO_ACCOUNT_HASH));
    if (!ok || !account || !hash) {
      await this.#brakes.signInFailed(visitor, email);
      throw new AppError('sign_in_failed', SIGN_IN_FAILED);
    }
    if (account.deactivatedAt !== null) throw new AppError('account_inactive', 'This account has been deactivated by the operator.');
    return account;
  }

  /** Sends a new verification link (the old ones keep working until they expire). */
  async resendVerification(account: Account, links: MailLinks, lang: Lang = 'en'): Promise<void> {
    const mailer = this.#mailer;
    if (!mailer) throw new AppError('mail_off', 'This service sends no mail; ask the operator to verify your address.');
    if (account.verifiedAt !== null) throw new AppError('already_verified', 'Your address is already verified.');
    await this.#brakes.mail(account.email);
    await this.#sendVerification(mailer, account, links, lang);
  }

  /** Whether a verification link can still be used (the page asks before it is spent). */
  async linkUsable(token: unknown, now = Date.now()): Promise<boolean> {
    return (await this.#tokens.usable(token, 'verify', now)) !== undefined;
  }

  /** Spends a verification link: its account's address is verified. */
  async verify(token: unknown, visitor: Visitor, now = Date.now()): Promise<Account> {
    const row = await this.#tokens.spend(token, 'verify', visitor, `${LINK_INVALID} Sign in and send a new one from your account page.`, now);
    const account = await this.#accounts.byId(row.accountId);
    if (!account) throw new AppError('link_invalid', 'This link is not valid: its account is gone.');
    return this.#accounts.verify(account.email);
  }

  /** Spends a verification link the other way: the sign-up is refused and its account deleted. */
  async refuse(token: unknown, visitor: Visitor, now = Date.now()): Promise<void> {
    const row = await this.#tokens.spend(token, 'verify', visitor, LINK_INVALID, now);
    if ((await this.#repo.deleteUnverified(Number.MAX_SAFE_INTEGER, row.accountId)) === 0 && (await this.#accounts.byId(row.accountId))) {
      throw new AppError('already_verified', 'This address was verified already, so the account stays. If you did not verify it, set a new password through "Forgot your password?": that signs everyone else out.');
    }
  }

  /** Sets (or replaces) the web password of an account (the command line's way). */
  async setPassword(account: Account, password: unknown): Promise<void> {
    await this.#repo.setPasswordHash(account.id, await hashPassword(checkedPassword(password, [account.email])));
  }

  /** Expired links go, and accounts whose address nobody verified in time. */
  async sweep(now = Date.now()): Promise<number> {
    const links = await this.#tokens.sweep(now);
    return links + (await this.#repo.deleteUnverified(now - this.#unverifiedLifeMs));
  }

  async #sendVerification(mailer: Mailer, account: Account, links: MailLinks, lang: Lang): Promise<void> {
    const token = await this.#tokens.issue(account, 'verify', this.#linkLifeMs);
    await sendMail(mailer, verificationMail(account.email, { verify: links.verify(token), refuse: links.refuse(token) }, this.#linkLifeMs, this.#unverifiedLifeMs, lang));
  }
}

export function checkedAddress(raw: unknown): string {
  const r = address.safeParse(typeof raw === 'string' ? raw.trim() : raw);
  if (!r.success) throw new AppError('invalid_email', 'That is not an e-mail address.');
  return r.data;
}
