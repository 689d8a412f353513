import type { Mw } from '../context.ts';

// Tells Tor Browser that the same page is served as an onion service, so its users can move
// off the clearnet (it acts on it for HTTPS pages). Clearnet only, and only when the operator
// named the onion origin: the loopback default would point nowhere.
export function onionLocation(onionOrigin: string): Mw {
  return async (ctx, next) => {
    ctx.set('Onion-Location', onionOrigin + ctx.path); // joined, not resolved: a path like //host stays a path
    await next();
  };
}
