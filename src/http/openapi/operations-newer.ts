// The newer interface's routes (API-NEWER.md), one row each, with the schemas their routes
// validate with and every status they answer beside those of the middleware (document.ts).
import { startBodies } from '../../products/index.ts';
import { JobStarted, JobView } from '../schemas/jobs.ts';
import { AnalyseResult, ConvertResults, StegoResults } from '../schemas/results.ts';
import { Account, Status } from '../schemas/service.ts';
import { sessionBody, type SessionBody, DirectUploadResult, HideRevealSessionBody, Session, SessionDeleted, SessionFiles } from '../schemas/sessions.ts';
import type { ErrorCode } from '../../domain/errors.ts';
import type { Answer, Operation } from './operation.ts';

const BYTES = { 'application/octet-stream': {} };
const TUS_BYTES = { 'application/offset+octet-stream': {} };

const SESSION: ErrorCode[] = ['session_not_found', 'session_expired'];
const POLL: ErrorCode[] = [...SESSION, 'job_not_found', 'invalid_wait'];
const RESULTS: ErrorCode[] = ['session_not_found', 'job_not_found', 'job_not_finished', 'session_expired', 'results_expired'];
const DOWNLOAD: ErrorCode[] = ['asset_not_found', 'results_expired', 'range_not_satisfiable'];
const START: ErrorCode[] = ['session_not_found', 'not_available', 'session_used', 'upload_in_progress', 'session_expired'];
const START_BODY: ErrorCode[] = ['missing_upload_uid', 'invalid_expiry', 'unknown_option', 'invalid_option', 'no_files'];

const downloadAnswers = (content: Record<string, Record<string, unknown>>): Record<number, Answer> => ({
  200: { description: 'The file, as an attachment.', content, headers: ['Content-Disposition', 'Accept-Ranges'] },
  206: { description: 'The one byte range asked for.', content, headers: ['Content-Range', 'Content-Disposition', 'Accept-Ranges'] },
});

/** Sessions of one product: create, describe, list its files. */
function sessionOps(prefix: string, name: string, tag: string, body: SessionBody, bodyRequired: boolean): Operation[] {
  return [
    {
      method: 'post',
      path: `${prefix}/session`,
      operationId: `create${name}Session`,
      tag,
      summary: `Create a ${tag} session`,
      description: 'A session groups the files of one job and lives 24 hours.',
      auth: 'key',
      body: { schema: body, required: bodyRequired },
      readsJson: true,
      answers: { 201: { description: 'The new session.', schema: Session } },
      errors: ['unknown_field', 'invalid_session_type'],
    },
    {
      method: 'get',
      path: `${prefix}/session/{uid}`,
      operationId: `get${name}Session`,
      tag,
      summary: `Describe a ${tag} session`,
      auth: 'key',
      params: ['uid'],
      answers: { 200: { description: 'The session.', schema: Session } },
      errors: SESSION,
    },
    {
      method: 'delete',
      path: `${prefix}/session/{uid}`,
      operationId: `delete${name}Session`,
      tag,
      summary: `Delete a ${tag} session`,
      description: "Its files and its jobs' results are destroyed now, not when the session would have expired.",
      auth: 'key',
      params: ['uid'],
      answers: { 200: { description: 'Deleted.', schema: SessionDeleted } },
      errors: [...SESSION, 'session_busy'],
    },
    {
      method: 'get',
      path: `${prefix}/session/{uid}/files`,
      operationId: `list${name}SessionFiles`,
      tag,
      summary: `List the files of a ${tag} session`,
      auth: 'key',
      params: ['uid'],
      answers: { 200: { description: 'Its files; a file is completed once all its bytes arrived.', schema: SessionFiles } },
      errors: SESSION,
    },
  ];
}

/** Poll, results and download of one product. */
function jobOps(o: { prefix: string; name: string; tag: string; results: Operation; download: Operation }): Operation[] {
  return [
    {
      method: 'get',
      path: `${o.prefix}/job/{uid}`,
      operationId: `poll${o.name}Job`,
      tag: o.tag,
      summary: `Poll the ${o.tag} job of a session`,
      description: 'With ?wait=N the answer comes when the job changes state, or after N seconds.',
      auth: 'key',
      params: ['uid', 'wait'],
      answers: { 200: { description: "The job's state; Retry-After while it runs.", schema: JobView, headers: ['Retry-After'] } },
      errors: POLL,
    },
    o.results,
    o.download,
  ];
}

