import type { Maintenance } from '../../domain/maintenance.ts';
import type { Ctx, Mw } from '../context.ts';

/**
 * In maintenance every request is answered 503, except those `passes` lets through: /mcp,
 * whose status tool reports the maintenance and whose keyed tools refuse it themselves, so an
 * agent reads it as a tool result rather than a transport failure.
 */
export function maintenanceGate(maintenance: Maintenance, service: { name: string; version: string }, passes?: (ctx: Ctx) => boolean): Mw {
  return async (ctx, next) => {
    if (passes?.(ctx) || !(await maintenance.isOn())) return next();
    ctx.status = 503;
    ctx.set('Retry-After', String(maintenance.retryAfterS));
    ctx.body = {
      status: 'MAINTENANCE',
      error: 'maintenance',
      message: `The service is down for maintenance; try again in ${maintenance.retryAfterS} seconds.`,
      service: service.name,
      version: service.version,
      timestamp: new Date().toISOString(),
      retry_after: maintenance.retryAfterS,
    };
  };
}
