// One page per product: a multipart form with the file(s) and every option the API takes. The
// form goes through the API's own code: a session, an upload per file, the start body checked
// by the same schema, the job engine; a refusal shows the API's message on the page, with what
// was typed kept (files and passphrases aside), and nothing of the refused attempt is kept.
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import { AppError, hasCode } from '../../domain/errors.ts';
import type { Jobs } from '../../domain/jobs.ts';
import type { JobResults } from '../../domain/job-results.ts';
import { deleteSession } from '../../domain/session-deletion.ts';
import type { Sessions } from '../../domain/sessions.ts';
import type { Uploads } from '../../domain/uploads.ts';
import type { DirectUploads } from '../../domain/uploads-direct.ts';
import { refusalError } from '../../domain/web-brakes.ts';
import type { WebSessions } from '../../domain/web-sessions.ts';
import { PRODUCTS, type JobRow, type Product } from '../../domain/ports.ts';
import type { AppState, Ctx } from '../context.ts';
import { FORMS } from '../../products/forms.ts';
import { bodyStarts, startBodies, type Starts } from '../../products/index.ts';
import { refusedField } from '../schemas/validate.ts';
import { withinAccountLimits } from '../middleware/account-limits.ts';
import { controlOf } from './field-errors.ts';
import { readMultipart, type Fields } from './form.ts';
import { person } from './account-pages.ts';
import { refusedNotice, render, wordsOf } from './respond.ts';
import { productFormView, productTitle, type FormLimits } from './views/forms.ts';

export interface ProductPageDeps {
  sessions: Sessions;
  uploads: Uploads;
  directUploads: DirectUploads;
  jobs: Jobs;
  starts: Starts;
  results: JobResults;
  webSessions: WebSessions;
  formLimits: FormLimits;
}

const KEPT_OUT = new Set(['csrf', 'password', 'decoy_password']);
const NOT_VERIFIED = 'Verify your e-mail address first (see your account page): until then nothing can be started.';

/** The API's start body from the form's fields: an empty select or number is "not set". */
export function startBody(product: Product, f: Fields): Record<string, unknown> {
  const form = FORMS[product];
  const flags = form.flags ?? [];
  const body: Record<string, unknown> = {};
  for (const [k, values] of Object.entries(f)) {
    if (k === 'csrf' || flags.includes(k)) continue;
    if (form.lists?.includes(k)) {
      body[k] = values;
      continue;
    }
    const v = values[values.length - 1];
    if (v === '') continue;
    body[k] = form.numbers?.includes(k) && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  }
  form.tidy?.(body);
  for (const flag of flags) {
    const v = f[flag]?.at(-1);
    body[flag] = v === undefined ? false : v === 'true' ? true : v; // anything else is the schema's to refuse
  }
  return body;
}

export function productPages(d: ProductPageDeps): Router<AppState> {
  const router = newRouter();
  const bodies = startBodies(d.jobs.limits.expiryMaxMs);
  const begin = bodyStarts({ sessions: d.sessions, starts: d.starts, expiryMaxMs: d.jobs.limits.expiryMaxMs });
  const cap = Math.min(d.uploads.limits.directUploadMax, d.uploads.limits.fileMax);

  const form = (ctx: Ctx, product: Product, values: Fields | Record<string, string | string[]>, notice?: { kind: 'error' | 'ok'; message: string; code?: string }, status = 200) => {
    const words = wordsOf(ctx);
    render(ctx, { title: productTitle(product, words), notice }, productFormView(product, { csrf: ctx.state.web!.csrf, values, limits: d.formLimits, words }), status);
  };

  for (const product of PRODUCTS) {
    router.get(`/${product}`, (ctx) => {
      const account = person(ctx);
      if (!account) return;
      const notice = account.verifiedAt === null ? { kind: 'error' as const, message: wordsOf(ctx).t('error.account_not_verified'), code: 'account_not_verified' } : undefined;
      form(ctx, product, {}, notice);
    });

    router.post(`/${product}`, async (ctx) => {
      const account = person(ctx);
      if (!account) return;
      const fields: Fields = {};
      let sessionId: string | undefined;
      // what a refusal is about: the file that could not be stored, or the option the schema refused
      let fileField: string | undefined;
      let body: Record<string, unknown> | undefined;
      try {
        if (account.verifiedAt === null) throw new AppError('account_not_verified', NOT_VERIFIED);
        let job: JobRow | undefined;
        // the form is an upload and a job start at once: counted as both, as the API's would be
        const make = async () => {
          const session = await d.sessions.create(account, product);
          sessionId = session.id;
          const steps = FORMS[product].steps;
          await readMultipart(
            ctx,
            (presented) => d.webSessions.csrfValid(ctx.state.web?.token, presented),
            { files: d.uploads.limits.sessionMaxFiles + 1, bodyMax: cap * (d.uploads.limits.sessionMaxFiles + 1) + 1024 * 1024 },
            async (field: string, name: string, bytes: AsyncIterable<Buffer>) => {
              const step = steps[field];
              if (step === undefined) throw new AppError('unknown_field', `This form takes no file called ${field.slice(0, 40)}.`);
              try {
                await d.directUploads.streamed(account, { uploadUid: session.id, step, name }, bytes, cap);
              } catch (err) {
                fileField = field;
                throw err;
              }
            },
            fields,
          );
          body = { ...startBody(product, fields), upload_uid: session.id };
          job = await begin[product](account, body);
          return true;
        };
        const limits = ctx.state.limits;
        const over = limits ? await withinAccountLimits(ctx, limits, account.id, { job: true, upload: true }, make) : (await make(), undefined);
        if (over) throw refusalError(over);
        ctx.status = 303;
        ctx.redirect(`/job/${job!.id}`);
      } catch (err) {
        const option = body && refusedField(bodies[product], body);
        const notice = refusedNotice(ctx, err, (e) =>
          hasCode(e, 'no_files') ? Object.keys(FORMS[product].steps)[0] : (fileField ?? (option && option !== 'upload_uid' ? controlOf(option) : undefined)),
        );
        // nothing of a refused attempt stays: its files are destroyed with its session
        if (sessionId) await deleteSession(d, account, sessionId).catch(() => undefined);
        const kept = Object.fromEntries(Object.entries(fields).filter(([k]) => !KEPT_OUT.has(k)));
        form(ctx, product, kept, notice, ctx.status);
      }
    });
  }
  return router;
}
