// The single-use links sent by mail (verify an address, reset a password, sign in): a random
// token in the link, only its HMAC in the database; a link is for one purpose, works once and
// expires. Spending one that does not work counts against the visitor (web-brakes.ts).
import { createHmac, randomBytes } from 'node:crypto';
import { AppError } from './errors.ts';
import type { Mailer, MailMessage } from './mail.ts';
import type { Account, MailTokenPurpose, MailTokenRepository, MailTokenRow } from './ports.ts';
import type { Visitor, WebBrakes } from './web-brakes.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const LINK_INVALID = 'This link is not valid: it was used, it expired, or it was cut short.';

export class MailTokens {
  readonly #rows: MailTokenRepository;
  readonly #brakes: WebBrakes;
  readonly #key: Buffer;

  constructor(rows: MailTokenRepository, brakes: WebBrakes, key: Buffer) {
    this.#rows = rows;
    this.#brakes = brakes;
    this.#key = key;
  }

  async issue(account: Account, purpose: MailTokenPurpose, lifeMs: number, now = Date.now()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.#rows.insert({ digest: this.#digest(token), accountId: account.id, purpose, createdAt: now, expiresAt: now + lifeMs, usedAt: null });
    return token;
  }

  /** The link's row while it can still be used (a page asks before it is spent); undefined otherwise. */
  async usable(token: unknown, purpose: MailTokenPurpose, now = Date.now()): Promise<MailTokenRow | undefined> {
    const row = typeof token === 'string' && TOKEN.test(token) ? await this.#rows.byDigest(this.#digest(token)) : undefined;
    return row && row.purpose === purpose && row.usedAt === null && row.expiresAt > now ? row : undefined;
  }

  /** Spends the link: its row, or a 410 (counted against the visitor) when it does not work. */
  async spend(token: unknown, purpose: MailTokenPurpose, visitor: Visitor, invalid = LINK_INVALID, now = Date.now()): Promise<MailTokenRow> {
    await this.#brakes.beforeLink(visitor);
    const row = await this.usable(token, purpose, now);
    if (!row || !(await this.#rows.use(row.digest, now))) {
      await this.#brakes.linkFailed(visitor);
      throw new AppError('link_invalid', invalid);
    }
    return row;
  }

  /** Voids the account's other links of this purpose (a newer sign-up or reset replaces them). */
  voidAll(accountId: string, purpose: MailTokenPurpose): Promise<number> {
    return this.#rows.deleteForAccount(accountId, purpose);
  }

  sweep(now = Date.now()): Promise<number> {
    return this.#rows.deleteExpired(now);
  }

  #digest(token: string): Buffer {
    return createHmac('sha256', this.#key).update(token).digest();
  }
}

/** Sends a mail; the relay's error names the address and the relay, so neither is shown or logged. */
export async function sendMail(mailer: Mailer, message: MailMessage): Promise<void> {
  try {
    await mailer.send(message);
  } catch {
    throw new AppError('mail_failed');
  }
}
