// One row of the route table the OpenAPI document is written from. Bodies and answers name the
// zod schemas the routes validate with; document.ts turns them into JSON Schema.
import type { z } from 'zod';
import type { ErrorCode } from '../../domain/errors.ts';

export type Method = 'get' | 'post' | 'patch' | 'delete' | 'head' | 'options';

/** none: no key; key: X-Api-Key; v1: api_key; optional-key: X-Api-Key, checked by the calls that need it (MCP tools). */
export type Auth = 'none' | 'key' | 'v1' | 'optional-key';

export interface Answer {
  description: string;
  /** The zod schema of a JSON body. */
  schema?: z.ZodType;
  /** Content types other than JSON, each with a JSON Schema as is ({}: any bytes). */
  content?: Record<string, Record<string, unknown>>;
  /** Names of components.headers sent with it. */
  headers?: string[];
}

export interface Operation {
  method: Method;
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  /** Names of components.parameters. */
  params?: string[];
  /** A JSON body: one schema, or several a body may match (anyOf); `content` names other types (the schema then applies to each). */
  body?: { schema?: z.ZodType | z.ZodType[]; content?: Record<string, Record<string, unknown>>; required: boolean; description?: string };
  /** Whether the route reads its JSON body itself (400/413/415/422 of body.ts come with it). */
  readsJson?: boolean;
  /** The answers of the route itself; what middleware answers (401, 408, 429, 500, 503) is added. */
  answers: Record<number, Answer>;
  /**
   * The error codes the route itself answers (domain/errors.ts ERRORS): document.ts gives each
   * its status (STATUS_OF by its kind; v1's table for v1) and its summary.
   */
  errors?: ErrorCode[];
  /** What an error status also says that codes cannot (another layer's refusal, "any other bad input"). */
  errorNotes?: Record<number, string>;
  /** Names of components.headers sent with some of those errors. */
  errorHeaders?: Record<number, string[]>;
  /** Served in maintenance too (it answers maintenance itself): 503 is then the listener's alone. */
  passesMaintenance?: boolean;
}
