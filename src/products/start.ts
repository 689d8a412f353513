// A product's job start, as every interface takes it (REST, MCP, the web pages): one schema per
// product checks the body once, and gives the typed command the job engine takes. What is the
// same for every product (upload_uid, expiry) is here; each product adds its options and how
// they become its runner's typed options (its start.ts).
import { z } from 'zod';
import type { ErrorCode } from '../domain/errors.ts';
import type { JobCommand, JobStart } from '../domain/jobs.ts';
import type { Account, JobRow, Product, SessionType } from '../domain/ports.ts';
import type { Sessions } from '../domain/sessions.ts';
import { strictBody, validate, withCodes, type Code } from '../http/schemas/validate.ts';

const UPLOAD_UID = 'upload_uid is required: the upload_uid of the session to work on.';
const EXPIRY = /^(?:(\d{1,4})([mhd]))?$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "1h" -> 3,600,000; absent, null or '' -> undefined (the service's default). The schema has checked it. */
function expiryMs(v: string | null | undefined): number | undefined {
  const m = v ? EXPIRY.exec(v) : null;
  return m?.[1] ? Number(m[1]) * UNIT_MS[m[2]] : undefined;
}

/**
 * A start's expiry: a duration from 10m up to `expiryMaxMs` (a setting). Without the setting
 * (the MCP tools' input schemas, made before it is known) only its shape is checked; the tool
 * then starts through the same body schema as REST, which checks the range.
 */
export function expiryField(expiryMaxMs?: number) {
  const maxDays = expiryMaxMs === undefined ? undefined : Math.round(expiryMaxMs / 86_400_000);
  const upTo = maxDays === undefined ? 'up to the maximum get_capabilities gives' : `up to ${maxDays} days`;
  const expiry = `expiry must be a duration such as "1h", "1d" or "7d", from 10 minutes ${upTo}.`;
  const inRange = (v: string) => {
    const m = EXPIRY.exec(v);
    if (!m || v === '') return true; // '' is "not set"; a bad shape is the regex's to report
    const ms = Number(m[1]) * UNIT_MS[m[2]];
    return ms >= 10 * 60_000 && (expiryMaxMs === undefined || ms <= expiryMaxMs);
  };
  return z
    .string({ error: expiry })
    .regex(EXPIRY, { error: expiry })
    .refine(inRange, { error: expiry })
    .nullable()
    .optional()
    .describe(`How long the results stay downloadable: 10m up to ${maxDays === undefined ? 'the maximum get_capabilities gives' : `${maxDays}d`} (minutes, hours or days); absent, null or empty is 1 day.`);
}

/** A refusal of a product's options as a whole (two fields that do not go together). */
export class OptionsRefused extends Error {
  override name = 'OptionsRefused';
}

export interface StartDefinition<Shape extends z.ZodRawShape, S> {
  product: Product;
  /** The session types its jobs run on. */
  sessionTypes: readonly SessionType[];
  /** The document's words for the body. */
  description: string;
  /** Said after "Unknown option: x.". */
  tail: string;
  /** The options beside upload_uid and expiry; the MCP start tools take them too. */
  shape: Shape;
  /** Each option's refusal code. */
  codes: { [K in keyof Shape]: Code };
  /** The code of a refusal of the options as a whole, and of unknown options (unknown_option by default). */
  bodyCode?: ErrorCode;
  /** The runner's typed options from the checked fields; throws OptionsRefused for fields that do not go together. */
  options(fields: z.output<z.ZodObject<Shape>>): S;
}

/** What a product's start schema gives: the session to look up, the expiry, and the typed options. */
export interface StartBody<S> {
  upload_uid: string;
  expiryMs: number | undefined;
  options: S;
}

export interface ProductStart<Shape extends z.ZodRawShape, S> extends StartDefinition<Shape, S> {
  /** The start body of a service whose results live at most `expiryMaxMs` (the same object for the same setting). */
  body(expiryMaxMs: number): StartSchema<S>;
}

export type StartSchema<S> = z.ZodType<StartBody<S>> & { readonly in: z.ZodObject };

export function defineStart<Shape extends z.ZodRawShape, S>(def: StartDefinition<Shape, S>): ProductStart<Shape, S> {
  const made = new Map<number, StartSchema<S>>();
  const make = (expiryMaxMs: number) => {
    const common = {
      upload_uid: z.string({ error: UPLOAD_UID }).min(1, { error: UPLOAD_UID }).describe('The session to work on.'),
      expiry: expiryField(expiryMaxMs),
    };
    const object = strictBody({ ...common, ...def.shape }, 'option', def.tail);
    const schema = object
      .transform((body, ctx) => {
        const { upload_uid, expiry, ...fields } = body as { upload_uid: string; expiry?: string | null } & z.output<z.ZodObject<Shape>>;
        try {
          return { upload_uid, expiryMs: expiryMs(expiry), options: def.options(fields as z.output<z.ZodObject<Shape>>) };
        } catch (err) {
          if (!(err instanceof OptionsRefused)) throw err;
          ctx.issues.push({ code: 'custom', message: err.message, input: body });
          return z.NEVER;
        }
      })
      .describe(def.description);
    // unknown keys are reported after upload_uid and expiry, as the job engine always did
    return withCodes(schema, { unknown: 'unknown_option', unknownAfter: 2, body: def.bodyCode, fields: { upload_uid: 'missing_upload_uid', expiry: 'invalid_expiry', ...def.codes } });
  };
  return {
    ...def,
    body(expiryMaxMs) {
      let schema = made.get(expiryMaxMs);
      if (!schema) made.set(expiryMaxMs, (schema = make(expiryMaxMs)));
      return schema;
    },
  };
}

/**
 * Starts a job from a body as a client sent it: checked by the product's schema, on the
 * caller's session (404 for another's, or one of another product), typed all the way down.
 */
export async function startJob<S>(
  deps: { sessions: Sessions; expiryMaxMs: number },
  account: Account,
  start: { sessionTypes: readonly SessionType[]; body(expiryMaxMs: number): StartSchema<S> },
  begin: JobStart<S>,
  body: unknown,
): Promise<JobRow> {
  const { upload_uid, expiryMs, options } = validate(start.body(deps.expiryMaxMs), body);
  const session = await deps.sessions.get(account, upload_uid, start.sessionTypes);
  const command: JobCommand<S> = { session, expiryMs, options };
  return begin(account, command);
}
