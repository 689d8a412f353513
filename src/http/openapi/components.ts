// The document's reusable parts: security schemes, parameters, response headers, and the
// answers the middleware gives every route (401, 408, 429, 500, 503).
import { AUTH_CODES } from '../schemas/service.ts';

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
export const schemaRef = (name: string) => ref('schemas', name);
export const headerRef = (name: string) => ref('headers', name);
export const parameterRef = (name: string) => ref('parameters', name);
export const responseRef = (name: string) => ref('responses', name);

export const securitySchemes = {
  api_key: {
    type: 'apiKey',
    in: 'header',
    name: 'api_key',
    description:
      'The v1 interface: the key in the request header api_key (X-Api-Key and a query parameter are not read: 401 missing_api_key saying so). Header names are case-insensitive: clients spelling it Api_Key send the same header. Proxies may drop header names with an underscore (nginx: underscores_in_headers on;).',
  },
  'X-Api-Key': { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'The newer interface and /mcp (api_key and a query parameter are not read).' },
};

const path = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string', maxLength: 80 } });
const header = (name: string, required: boolean, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ name, in: 'header', required, description, schema });

export const parameters = {
  uid: path('uid', "The session's upload_uid."),
  job: path('job', 'The job_uid.'),
  asset: path('asset', 'The asset_id of a result file.'),
  id: path('id', 'The TUS upload id: the last segment of its Location.'),
  jobKey: path('key', 'The key in the job-url.'),
  resultKey: path('key', 'The key in the result-url.'),
  mediaKey: path('key', 'The key in the media-url.'),
  wait: { name: 'wait', in: 'query', required: false, description: 'Hold the answer up to this many seconds, until the job changes state.', schema: { type: 'integer', minimum: 0, maximum: 30 } },
  Range: header('Range', false, 'One range, bytes=start-end (several ranges get the whole file).'),
  'Tus-Resumable': header('Tus-Resumable', true, 'The TUS version.', { type: 'string', const: '1.0.0' }),
  'Upload-Length': header('Upload-Length', true, 'The size of the whole file in bytes.', { type: 'integer', minimum: 0 }),
  'Upload-Metadata': header('Upload-Metadata', true, 'Comma-separated "key base64(value)" pairs: upload_uid, step, name, client_upload_id (optional).'),
  'Upload-Offset': header('Upload-Offset', true, 'Where the bytes of this request start.', { type: 'integer', minimum: 0 }),
  'X-Upload-Uid': header('X-Upload-Uid', true, 'The session the file belongs to.'),
  'X-Upload-Step': header('X-Upload-Step', false, "The file's step: 1 for the secrets of a hide, 2 for its cover. Required for a hide; a reveal, analyse or convert session has step 1 only, which is the default.", { type: 'string', pattern: '^\\d{1,2}$' }),
  'X-Filename': header(
    'X-Filename',
    false,
    "The file's name (its last path segment is kept; absent, \"file\"). Percent-encoded UTF-8 (caf%C3%A9%20photo.jpg) or the name's raw UTF-8 bytes (café photo.jpg, as curl sends it). A value with any byte over 0x7F is raw text and is not percent-decoded (its % stays a %); raw bytes that are not valid UTF-8 are read as Latin-1.",
  ),
  'X-Client-Upload-Id': header('X-Client-Upload-Id', false, 'Makes the upload idempotent: sent again, the first result is answered and nothing is stored twice.'),
};

const h = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ description, schema });

export const headers = {
  'Retry-After': h('Seconds to wait before trying again.', { type: 'integer', minimum: 0 }),
  Location: h('An absolute URL on the network the request came in on.', { type: 'string', format: 'uri' }),
  'Tus-Resumable': h('The TUS version.', { type: 'string', const: '1.0.0' }),
  'Tus-Version': h('The TUS versions served.'),
  'Tus-Extension': h('The TUS extensions served.'),
  'Tus-Max-Size': h('The largest file, in bytes.', { type: 'integer' }),
  'Upload-Offset': h('The bytes stored so far.', { type: 'integer', minimum: 0 }),
  'Upload-Length': h('The size of the whole file.', { type: 'integer', minimum: 0 }),
  'Upload-Expires': h('When the upload expires (an HTTP date).'),
  'Upload-Metadata': h('The metadata the upload was created with.'),
  'Accept-Ranges': h('Byte ranges are served.', { type: 'string', const: 'bytes' }),
  'Content-Range': h('The range sent, or the size of the file (416).'),
  'Content-Disposition': h('An attachment, with the file name (RFC 6266).'),
  'X-Request-Id': h('A random id of this request, to quote in a report.'),
  Allow: h('The methods the path takes.'),
};

const json = (schema: string) => ({ content: { 'application/json': { schema: schemaRef(schema) } } });

/** Answers of the middleware, shared by many routes. */
export const responses = {
  Unauthorized: {
    description: `No usable key: ${AUTH_CODES.join(', ')}.`,
    ...json('Unauthorized'),
  },
  RateLimited: {
    description: 'rate_limited: a limit of the account, of the Tor circuit or I2P destination, or the brake on wrong keys.',
    headers: { 'Retry-After': headerRef('Retry-After') },
    ...json('RateLimited'),
  },
  BodyTooSlow: { description: 'body_too_slow: the body arrived slower than the service waits for; the connection is closed.', ...json('Error') },
  Unavailable: {
    description: 'maintenance (the body says MAINTENANCE), or too_many_connections on this listener.',
    headers: { 'Retry-After': headerRef('Retry-After') },
    content: { 'application/json': { schema: { anyOf: [schemaRef('Maintenance'), schemaRef('Error')] } } },
  },
  TooManyConnections: {
    description: 'too_many_connections: this listener is full.',
    headers: { 'Retry-After': headerRef('Retry-After') },
    ...json('Error'),
  },
  InternalError: {
    description: 'internal_error: something went wrong on our side; quote the request id.',
    headers: { 'X-Request-Id': headerRef('X-Request-Id') },
    ...json('Error'),
  },
  V1Other: {
    description:
      'Every other 4xx and 5xx, as the v1 specification gives them ("500 stands for all other 4XX and 5XX statuses"), the body keeping the precise code: rate_limited and body_too_slow (with Retry-After), method_not_allowed (another method on a v1 path, with Allow), internal_error (with request_id), and any other refusal.',
    headers: { 'Retry-After': headerRef('Retry-After'), Allow: headerRef('Allow'), 'X-Request-Id': headerRef('X-Request-Id') },
    ...json('Error'),
  },
};

export type StandardResponse = keyof typeof responses;
