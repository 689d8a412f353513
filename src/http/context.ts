import type { Lang } from '../i18n/languages.ts';
import type { Middleware, ParameterizedContext } from 'koa';
import type { RouterContext } from '@koa/router';
import type { Network } from '../config.ts';
import type { RateLimits } from '../domain/rate-limits.ts';
import type { Account } from '../domain/ports.ts';

export interface AppState {
  requestId: string;
  network: Network;
  /** Origin of the network the request came in on; every URL handed out is built from it. */
  origin: string;
  /** An opaque tag of the I2P visitor (from i2pd's destination header); undefined elsewhere. */
  visitor?: string;
  account?: Account;
  /** The client went away before the answer (logged as such, never as a server error). */
  clientAborted?: boolean;
  /** The process's rate limits, for the key check (set by middleware/visitor-limit.ts). */
  limits?: RateLimits;
  /** A person at the web pages: their cookie's token, account when signed in, CSRF token. */
  web?: { token: string; account?: Account; csrf: string };
  /** The language of the web pages for this request (set by http/web/language.ts). */
  lang?: Lang;
}

export type Ctx = ParameterizedContext<AppState>;
export type RouteCtx = RouterContext<AppState>;
export type Mw = Middleware<AppState>;

/** An absolute URL on the network this request came in on. */
export function urlFor(ctx: Ctx, pathname: string): string {
  return new URL(pathname, ctx.state.origin).toString();
}

/** Whether the client has gone: its connection closed before its request or our answer was done. */
export function clientGone(ctx: Ctx): boolean {
  // readableAborted: the body stream ended by a reset, not by its end (an unread body is not that)
  const socket = ctx.req.socket as { destroyed?: boolean } | null;
  return ctx.req.readableAborted || !socket || socket.destroyed === true;
}
