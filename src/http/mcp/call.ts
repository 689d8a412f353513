// What a tool sees of the HTTP request that carried it. Keyed tools read the key from the
// request's X-Api-Key header (never from an argument) and go through the same key check and
// per-account limits as a REST call, one request each; tools without a key never look at it.
import type { AppDeps } from '../app.ts';
import { AppError } from '../../domain/errors.ts';
import type { Refusal } from '../../domain/rate-limits.ts';
import type { Account, JobRow } from '../../domain/ports.ts';
import type { Ctx } from '../context.ts';
import { identify } from '../middleware/auth.ts';

export type McpDeps = AppDeps & { service: { name: string; version: string } };

export class ToolCall {
  readonly ctx: Ctx;
  readonly deps: McpDeps;
  /** Fires when the client went away: a long poll stops waiting. */
  readonly signal: AbortSignal;

  constructor(ctx: Ctx, deps: McpDeps, signal: AbortSignal) {
    this.ctx = ctx;
    this.deps = deps;
    this.signal = signal;
  }

  /** Origin of the network the request came in on (the clearnet: /mcp is mounted nowhere else). */
  get origin(): string {
    return this.ctx.state.origin;
  }

  /** The key's account, counted as one request of it; throws the 401s, 429 and maintenance. */
  async account(): Promise<Account> {
    const { maintenance, apiKeys, rateLimits } = this.deps;
    if (await maintenance.isOn()) {
      throw new AppError('maintenance', `The service is down for maintenance; try again in ${maintenance.retryAfterS} seconds.`, {
        retry_after: maintenance.retryAfterS,
      });
    }
    const raw = this.ctx.get('x-api-key');
    const found = await identify(apiKeys, rateLimits, raw === '' ? undefined : raw.trim(), 'X-Api-Key');
    if ('braked' in found) throw rateLimited(found.braked);
    const refused = await rateLimits.request(found.account.id);
    if (refused) throw rateLimited(refused);
    return found.account;
  }

  /** A job start under the account's hourly allowance, given back when the start is refused. */
  async startJob(account: Account, start: () => Promise<JobRow>): Promise<JobRow> {
    const over = await this.deps.rateLimits.startJob(account.id);
    if (over) throw rateLimited(over);
    try {
      return await start();
    } catch (err) {
      await this.deps.rateLimits.refundJob(account.id);
      throw err;
    }
  }
}

function rateLimited(r: Refusal): AppError {
  return new AppError('rate_limited', r.message, { retry_after: r.retryAfterS });
}
