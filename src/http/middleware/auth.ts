import type { ApiKeys } from '../../domain/api-keys.ts';
import { AppError, hasCode } from '../../domain/errors.ts';
import type { RateLimits, Refusal } from '../../domain/rate-limits.ts';
import type { Account } from '../../domain/ports.ts';
import type { Ctx, Mw } from '../context.ts';
import { underAccountLimits, type Counted } from './account-limits.ts';
import { answerRateLimited } from './rate-limited.ts';

/**
 * Resolves the account for a request from the given header (X-Api-Key for the newer
 * interface, api_key for v1; header names are case-insensitive), then runs the request under
 * the account's rate limits, counting what the route says it is (`counted`: a job start, an
 * upload's bytes). While the service brakes on wrong keys, only keys that
 * authenticated before are looked up (domain/rate-limits.ts says why).
 */
export function requireKey(apiKeys: ApiKeys, header: 'x-api-key' | 'api_key', counted?: Counted): Mw {
  return async (ctx, next) => {
    const raw = ctx.get(header);
    const presented = raw === '' ? undefined : raw.trim();
    const limits = ctx.state.limits; // absent on a bare app with this middleware alone
    let found: Awaited<ReturnType<typeof identify>>;
    try {
      found = await identify(apiKeys, limits, presented, header === 'api_key' ? 'api_key' : 'X-Api-Key');
    } catch (err) {
      if (hasCode(err, 'missing_api_key')) throw new AppError('missing_api_key', whereTheKeyGoes(ctx, header));
      throw err;
    }
    if ('braked' in found) return answerRateLimited(ctx, found.braked);
    ctx.state.account = found.account;
    if (!limits) return next();
    await underAccountLimits(ctx, limits, ctx.state.account.id, counted, next);
  };
}

/**
 * The message of a missing key, saying where this generation takes it when the client sent it
 * elsewhere: in the other generation's header, or in the query string (never read: a key in a
 * URL ends up in the logs of every proxy and browser on the way).
 */
export function whereTheKeyGoes(ctx: Ctx, header: 'x-api-key' | 'api_key'): string {
  const inQuery = Object.keys(ctx.query).some((k) => /^(x[-_])?api[-_]?key$/i.test(k));
  if (header === 'api_key') {
    const where = 'v1 takes the key in the `api_key` request header';
    if (inQuery) return `${where}; a query parameter is never read: keys in URLs end up in logs.`;
    if (ctx.get('x-api-key')) return `${where}; X-Api-Key is the newer API's.`;
    return `An API key is required: ${where}. If you sent it, a proxy on the way may drop header names with an underscore (nginx: underscores_in_headers on;).`;
  }
  const where = 'The newer API takes the key in the `X-Api-Key` request header';
  if (inQuery) return `${where}; a query parameter is never read: keys in URLs end up in logs.`;
  if (ctx.get('api_key')) return `${where}; api_key is v1's.`;
  return `An API key is required: send it in the X-Api-Key header.`;
}

/**
 * The key check itself, for requireKey and for the MCP tools that need a key: the account, or
 * the brake's refusal; a bad key throws its 401 (and counts towards the brake when wrong).
 */
export async function identify(
  apiKeys: ApiKeys,
  limits: RateLimits | undefined,
  presented: string | undefined,
  header: 'X-Api-Key' | 'api_key',
): Promise<{ account: Account; keyId: string } | { braked: Refusal }> {
  const braked = await limits?.keyCheck(presented);
  if (braked) return { braked };
  let found: { account: Account; keyId: string };
  try {
    found = await apiKeys.authenticateKey(presented, header);
  } catch (err) {
    if (limits && presented !== undefined && hasCode(err, 'invalid_api_key')) await limits.keyRejected(presented);
    throw err;
  }
  await limits?.keyAccepted(presented!);
  return found;
}
