import type { ApiKeys } from '../../domain/api-keys.ts';
import type { Mw } from '../context.ts';

/**
 * Resolves the account for a request from the given header (X-Api-Key for the newer
 * interface, api_key for v1; header names are case-insensitive).
 */
export function requireKey(apiKeys: ApiKeys, header: 'x-api-key' | 'api_key'): Mw {
  return async (ctx, next) => {
    const raw = ctx.get(header);
    ctx.state.account = apiKeys.authenticate(raw === '' ? undefined : raw.trim(), header === 'api_key' ? 'api_key' : 'X-Api-Key');
    await next();
  };
}
