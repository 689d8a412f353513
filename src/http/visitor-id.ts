// Who is asking, for the brakes on the doors people use (domain/web-brakes.ts): the Tor circuit
// on the onion listener (tor's PROXY line), the I2P destination on the I2P listener (its opaque
// tag), and on clearnet the client the operator's proxy names in a header it sets
// (OBSCURA_CLEARNET_CLIENT_HEADER, its last value: the one the proxy appended), else the socket's
// peer unless that is this machine (a local proxy, a Unix socket). Where none of these names the
// visitor, every such visitor is one shared name, whose brakes only slow down
// (domain/web-brakes.ts). The brakes keep only an HMAC of it; it is never logged or shown.
import { UNNAMED_VISITOR } from '../domain/rate-limits.ts';
import { sharedVisitor } from '../domain/web-brakes.ts';
import type { Ctx } from './context.ts';
import { circuitTag } from './proxy-protocol.ts';

const LOOPBACK = /^(?:127\.|::1$|::ffff:127\.)/;

export function visitorId(ctx: Ctx, clearnetClientHeader?: string): string {
  switch (ctx.state.network) {
    case 'onion': {
      const circuit = circuitTag(ctx.req.socket);
      return circuit && circuit !== UNNAMED_VISITOR ? `circuit:${circuit}` : sharedVisitor('onion');
    }
    case 'i2p': {
      const destination = ctx.state.visitor;
      return destination && destination !== UNNAMED_VISITOR ? `destination:${destination}` : sharedVisitor('i2p');
    }
    default: {
      const named = clearnetClientHeader ? ctx.get(clearnetClientHeader).split(',').pop()!.trim() : '';
      if (named) return `client:${named}`;
      const peer = ctx.req.socket.remoteAddress;
      return peer && !LOOPBACK.test(peer) ? `client:${peer}` : sharedVisitor('clearnet');
    }
  }
}
