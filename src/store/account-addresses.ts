// An account's e-mail address is never stored as text. Its row keeps an HMAC of the address
// (what a look-up and the one-account-per-address rule use) and the address sealed to the row
// (what mail is sent to and the pages show). Both keys come from the master key, each for this
// one purpose: without it, the rows say neither who has an account nor whether a given
// address has one.
import { createHmac } from 'node:crypto';
import type { MasterKey } from './master-key.ts';
import { Sealer } from './sealer.ts';

/**
 * The form an address is looked up by: trimmed, lower-cased. Addresses are ASCII (the domain's
 * zod check), so this is the case-insensitive match SQLite's NOCASE and lower() gave before.
 */
export const lookupForm = (email: string): string => email.trim().toLowerCase();

export class AccountAddresses {
  readonly #lookupKey: Buffer;
  readonly #sealer: Sealer;

  constructor(masterKey: MasterKey) {
    this.#lookupKey = masterKey.derive('account-email-lookup');
    this.#sealer = new Sealer(masterKey.derive('row-sealer'));
  }

  /** HMAC-SHA256 of the address's look-up form: the same for every spelling of one address. */
  lookup(email: string): Buffer {
    return createHmac('sha256', this.#lookupKey).update(lookupForm(email), 'utf8').digest();
  }

  /** The address as given, sealed to its account (a sealed address moved to another row does not open). */
  seal(accountId: string, email: string): Buffer {
    return this.#sealer.seal(context(accountId), email);
  }

  open(accountId: string, sealed: Buffer): string {
    return this.#sealer.open<string>(context(accountId), sealed);
  }
}

const context = (accountId: string) => `account-email:${accountId}`;
