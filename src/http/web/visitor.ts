// Who is at the web pages: every visitor holds a random token in an HttpOnly, SameSite=Strict
// cookie (Secure, with the __Host- prefix, on an https origin). Signed in, the token maps to a
// web session; either way the forms' CSRF token is derived from it.
import type { SignedInBy, WebSessions } from '../../domain/web-sessions.ts';
import type { Account } from '../../domain/ports.ts';
import type { Ctx, Mw } from '../context.ts';

export interface WebVisitor {
  token: string;
  account?: Account;
  csrf: string;
}

// The pages' own policy: no script from anywhere, styles and images from this origin only.
export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const cookieName = (ctx: Ctx) => (ctx.state.origin.startsWith('https:') ? '__Host-obscura' : 'obscura');

function readCookie(ctx: Ctx, name: string): string | undefined {
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Sets the visitor's cookie; no Max-Age: it lives as long as the browser's session, the server ends it sooner. */
export function setToken(ctx: Ctx, token: string): void {
  const secure = ctx.state.origin.startsWith('https:') ? '; Secure' : '';
  ctx.set('Set-Cookie', `${cookieName(ctx)}=${token}; Path=/; HttpOnly; SameSite=Strict${secure}`);
}

export function webVisitor(sessions: WebSessions): Mw {
  return async (ctx, next) => {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    let token = readCookie(ctx, cookieName(ctx));
    const account = await sessions.resolve(token);
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
      token = sessions.anonymous();
      setToken(ctx, token);
    }
    ctx.state.web = { token, account, csrf: sessions.csrf(token) };
    await next();
  };
}

/** Signs the visitor in under a new token, or out (a new anonymous one). */
export async function switchVisitor(ctx: Ctx, sessions: WebSessions, to: { account: Account; how: SignedInBy } | undefined): Promise<void> {
  await sessions.close(ctx.state.web?.token);
  const account = to?.account;
  const token = to ? await sessions.open(to.account, to.how) : sessions.anonymous();
  setToken(ctx, token);
  ctx.state.web = { token, account, csrf: sessions.csrf(token) };
}
