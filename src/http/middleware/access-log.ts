import type { Logger } from '../../log.ts';
import { clientGone, type Ctx, type Mw } from '../context.ts';

// One line per request: id, network, method, the route pattern (not the path, which can
// hold upload keys and ids), status, bytes and time. Never addresses, headers or names.
export function accessLog(log: Logger): Mw {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      log.info(
        {
          req_id: ctx.state.requestId,
          network: ctx.state.network,
          method: ctx.method,
          route: routeOf(ctx),
          // 499, as proxies log it: the client closed the connection before the answer
          status: ctx.state.clientAborted || clientGone(ctx) ? 499 : ctx.status,
          ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        },
        'request',
      );
    }
  };
}

export function routeOf(ctx: Ctx): string {
  const r = (ctx as Ctx & { _matchedRoute?: string | RegExp })._matchedRoute;
  return r === undefined ? '(unmatched)' : String(r);
}
