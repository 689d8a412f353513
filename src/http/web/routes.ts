// The web pages for people, on every listener: one router, behind the visitor's cookie, the
// pages' CSP and an error boundary that answers pages rather than JSON.
import type { Starts } from '../../products/index.ts';
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import { readFileSync } from 'node:fs';
import type { Config } from '../../config.ts';
import type { AccountRecovery } from '../../domain/account-recovery.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import type { Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import type { SelfService } from '../../domain/self-service.ts';
import type { Sessions } from '../../domain/sessions.ts';
import type { Uploads } from '../../domain/uploads.ts';
import type { DirectUploads } from '../../domain/uploads-direct.ts';
import { refusalError } from '../../domain/web-brakes.ts';
import type { WebSessions } from '../../domain/web-sessions.ts';
import type { Logger } from '../../log.ts';
import { FITS, IMAGE_TARGETS, VIDEO_TARGETS } from '../../media/convert/options.ts';
import { STEGO_IMAGE_FORMATS } from '../../media/stego/image.ts';
import { STEGO_VIDEO_FORMATS } from '../../media/stego/video.ts';
import type { AppState, Mw } from '../context.ts';
import { accountPages } from './account-pages.ts';
import { recoveryPages } from './recovery-pages.ts';
import { jobPages } from './job-pages.ts';
import { languagePages, webLanguage } from './language.ts';
import { productPages } from './product-pages.ts';
import { webErrors } from './respond.ts';
import { webVisitor } from './visitor.ts';
import { DEFAULT_LIMITS } from '../../media/limits.ts';

export interface WebDeps {
  config: Config;
  log: Logger;
  apiKeys: ApiKeys;
  sessions: Sessions;
  uploads: Uploads;
  directUploads: DirectUploads;
  jobs: Jobs;
  starts: Starts;
  results: JobResults;
  webSessions: WebSessions;
  selfService: SelfService;
  recovery: AccountRecovery;
}

const CSS = readFileSync(new URL('./static/obscura.css', import.meta.url));

/** "7d", "36h", "90m": a duration as the forms and pages show it. */
function shortDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return `${Math.round(ms / 60_000)}m`;
}

/** A signed-in person's requests count against their account's requests a minute, as the API's do. */
function accountRequests(): Mw {
  return async (ctx, next) => {
    const account = ctx.state.web?.account;
    const refused = account && (await ctx.state.limits?.request(account.id));
    if (refused) throw refusalError(refused);
    await next();
  };
}

export function webRoutes(d: WebDeps): Router<AppState> {
  const router = newRouter();
  const cap = Math.min(d.config.limits.directUploadMax, d.config.limits.fileMax);
  const limits = {
    fileMaxBytes: cap,
    sessionMaxFiles: d.config.limits.sessionMaxFiles,
    expiryDefault: shortDuration(d.config.jobs.expiryDefaultMs),
    expiryMax: shortDuration(d.config.jobs.expiryMaxMs),
  };

  router.get('/static/obscura.css', (ctx) => {
    ctx.set('Cache-Control', 'max-age=3600');
    ctx.remove('Pragma');
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = CSS;
  });

  const pages = newRouter();
  pages.use(webLanguage(), webErrors(d.log), webVisitor(d.webSessions), accountRequests());
  for (const r of [
    accountPages({ ...d, limits, clientHeader: d.config.web.clearnetClientHeader }),
    recoveryPages({ ...d, clientHeader: d.config.web.clearnetClientHeader }),
    productPages({
      ...d,
      formLimits: {
        ...limits,
        imageFormats: IMAGE_TARGETS,
        videoFormats: VIDEO_TARGETS,
        stegoImageFormats: STEGO_IMAGE_FORMATS,
        stegoVideoFormats: STEGO_VIDEO_FORMATS,
        stegosuiteMaxPixels: d.config.media.stegosuiteMaxPixels ?? DEFAULT_LIMITS.stegosuiteMaxPixels!,
        fits: FITS,
      },
    }),
    jobPages(d),
    languagePages(d),
  ]) {
    pages.use(r.routes(), r.allowedMethods());
  }
  router.use(pages.routes());
  return Object.assign(router, { forPeople: true });
}
