// Writes the OpenAPI 3.1 document of one app from its route table and the zod schemas the
// routes validate with (z.toJSONSchema, draft 2020-12, the dialect of OpenAPI 3.1). The
// statuses the middleware answers are added here by rule, so every route carries them.
import { z } from 'zod';
import type { Network } from '../../config.ts';
import { ERRORS, type ErrorCode } from '../../domain/errors.ts';
import { STATUS_OF } from '../middleware/errors.ts';
import type { MountedRoute } from '../route-list.ts';
import { productSchemas } from '../../products/operations.ts';
import { v1StatusOf } from '../v1/errors.ts';
import { JobStarted, JobView } from '../schemas/jobs.ts';
import { AnalyseItem, ResultFile } from '../schemas/results.ts';
import { Account, ErrorBody, Maintenance, RateLimited, Status, Unauthorized } from '../schemas/service.ts';
import { DirectUploadResult, Session, SessionDeleted, SessionFiles, StoredFile } from '../schemas/sessions.ts';
import { AnalyseStarted, ChunkAccepted, FileMetadata, JobAnalyse, JobResult, JobStatus, MediaUrlCreated, ResumableChunk } from '../schemas/v1.ts';
import { headerRef, headers, parameterRef, parameters, responseRef, responses, schemaRef, securitySchemes, type StandardResponse } from './components.ts';
import { mcpOperations, McpMessage } from './operations-mcp.ts';
import { newerOperations } from './operations-newer.ts';
import { v1Operations } from './operations-v1.ts';
import type { Answer, Operation } from './operation.ts';

/** the v1 specification, Versioning: v1 "declares description version 1.0". */
export const DESCRIPTION_VERSION = '1.0';

export interface DocumentOptions {
  network: Network;
  serviceVersion: string;
  expiryMaxMs: number;
  /** What the app mounts: /mcp is described only where it is. */
  mounted: MountedRoute[];
}

type Json = Record<string, unknown>;

export function openApiDocument(o: DocumentOptions): Json {
  const products = productSchemas(o.expiryMaxMs);
  const mounted = new Set(o.mounted.map((r) => `${r.method} ${r.path}`));
  const isMounted = (op: Operation) => mounted.has(`${op.method.toUpperCase()} ${op.path}`) || mounted.has(`* ${op.path}`);
  const operations = [...newerOperations(o.expiryMaxMs), ...v1Operations(), ...mcpOperations().filter(isMounted)];

  // Request bodies are written as what they accept, answers as what they hold.
  const { schemas, names } = schemaComponents(
    {
      ...products.requests,
      FileMetadata,
      JobAnalyse,
      ResumableChunk,
      McpMessage,
    },
    {
      Error: ErrorBody,
      Unauthorized,
      RateLimited,
      Maintenance,
      Status,
      Account,
      Session,
      SessionDeleted,
      StoredFile,
      SessionFiles,
      DirectUploadResult,
      JobStarted,
      JobView,
      ResultFile,
      ...products.answers,
      AnalyseItem,
      AnalyseStarted,
      JobStatus,
      JobResult,
      MediaUrlCreated,
      ChunkAccepted,
    },
  );
  const schemaOf = (s: z.ZodType) => {
    const name = names.get(s);
    if (!name) throw new Error('openapi: a schema of the route table has no component name');
    return schemaRef(name);
  };

  const paths: Record<string, Json> = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = operation(op, o.network, schemaOf);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Obscura',
      version: DESCRIPTION_VERSION,
      description:
        'Analyse, hide, reveal and convert images and videos. Two generations: v1 (/v1/..., key in api_key) and the newer interface ' +
        '(/api/..., key in X-Api-Key). Every error is JSON {error, message}; every answer carries X-Request-Id. URLs handed out are on ' +
        'the network the request came in on.',
      'x-service-version': o.serviceVersion,
    },
    tags: [
      { name: 'service', description: 'Health, this document, the key check.' },
      ...products.tags,
      { name: 'uploads', description: 'A whole file in one request.' },
      { name: 'tus', description: 'Resumable uploads, TUS 1.0.0.' },
      { name: 'v1', description: 'The v1 interface, as its specification gives it.' },
      ...(operations.some((op) => op.tag === 'mcp') ? [{ name: 'mcp', description: 'Model Context Protocol, Streamable HTTP (revision 2025-03-26).' }] : []),
    ],
    paths,
    components: { schemas, securitySchemes, parameters, headers, responses },
  };
}

