import type { Mw } from '../context.ts';

// Nothing here is meant to be framed, scripted or cached: answers are user-specific.
// Exported for the answers Node's listener writes itself, before any app runs (listeners.ts).
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox",
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), interest-cohort=()',
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
};

export function securityHeaders(): Mw {
  return async (ctx, next) => {
    ctx.set(SECURITY_HEADERS);
    try {
      await next();
    } finally {
      ctx.remove('Server');
      ctx.remove('X-Powered-By');
    }
  };
}
