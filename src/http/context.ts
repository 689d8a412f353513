import type { Middleware, ParameterizedContext } from 'koa';
import type { RouterContext } from '@koa/router';
import type { Network } from '../config.ts';
import type { Account } from '../store/repositories.ts';

export interface AppState {
  requestId: string;
  network: Network;
  /** Origin of the network the request came in on; every URL handed out is built from it. */
  origin: string;
  /** An opaque tag of the I2P visitor (from i2pd's destination header); undefined elsewhere. */
  visitor?: string;
  account?: Account;
}

export type Ctx = ParameterizedContext<AppState>;
export type RouteCtx = RouterContext<AppState>;
export type Mw = Middleware<AppState>;

/** An absolute URL on the network this request came in on. */
export function urlFor(ctx: Ctx, pathname: string): string {
  return new URL(pathname, ctx.state.origin).toString();
}
