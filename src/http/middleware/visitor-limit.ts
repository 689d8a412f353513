import type { RateLimits } from '../../domain/rate-limits.ts';
import type { Mw } from '../context.ts';
import { circuitTag } from '../proxy-protocol.ts';
import { answerRateLimited } from './rate-limited.ts';

/**
 * Hands the process's limits to the key check (middleware/auth.ts) and counts each request
 * against its anonymous visitor: the Tor circuit on the onion listener (from tor's PROXY line),
 * the I2P destination on the I2P listener (its opaque tag); a connection whose PROXY line names
 * no circuit and an I2P request without i2pd's header count together, as one visitor each
 * (UNNAMED_VISITOR). Clearnet requests come through the operator's proxy, all from one
 * address, so there is no visitor to tell apart there.
 */
export function visitorLimit(limits: RateLimits): Mw {
  return async (ctx, next) => {
    ctx.state.limits = limits;
    const network = ctx.state.network;
    const circuit = network === 'onion' ? circuitTag(ctx.req.socket) : undefined;
    const destination = network === 'i2p' ? ctx.state.visitor : undefined;
    const refusal = circuit ? limits.visitor('circuit', circuit) : destination ? limits.visitor('destination', destination) : undefined;
    if (refusal) return answerRateLimited(ctx, refusal);
    await next();
  };
}