/** JSON Schema of named zod schemas, referring to each other by #/components/schemas/<name>. */
function schemaComponents(requests: Record<string, z.ZodType>, answers: Record<string, z.ZodType>) {
  const names = new Map<z.ZodType, string>();
  const schemas: Record<string, Json> = {};
  for (const [io, named] of [['input', requests], ['output', answers]] as const) {
    const registry = z.registry<{ id: string }>();
    for (const [id, s] of Object.entries(named)) {
      registry.add(s, { id });
      names.set(s, id);
    }
    const out = z.toJSONSchema(registry, { io, target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` });
    for (const [id, js] of Object.entries(out.schemas)) {
      // $id would be a fragment URI, which draft 2020-12 forbids; the component's place names it
      const { $schema: _s, $id: _i, ...rest } = js as Json;
      schemas[id] = rest;
    }
  }
  return { schemas, names };
}

const SECURITY: Record<Operation['auth'], Json[]> = {
  none: [],
  key: [{ 'X-Api-Key': [] }],
  v1: [{ api_key: [] }],
  'optional-key': [{}, { 'X-Api-Key': [] }],
};

const JSON_BODY_ERRORS: ErrorCode[] = ['invalid_json', 'body_too_large', 'expected_json', 'invalid_body'];

/**
 * The status an operation answers a code with: the newer API's by its kind (STATUS_OF), v1's by
 * v1's table (v1's one DELETE, resumableDelete, is the route mounted with v1Statuses({ unlink: true })).
 */
export function errorStatus(op: Pick<Operation, 'auth' | 'method'>, code: ErrorCode): number {
  const kind = ERRORS[code].kind;
  return op.auth === 'v1' ? v1StatusOf(kind, { unlink: op.method === 'delete' }) : STATUS_OF[kind];
}

function operation(op: Operation, network: Network, schemaOf: (s: z.ZodType) => Json): Json {
  const head = op.method === 'head';
  const v1 = op.auth === 'v1';
  const out: Record<string, Json> = {};
  for (const [status, answer] of Object.entries(op.answers)) out[status] = response(answer, schemaOf);

  // the route's own refusals, and body.ts's when the route reads a JSON body (v1 answers those
  // 422), grouped by status, each said by the catalogue's summary; then what codes cannot say
  const errors = new Map<number, string[]>();
  const add = (status: number, text: string) => errors.set(status, [...(errors.get(status) ?? []), text]);
  const codes = [...(op.readsJson && !v1 ? JSON_BODY_ERRORS : []), ...(op.errors ?? [])];
  for (const code of new Set(codes)) add(errorStatus(op, code), `${code}: ${ERRORS[code].summary}`);
  for (const [status, note] of Object.entries(op.errorNotes ?? {})) add(Number(status), note);
  for (const [status, texts] of errors) {
    out[status] = {
      description: texts.join('; '),
      ...(op.errorHeaders?.[Number(status)] ? { headers: Object.fromEntries(op.errorHeaders[Number(status)].map((n) => [n, headerRef(n)])) } : {}),
      ...(head ? {} : { content: { 'application/json': { schema: schemaRef('Error') } } }),
    };
  }

  // what the middleware answers before or around the route
  const standard = (status: number, name: StandardResponse) => {
    out[status] = head ? withoutContent(responses[name]) : responseRef(name);
  };
  // optional-key routes check the key inside the call (an MCP tool answers its refusal itself)
  const keyed = op.auth === 'key' || v1;
  if (keyed) standard(401, 'Unauthorized');
  if (v1) {
    standard(500, 'V1Other'); // a limit's 429 and a slow body's 408 are 500 on v1, with their codes
  } else {
    // per-visitor limits exist on the onion and I2P listeners only: on the clearnet a route
    // without a key is never rate limited
    if (keyed || network !== 'clearnet') standard(429, 'RateLimited');
    if (op.body) standard(408, 'BodyTooSlow');
    standard(500, 'InternalError');
  }
  standard(503, op.passesMaintenance ? 'TooManyConnections' : 'Unavailable');

  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: SECURITY[op.auth],
    ...(op.params?.length ? { parameters: op.params.map((p) => parameterRef(p)) } : {}),
    ...(op.body ? { requestBody: requestBody(op.body, schemaOf) } : {}),
    responses: Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

function requestBody(body: NonNullable<Operation['body']>, schemaOf: (s: z.ZodType) => Json): Json {
  const schema = body.schema === undefined ? undefined : Array.isArray(body.schema) ? { anyOf: body.schema.map(schemaOf) } : schemaOf(body.schema);
  const content: Record<string, Json> = {};
  for (const [type, given] of Object.entries(body.content ?? { 'application/json': {} })) {
    content[type] = schema ? { schema } : media(given);
  }
  return { ...(body.description ? { description: body.description } : {}), required: body.required, content };
}

function response(a: Answer, schemaOf: (s: z.ZodType) => Json): Json {
  const content: Record<string, Json> = {};
  if (a.schema) content['application/json'] = { schema: schemaOf(a.schema) };
  for (const [type, given] of Object.entries(a.content ?? {})) content[type] = media(given);
  return {
    description: a.description,
    ...(a.headers?.length ? { headers: Object.fromEntries(a.headers.map((n) => [n, headerRef(n)])) } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

/** A media type: {} is any bytes; anything else is its JSON Schema. */
const media = (schema: Json): Json => (Object.keys(schema).length ? { schema } : {});

/** A HEAD answer carries no body. */
function withoutContent(r: Json): Json {
  const { content: _c, ...rest } = r;
  return rest;
}
