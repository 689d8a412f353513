// Who is asking, for the brakes on the doors people use (domain/web-brakes.ts): the Tor circuit
// on the onion listener (tor's PROXY line), the I2P destination on the I2P listener (its opaque
// tag), and on clearnet the client the operator's proxy names in a header it sets
// (OBSCURA_CLEARNET_CLIENT_HEADER, its last value: the one the proxy appended), else the socket's
// peer. The brakes keep only an HMAC of it; it is never logged or shown.
import type { Ctx } from './context.ts';
import { circuitTag } from './proxy-protocol.ts';

export function visitorId(ctx: Ctx, clearnetClientHeader?: string): string {
  switch (ctx.state.network) {
    case 'onion': {
      const circuit = circuitTag(ctx.req.socket);
      return circuit ? `circuit:${circuit}` : 'onion'; // without tor's PROXY line every visitor is one
    }
    case 'i2p':
      return ctx.state.visitor ? `destination:${ctx.state.visitor}` : 'i2p';
    default: {
      const named = clearnetClientHeader ? ctx.get(clearnetClientHeader).split(',').pop()!.trim() : '';
      return `client:${named || ctx.req.socket.remoteAddress || ''}`;
    }
  }
}
