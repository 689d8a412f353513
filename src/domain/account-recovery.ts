// Ways in that need only the mailbox: a password reset and a sign-in link, each a single-use
// link sent by mail. The request is answered the same whatever the address (has an account or
// not, verified or not): the lookup and the mail happen after the answer, so neither the words
// nor the time tell. A sign-in link is the way in for a person whose password is braked because
// someone else guessed at it (web-brakes.ts). An address gets at most one link of each kind per
// link life, however many ask: a stranger's requests neither fill the mailbox nor use up the
// owner's mails (the link they made is in the owner's mailbox).
import type { Account, AccountRepository, WebSessionRepository } from './ports.ts';
import type { Accounts } from './accounts.ts';
import { AppError } from './errors.ts';
import type { Lang } from '../i18n/languages.ts';
import { resetMail, signInLinkMail, type Mailer } from './mail.ts';
import { LINK_INVALID, sendMail, type MailTokens } from './mail-tokens.ts';
import { hashPassword } from './passwords.ts';
import { checkedPassword } from './passwords.ts';
import { checkedAddress, type MailLinks } from './self-service.ts';
import type { Visitor, WebBrakes } from './web-brakes.ts';

export class AccountRecovery {
  readonly #accounts: Accounts;
  readonly #repo: AccountRepository;
  readonly #tokens: MailTokens;
  readonly #sessions: WebSessionRepository;
  readonly #mailer: Mailer | undefined;
  readonly #brakes: WebBrakes;
  readonly #lives: { resetMs: number; signInMs: number };
  readonly #pending = new Set<Promise<void>>();

  constructor(opts: {
    accounts: Accounts;
    repo: AccountRepository;
    tokens: MailTokens;
    sessions: WebSessionRepository;
    mailer?: Mailer;
    brakes: WebBrakes;
    lives: { resetMs: number; signInMs: number };
  }) {
    this.#accounts = opts.accounts;
    this.#repo = opts.repo;
    this.#tokens = opts.tokens;
    this.#sessions = opts.sessions;
    this.#mailer = opts.mailer;
    this.#brakes = opts.brakes;
    this.#lives = opts.lives;
  }

  get open(): boolean {
    return this.#mailer !== undefined;
  }

  /** "Forgot your password?": a reset link goes to the address if it has an account. */
  async requestReset(email: unknown, links: MailLinks, visitor: Visitor, lang: Lang = 'en'): Promise<void> {
    await this.#request(email, visitor, async (mailer, account) => {
      if (account.deactivatedAt !== null || !(await this.#brakes.linkMail('reset', account.email, this.#lives.resetMs))) return;
      const token = await this.#tokens.issue(account, 'reset', this.#lives.resetMs);
      await sendMail(mailer, resetMail(account.email, links.reset(token), this.#lives.resetMs, lang));
    });
  }

  /** "Mail me a sign-in link": for an active account whose address is verified. */
  async requestSignInLink(email: unknown, links: MailLinks, visitor: Visitor, lang: Lang = 'en'): Promise<void> {
    await this.#request(email, visitor, async (mailer, account) => {
      // an unverified account may be someone else's claim on this address: no way in by mail
      if (account.deactivatedAt !== null || account.verifiedAt === null) return;
      if (!(await this.#brakes.linkMail('sign-in', account.email, this.#lives.signInMs))) return;
      const token = await this.#tokens.issue(account, 'sign-in', this.#lives.signInMs);
      await sendMail(mailer, signInLinkMail(account.email, links.signInWith(token), this.#lives.signInMs, lang));
    });
  }

  async linkUsable(token: unknown, purpose: 'reset' | 'sign-in'): Promise<boolean> {
    return (await this.#tokens.usable(token, purpose)) !== undefined;
  }

  /**
   * Spends a reset link: the new password replaces the old, every web session of the account
   * ends, and the address counts as verified (the link proved the mailbox). The caller signs
   * this browser in.
   */
  async reset(token: unknown, input: { password: unknown; passwordAgain: unknown }, visitor: Visitor): Promise<Account> {
    const password = checkedPassword(input.password); // before the link is spent: a weak password keeps it
    if (input.passwordAgain !== password) throw new AppError('passwords_differ');
    const hash = await hashPassword(password);
    const row = await this.#tokens.spend(token, 'reset', visitor, `${LINK_INVALID} Ask for a new one.`);
    let account = await this.#active(row.accountId);
    await this.#repo.setPasswordHash(account.id, hash);
    await this.#tokens.voidAll(account.id, 'reset');
    await this.#sessions.deleteForAccount(account.id);
    if (account.verifiedAt === null) {
      // whoever claimed the address before loses it with its password; its old links go too
      await this.#tokens.voidAll(account.id, 'verify');
      account = await this.#accounts.verify(account.email);
    }
    return account;
  }

  /** Spends a sign-in link: the account to sign in. */
  async signInWithLink(token: unknown, visitor: Visitor): Promise<Account> {
    const row = await this.#tokens.spend(token, 'sign-in', visitor, `${LINK_INVALID} Ask for a new one.`);
    return this.#active(row.accountId);
  }

  /** Resolves when the mails asked for so far have gone (or failed): for a clean stop. */
  async settled(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  async #request(email: unknown, visitor: Visitor, send: (mailer: Mailer, account: Account) => Promise<void>): Promise<void> {
    const mailer = this.#mailer;
    if (!mailer) throw new AppError('mail_off', 'This service sends no mail; ask the operator for help signing in.');
    const address = checkedAddress(email);
    await this.#brakes.mailRequest(visitor);
    // after the answer: the lookup, the link and the mail take the same time for no one
    const later = (async () => {
      const account = await this.#repo.byEmail(address);
      if (account) await send(mailer, account);
    })().catch(() => {
      // nothing to tell: the person sees the same answer either way and can ask again
    });
    const p = later.finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  async #active(id: string): Promise<Account> {
    const account = await this.#accounts.byId(id);
    if (!account) throw new AppError('link_invalid', 'This link is not valid: its account is gone.');
    if (account.deactivatedAt !== null) throw new AppError('account_inactive', 'This account has been deactivated by the operator.');
    return account;
  }
}
