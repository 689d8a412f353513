// One function builds the Koa app for a network. The three apps differ only in the origin
// they hand out and in what they mount: /mcp exists on the clearnet app alone.
import Koa from 'koa';
import type { Config, Network } from '../config.ts';
import type { ApiKeys } from '../domain/api-keys.ts';
import type { Jobs } from '../domain/jobs.ts';
import type { JobResults } from '../domain/job-results.ts';
import type { Maintenance } from '../domain/maintenance.ts';
import type { RateLimits } from '../domain/rate-limits.ts';
import type { Sessions } from '../domain/sessions.ts';
import type { Uploads } from '../domain/uploads.ts';
import type { DirectUploads } from '../domain/uploads-direct.ts';
import type { TusUploads } from '../domain/uploads-tus.ts';
import type { MediaUrls } from '../domain/uploads-v1.ts';
import type { AccountRecovery } from '../domain/account-recovery.ts';
import type { SelfService } from '../domain/self-service.ts';
import type { WebSessions } from '../domain/web-sessions.ts';
import type { Locker } from '../domain/ports.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { accountRoutes } from './api/account.ts';
import { sessionRoutes } from './api/sessions.ts';
import { tusRoutes } from './api/tus.ts';
import { directUploadRoutes } from './api/upload.ts';
import { statusRoutes } from './api/status.ts';
import { openApiRoutes } from './openapi/route.ts';
import { mountedRoutes } from './route-list.ts';
import type { AppState } from './context.ts';
import { isMcpPath, mcpRoutes } from './mcp/route.ts';
import { accessLog } from './middleware/access-log.ts';
import { errorBoundary } from './middleware/errors.ts';
import { minBodyRate, unreadBodyCloses } from './middleware/body-rate.ts';
import { maintenanceGate } from './middleware/maintenance.ts';
import { onionLocation } from './middleware/onion-location.ts';
import { requestId } from './middleware/request-id.ts';
import { requestMetrics } from './middleware/request-metrics.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { visitorLimit } from './middleware/visitor-limit.ts';
import { v1StatusTable } from './v1/errors.ts';
import { v1JobRoutes } from './v1/jobs.ts';
import { v1UploadRoutes } from './v1/upload.ts';
import { webRoutes } from './web/routes.ts';
import { CARDS, type Starts } from '../products/index.ts';
import { analyseRoutes } from '../products/analyse/routes.ts';
import { convertRoutes } from '../products/convert/routes.ts';
import { stegoRoutes } from '../products/stego/routes.ts';

export interface AppDeps {
  config: Config;
  log: Logger;
  apiKeys: ApiKeys;
  maintenance: Maintenance;
  sessions: Sessions;
  uploads: Uploads;
  mediaUrls: MediaUrls;
  directUploads: DirectUploads;
  tusUploads: TusUploads;
  jobs: Jobs;
  starts: Starts;
  results: JobResults;
  rateLimits: RateLimits;
  webSessions: WebSessions;
  selfService: SelfService;
  recovery: AccountRecovery;
  locker: Locker;
  metrics?: Metrics;
}

export const SERVICE_NAME = 'obscura';

export function createApp(network: Network, deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false, env: 'production' });
  app.silent = true; // errors are logged by the boundary, without their messages
  const service = { name: SERVICE_NAME, version: deps.config.version };

  app.use(requestId(network, () => deps.config.origin[network]));
  app.use(accessLog(deps.log));
  if (deps.metrics) app.use(requestMetrics(deps.metrics, network));
  app.use(securityHeaders());
  if (network === 'clearnet' && deps.config.onionLocation) app.use(onionLocation(deps.config.onionLocation));
  app.use(v1StatusTable());
  app.use(unreadBodyCloses());
  app.use(errorBoundary(deps.log));
  const mcp = network === 'clearnet';
  app.use(maintenanceGate(deps.maintenance, service, mcp ? (ctx) => isMcpPath(ctx.path) : undefined));
  app.use(visitorLimit(deps.rateLimits));
  app.use(minBodyRate(deps.config.abuse.minBodyRate, deps.config.abuse.minBodyRateWindowMs));

  const routers = [
    statusRoutes(service),
    // written from the routes mounted here, once all are (on first ask)
    openApiRoutes({ network, serviceVersion: service.version, expiryMaxMs: deps.jobs.limits.expiryMaxMs, mounted: () => mountedRoutes(app) }),
    accountRoutes(deps.apiKeys),
    sessionRoutes(deps, CARDS.map((c) => ({ path: c.sessionPath, product: c.product }))),
    directUploadRoutes(deps),
    tusRoutes({ ...deps, sessionLifeMs: deps.config.limits.sessionLifeMs }),
    v1UploadRoutes({ ...deps, patchDoneStatus: deps.config.v1.patchDoneStatus }),
    v1JobRoutes(deps),
    analyseRoutes(deps),
    convertRoutes(deps),
    stegoRoutes(deps),
    ...(mcp ? [mcpRoutes({ ...deps, service })] : []),
    // the pages for people, on every network (URLs in them are relative; mails use the request's origin)
    webRoutes(deps),
  ];
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
