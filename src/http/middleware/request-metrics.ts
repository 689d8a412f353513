import type { Network } from '../../config.ts';
import type { Metrics } from '../../metrics.ts';
import { clientGone, type Mw } from '../context.ts';
import { routeOf } from './access-log.ts';

// Every answer, counted by listener, method, route template (as the access log names it: never
// the path, which holds upload keys and ids) and status; 499 when the client left first.
export function requestMetrics(metrics: Metrics, network: Network): Mw {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      metrics.request(network, ctx.method, routeOf(ctx), ctx.state.clientAborted || clientGone(ctx) ? 499 : ctx.status);
    }
  };
}
