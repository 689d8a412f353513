import { z } from 'zod';
import { DuplicateError, type Account, type AccountRepository } from './ports.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';

const email = z.email();

export class Accounts {
  readonly #repo: AccountRepository;

  constructor(repo: AccountRepository) {
    this.#repo = repo;
  }

  async create(address: string, opts: { verified?: boolean } = {}): Promise<Account> {
    const parsed = email.safeParse(address.trim());
    if (!parsed.success) throw new AppError('invalid_email', 'that is not an e-mail address');
    const taken = new AppError('account_exists');
    if (await this.#repo.byEmail(parsed.data)) throw taken;
    const now = Date.now();
    const account: Account = {
      id: newId('acct', 12),
      email: parsed.data,
      verifiedAt: opts.verified ? now : null,
      deactivatedAt: null,
      createdAt: now,
    };
    try {
      await this.#repo.insert(account);
    } catch (err) {
      if (err instanceof DuplicateError) throw taken; // two sign-ups of one address at once
      throw err;
    }
    return account;
  }

  async get(address: string): Promise<Account> {
    const a = await this.#repo.byEmail(address.trim());
    if (!a) throw new AppError('account_not_found');
    return a;
  }

  byId(id: string): Promise<Account | undefined> {
    return this.#repo.byId(id);
  }

  async verify(address: string): Promise<Account> {
    const a = await this.get(address);
    if (a.verifiedAt === null) await this.#repo.update(a.id, { verifiedAt: Date.now() });
    return this.get(address);
  }

  async deactivate(address: string): Promise<Account> {
    const a = await this.get(address);
    if (a.deactivatedAt === null) await this.#repo.update(a.id, { deactivatedAt: Date.now() });
    return this.get(address);
  }

  async reactivate(address: string): Promise<Account> {
    const a = await this.get(address);
    await this.#repo.update(a.id, { deactivatedAt: null });
    return this.get(address);
  }
}