export function newerOperations(expiryMaxMs: number): Operation[] {
  const starts = startBodies(expiryMaxMs);
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
    ...sessionOps('/api', 'HideReveal', 'hide-reveal', HideRevealSessionBody, true),
    ...sessionOps('/api/analyse', 'Analyse', 'analyse', sessionBody(['analyse']), false),
    ...sessionOps('/api/convert', 'Convert', 'convert', sessionBody(['convert']), false),
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
    {
      method: 'post',
      path: '/api/job',
      operationId: 'startHideRevealJob',
      tag: 'hide-reveal',
      summary: 'Start a hide or a reveal',
      description: "The session's type says which: a hide session takes the hide body, a reveal session the reveal body.",
      auth: 'key',
      body: { schema: [starts.hide, starts.reveal], required: true },
      readsJson: true,
      answers: { 201: { description: 'The job is queued.', schema: JobStarted } },
      // a cover the media engine refuses: its code, at the status that code has everywhere
      errors: [...START, ...START_BODY, 'missing_password', 'invalid_password', 'no_secret', 'no_cover', 'no_file', 'secret_too_large', 'limit_exceeded', 'too_much_memory', 'unsupported_media', 'corrupt', 'empty', 'engine_failed'],
    },
    ...jobOps({
      prefix: '/api',
      name: 'HideReveal',
      tag: 'hide-reveal',
      results: {
        method: 'get',
        path: '/api/job/{uid}/results',
        operationId: 'getHideRevealResults',
        tag: 'hide-reveal',
        summary: 'The files a hide or reveal made',
        auth: 'key',
        params: ['uid'],
        answers: { 200: { description: 'The result files.', schema: StegoResults } },
        errors: RESULTS,
      },
      download: {
        method: 'get',
        path: '/api/job/download/{asset}',
        operationId: 'downloadHideRevealResult',
        tag: 'hide-reveal',
        summary: 'Download a result file of a hide or reveal',
        auth: 'key',
        params: ['asset', 'Range'],
        answers: downloadAnswers(BYTES),
        errors: DOWNLOAD,
      },
    }),
    {
      method: 'post',
      path: '/api/analyse/job',
      operationId: 'startAnalyseJob',
      tag: 'analyse',
      summary: 'Start an analysis',
      auth: 'key',
      body: { schema: starts.analyse, required: true },
      readsJson: true,
      answers: { 201: { description: 'The job is queued.', schema: JobStarted } },
      errors: [...START, ...START_BODY],
    },
    ...jobOps({
      prefix: '/api/analyse',
      name: 'Analyse',
      tag: 'analyse',
      results: {
        method: 'get',
        path: '/api/analyse/result/{job}',
        operationId: 'getAnalyseResult',
        tag: 'analyse',
        summary: 'The result of an analysis, by job_uid',
        auth: 'key',
        params: ['job'],
        answers: { 200: { description: 'One item per file.', schema: AnalyseResult } },
        errors: ['job_not_found', 'job_not_finished', 'results_expired'],
      },
      download: {
        method: 'get',
        path: '/api/analyse/asset/{asset}',
        operationId: 'downloadAnalyseAsset',
        tag: 'analyse',
        summary: 'Download a picture an analysis made (display image, ELA, noise or copy-move map)',
        auth: 'key',
        params: ['asset', 'Range'],
        answers: downloadAnswers({ 'image/png': {}, 'image/jpeg': {} }),
        errors: DOWNLOAD,
      },
    }),
    {
      method: 'post',
      path: '/api/convert/job',
      operationId: 'startConvertJob',
      tag: 'convert',
      summary: 'Start a conversion',
      auth: 'key',
      body: { schema: starts.convert, required: true },
      readsJson: true,
      answers: { 201: { description: 'The job is queued.', schema: JobStarted } },
      errors: [...START, 'unsupported_media', ...START_BODY, 'limit_exceeded', 'output_too_large', 'too_much_memory'],
    },
    ...jobOps({
      prefix: '/api/convert',
      name: 'Convert',
      tag: 'convert',
      results: {
        method: 'get',
        path: '/api/convert/job/{uid}/results',
        operationId: 'getConvertResults',
        tag: 'convert',
        summary: 'The files a conversion made, and those that failed',
        auth: 'key',
        params: ['uid'],
        answers: { 200: { description: 'The result files.', schema: ConvertResults } },
        errors: RESULTS,
      },
      download: {
        method: 'get',
        path: '/api/convert/download/{asset}',
        operationId: 'downloadConvertResult',
        tag: 'convert',
        summary: 'Download a converted file',
        auth: 'key',
        params: ['asset', 'Range'],
        answers: downloadAnswers(BYTES),
        errors: DOWNLOAD,
      },
    }),
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
