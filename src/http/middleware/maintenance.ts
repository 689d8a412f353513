import type { Maintenance } from '../../domain/maintenance.ts';
import type { Mw } from '../context.ts';

export function maintenanceGate(maintenance: Maintenance, service: { name: string; version: string }): Mw {
  return async (ctx, next) => {
    if (!maintenance.isOn()) return next();
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
