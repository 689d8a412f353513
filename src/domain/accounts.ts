import { z } from 'zod';
import type { Account, AccountRepository } from '../store/repositories.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';

const email = z.email();

export class Accounts {
  readonly #repo: AccountRepository;

  constructor(repo: AccountRepository) {
    this.#repo = repo;
  }

  create(address: string, opts: { verified?: boolean } = {}): Account {
    const parsed = email.safeParse(address.trim());
    if (!parsed.success) throw new AppError('invalid', 'invalid_email', 'that is not an e-mail address');
    if (this.#repo.byEmail(parsed.data)) throw new AppError('conflict', 'account_exists', 'an account with that e-mail already exists');
    const now = Date.now();
    const account: Account = {
      id: newId('acct', 12),
      email: parsed.data,
      verifiedAt: opts.verified ? now : null,
      deactivatedAt: null,
      createdAt: now,
    };
    this.#repo.insert(account);
    return account;
  }

  get(address: string): Account {
    const a = this.#repo.byEmail(address.trim());
    if (!a) throw new AppError('not_found', 'account_not_found', 'no account with that e-mail');
    return a;
  }

  byId(id: string): Account | undefined {
    return this.#repo.byId(id);
  }

  verify(address: string): Account {
    const a = this.get(address);
    if (a.verifiedAt === null) this.#repo.update(a.id, { verifiedAt: Date.now() });
    return this.get(address);
  }

  deactivate(address: string): Account {
    const a = this.get(address);
    if (a.deactivatedAt === null) this.#repo.update(a.id, { deactivatedAt: Date.now() });
    return this.get(address);
  }

  reactivate(address: string): Account {
    const a = this.get(address);
    this.#repo.update(a.id, { deactivatedAt: null });
    return this.get(address);
  }
}
