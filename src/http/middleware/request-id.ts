import { randomBytes } from 'node:crypto';
import type { Network } from '../../config.ts';
import type { Mw } from '../context.ts';
import { visitorTag } from '../network-headers.ts';

// Always our own id: a client-chosen one could be used to correlate across networks.
export function requestId(network: Network, origin: () => string): Mw {
  return async (ctx, next) => {
    ctx.state.requestId = randomBytes(8).toString('hex');
    ctx.state.network = network;
    ctx.state.origin = origin();
    ctx.state.visitor = visitorTag(ctx.req);
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
