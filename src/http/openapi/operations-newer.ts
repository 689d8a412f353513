// The newer interface's routes (API-NEWER.md), one row each, with the schemas their routes
// validate with and every status they answer beside those of the middleware (document.ts).
import { productOperations } from '../../products/operations.ts';
import { Account, Status } from '../schemas/service.ts';
import { DirectUploadResult } from '../schemas/sessions.ts';
import type { ErrorCode } from '../../domain/errors.ts';
import type { Operation } from './operation.ts';
import { BYTES, TUS_BYTES } from './product-operations.ts';

export function newerOperations(expiryMaxMs: number): Operation[] {
  return [
    {
      method: 'get',
      path: '/api/status',
      operationId: 'getStatus',
      tag: 'service',
      summary: 'Health check',
      auth: 'none',
      answers: { 200: { description: 'The service is up.', schema: Status } },
    },
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApi',
      tag: 'service',
      summary: 'This document',
      description: "The OpenAPI 3.1 description of both interfaces, with this network's origin as its server.",
      auth: 'none',
      answers: { 200: { description: 'The document.', content: { 'application/json': { type: 'object' } } } },
    },
    {
      method: 'get',
      path: '/api/account',
      operationId: 'getAccount',
      tag: 'service',
      summary: 'The account of the key (is my key good?)',
      auth: 'key',
      answers: { 200: { description: 'The account.', schema: Account } },
    },
    {
      method: 'post',
      path: '/api/upload',
      operationId: 'uploadFile',
      tag: 'uploads',
      summary: 'Upload one whole file (direct upload)',
      description: 'The raw file is the body, with Content-Length (a chunked body is 411). The same X-Client-Upload-Id sent again answers the first result.',
      auth: 'key',
      params: ['X-Upload-Uid', 'X-Upload-Step', 'X-Filename', 'X-Client-Upload-Id'],
      body: { content: BYTES, required: true, description: 'The file, any content type.' },
      answers: { 201: { description: 'The stored file.', schema: DirectUploadResult } },
      errors: [
        'invalid_content_length',
        'length_mismatch',
        'session_not_found',
        'session_busy',
        'session_used',
        'upload_in_progress',
        'session_expired',
        'length_required',
        'file_too_large',
        'missing_upload_uid',
        'invalid_step',
        'step_full',
        'invalid_name',
        'name_too_long',
        'invalid_client_upload_id',
      ],
      errorNotes: { 413: 'checked before the body is read' },
    },
    ...tusOperations(),
    ...productOperations(expiryMaxMs),
  ];
}

/** TUS 1.0.0 at /api/tus: creation, creation-with-upload, termination, expiration. */
function tusOperations(): Operation[] {
  // @tus/server's own refusals, not AppErrors
  const tus = { 412: 'tus_version_required: no Tus-Resumable: 1.0.0' };
  const upload: ErrorCode[] = ['upload_not_found', 'upload_expired'];
  const options = (path: string, operationId: string): Operation => ({
    method: 'options',
    path,
    operationId,
    tag: 'tus',
    summary: "The TUS server's capabilities (and CORS preflight)",
    auth: 'none',
    params: path.endsWith('{id}') ? ['id'] : [],
    answers: { 204: { description: 'Versions, extensions and the largest file.', headers: ['Tus-Resumable', 'Tus-Version', 'Tus-Extension', 'Tus-Max-Size'] } },
  });
  return [
    options('/api/tus', 'tusOptions'),
    options('/api/tus/{id}', 'tusUploadOptions'),
    {
      method: 'post',
      path: '/api/tus',
      operationId: 'tusCreate',
      tag: 'tus',
      summary: 'Create a TUS upload (with its first bytes, optionally)',
      description: 'Upload-Metadata carries upload_uid, step, name and client_upload_id, each base64.',
      auth: 'key',
      params: ['Tus-Resumable', 'Upload-Length', 'Upload-Metadata'],
      body: { content: TUS_BYTES, required: false, description: 'The first bytes (creation-with-upload).' },
      answers: { 201: { description: 'Created; Location is the upload URL, absolute, on this network.', headers: ['Location', 'Tus-Resumable', 'Upload-Expires', 'Upload-Offset'] } },
      errors: ['session_not_found', 'session_busy', 'session_used', 'session_expired', 'file_too_large', 'missing_upload_uid', 'invalid_step', 'step_full', 'invalid_name', 'name_too_long'],
      errorNotes: { 400: 'invalid_tus_header: Upload-Length or Upload-Metadata is not valid TUS', ...tus },
    },
    {
      method: 'head',
      path: '/api/tus/{id}',
      operationId: 'tusHead',
      tag: 'tus',
      summary: 'Where a TUS upload stands',
      auth: 'key',
      params: ['id', 'Tus-Resumable'],
      answers: { 200: { description: 'Its offset: PATCH the rest from there.', headers: ['Upload-Offset', 'Upload-Length', 'Upload-Metadata', 'Tus-Resumable'] } },
      errors: upload,
      errorNotes: tus,
    },
    {
      method: 'patch',
      path: '/api/tus/{id}',
      operationId: 'tusPatch',
      tag: 'tus',
      summary: 'Append bytes to a TUS upload',
      description: 'Bytes that arrived are kept, even when the request is cut or too slow.',
      auth: 'key',
      params: ['id', 'Tus-Resumable', 'Upload-Offset'],
      body: { content: TUS_BYTES, required: true, description: 'The next bytes, from Upload-Offset; chunks up to 5 MiB are usual.' },
      answers: { 204: { description: 'Appended.', headers: ['Upload-Offset', 'Tus-Resumable'] } },
      errors: [...upload, 'offset_mismatch', 'file_too_large'],
      errorNotes: { 400: 'invalid_tus_header: Upload-Offset or Content-Type is not valid TUS', ...tus },
    },
    {
      method: 'delete',
      path: '/api/tus/{id}',
      operationId: 'tusDelete',
      tag: 'tus',
      summary: 'Terminate a TUS upload (its bytes are destroyed)',
      auth: 'key',
      params: ['id', 'Tus-Resumable'],
      answers: { 204: { description: 'Terminated.', headers: ['Tus-Resumable'] } },
      errors: [...upload, 'session_busy'],
      errorNotes: tus,
    },
  ];
}
