// Routes check their JSON bodies with the zod schemas in this folder, the same ones the OpenAPI
// document is written from, so the two cannot drift. A refusal keeps the service's own shape:
// 422 with a stable `error` code and the first problem in plain words. The codes live beside
// the schemas, in a map z.toJSONSchema never reads, so they stay out of the document.
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../domain/errors.ts';

type Issue = z.core.$ZodIssue;
export type Code = ErrorCode | ((issue: Issue) => ErrorCode);

interface Codes {
  /** Unknown keys. */
  unknown: ErrorCode;
  /** A field's refusals, by field name (one code, or one per kind of issue). */
  fields: Record<string, Code>;
  /** What concerns the whole body (a refinement over several fields). */
  body?: ErrorCode;
  /** How many leading fields are reported before unknown keys (default 0). */
  unknownAfter?: number;
}

// Keyed by the final schema instance: zod's .describe(), .optional() and .refine() return new ones.
const registry = new WeakMap<z.ZodType, Codes>();

/** The object whose fields a body's refusals are about: the body, or what a product's start pipes from. */
function objectOf(schema: z.ZodType): z.ZodObject {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodPipe && schema.in instanceof z.ZodObject) return schema.in;
  throw new Error('a body schema is an object, or an object piped into what it gives');
}

/** Gives a body schema the `error` codes its refusals carry. Apply it last. */
export function withCodes<S extends z.ZodType>(schema: S, codes: Codes): S {
  objectOf(schema);
  registry.set(schema, codes);
  return schema;
}

/**
 * Parses a body with its schema; on failure throws 422 with the first problem, in the order the
 * routes checked them before they had schemas: leading fields, unknown keys, the other fields
 * in the schema's order, then what concerns the whole body.
 */
export function validate<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const codes = registry.get(schema);
  if (!codes) throw new Error('validate(): the schema has no error codes (withCodes)');
  const issue = firstIssue(objectOf(schema), codes, r.error.issues);
  const field = fieldOf(issue);
  const code: Code =
    issue.code === 'unrecognized_keys' && field === undefined
      ? codes.unknown
      : field !== undefined && codes.fields[field]
        ? codes.fields[field]
        : (codes.body ?? 'invalid_input');
  throw new AppError(typeof code === 'function' ? code(issue) : code, issue.message);
}

const fieldOf = (issue: Issue) => (issue.path.length ? String(issue.path[0]) : undefined);

/** The problem validate() reports: leading fields, unknown keys, the other fields, the whole body. */
function firstIssue(schema: z.ZodObject, codes: Codes, issues: readonly Issue[]): Issue {
  const keys = Object.keys(schema.shape);
  const rank = (issue: Issue): number => {
    if (issue.code === 'unrecognized_keys' && issue.path.length === 0) return (codes.unknownAfter ?? 0) - 0.5;
    const at = keys.indexOf(fieldOf(issue) ?? '');
    return at === -1 ? keys.length : at;
  };
  return [...issues].sort((a, b) => rank(a) - rank(b))[0];
}

/** The field validate() refuses `body` for (the one its message is about), if it is one field. */
export function refusedField(schema: z.ZodType, body: unknown): string | undefined {
  const r = schema.safeParse(body);
  const codes = registry.get(schema);
  return r.success || !codes ? undefined : fieldOf(firstIssue(objectOf(schema), codes, r.error.issues));
}

/**
 * The one place unknown keys are refused: every body that takes only the keys it names (the
 * REST and web starts, the MCP start tools, sessions, v1's JobAnalyse) is made with this. Its
 * refusal names the keys, "Unknown option: a." or "Unknown fields: a, b.", then the tail;
 * validate() gives it the schema's `unknown` code (unknown_option, unknown_field). Nothing
 * behind the schemas (the job runners) checks keys again.
 */
export function strictBody<S extends z.ZodRawShape>(shape: S, what: 'option' | 'field', tail = ''): z.ZodObject<S, z.core.$strict> {
  return z.strictObject(shape, { error: unknownKeys(what, tail) });
}

function unknownKeys(what: string, tail: string): (issue: z.core.$ZodRawIssue) => string | undefined {
  return (issue) => {
    if (issue.code !== 'unrecognized_keys') return undefined;
    const keys = issue.keys as string[];
    return `Unknown ${what}${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}.${tail}`;
  };
}
