// The v1 interface, as the v1 specification's tables give it: its operation names, shapes and statuses
// (401, 422 and 500 everywhere, 404 and 410 for resumableDelete alone; 500 stands for every
// other status, a 405 and a 429 too, with the precise code in the body).
import { AnalyseStarted, ChunkAccepted, FileMetadata, JobAnalyse, JobResult, JobStatus, MediaUrlCreated, ResumableChunk } from '../schemas/v1.ts';
import type { ErrorCode } from '../../domain/errors.ts';
import type { Operation } from './operation.ts';

// an unknown, deleted or expired media-url, on every resumable path but the DELETE
const MEDIA_URL: ErrorCode[] = ['upload_not_found', 'upload_deleted', 'upload_expired'];
const ANY_OTHER = { 422: 'and any other bad input' };
const resumableHeaders = ['Upload-Offset', 'Upload-Expires', 'Tus-Resumable'];

export function v1Operations(): Operation[] {
  return [
    {
      method: 'post',
      path: '/v1/job/analyse',
      operationId: 'analyse',
      tag: 'v1',
      summary: 'Start an analysis of a completed media-url',
      auth: 'v1',
      body: { schema: JobAnalyse, required: true },
      answers: { 200: { description: 'Started; Location holds the job-url.', schema: AnalyseStarted, headers: ['Location'] } },
      errors: ['unknown_field', 'invalid_key', 'invalid_field', 'upload_not_found', 'upload_incomplete', 'session_used'],
      errorNotes: ANY_OTHER,
    },
    {
      method: 'post',
      path: '/v1/job/status/{key}',
      operationId: 'status',
      tag: 'v1',
      summary: 'The status of a job',
      auth: 'v1',
      params: ['jobKey'],
      answers: { 200: { description: 'JobStatus; resultUrl is set once the job has completed.', schema: JobStatus } },
      errors: ['job_not_found'],
    },
    {
      method: 'get',
      path: '/v1/job/result/{key}',
      operationId: 'result',
      tag: 'v1',
      summary: 'The result of a job',
      auth: 'v1',
      params: ['resultKey'],
      answers: { 200: { description: 'JobResult.', schema: JobResult } },
      errors: ['job_not_found', 'job_failed', 'job_not_finished', 'results_expired'],
    },
    {
      method: 'post',
      path: '/v1/upload/create-media-url',
      operationId: 'createMediaUrl',
      tag: 'v1',
      summary: 'Create a media-url to upload a file to',
      auth: 'v1',
      body: { schema: FileMetadata, required: true },
      answers: { 201: { description: 'Location holds the media-url; its last path segment is the key.', schema: MediaUrlCreated, headers: ['Location', 'Upload-Expires', 'Tus-Resumable'] } },
      errors: ['invalid_name', 'invalid_size', 'name_too_long', 'file_too_large'],
      errorNotes: ANY_OTHER,
    },
    {
      method: 'head',
      path: '/v1/upload/resumable/{key}',
      operationId: 'resumableHead',
      tag: 'v1',
      summary: 'Where an upload stands',
      auth: 'v1',
      params: ['mediaKey'],
      answers: { 200: { description: 'Resume from Upload-Offset.', headers: [...resumableHeaders, 'Upload-Length'] } },
      errors: MEDIA_URL,
      errorNotes: ANY_OTHER,
    },
    {
      method: 'patch',
      path: '/v1/upload/resumable/{key}',
      operationId: 'resumablePatch',
      tag: 'v1',
      summary: 'Upload a chunk at its offset',
      description: 'A chunk is applied whole or not at all.',
      auth: 'v1',
      params: ['mediaKey'],
      body: { content: { 'multipart/form-data': {} }, schema: ResumableChunk, required: true },
      answers: {
        200: { description: 'Stored; more data expected.', schema: ChunkAccepted, headers: resumableHeaders },
        204: { description: 'Stored; the upload is complete (200 with the ChunkAccepted body instead where the service runs OBSCURA_V1_PATCH_DONE_STATUS=200, for old clients).', headers: resumableHeaders },
      },
      errors: [
        ...MEDIA_URL,
        'offset_mismatch',
        'invalid_offset',
        'upload_complete',
        'empty_chunk',
        'chunk_too_large',
        'chunk_past_end',
        'expected_multipart',
        'malformed_multipart',
        'body_incomplete',
        'too_many_parts',
        'unexpected_part',
        'missing_offset',
        'repeated_offset',
        'missing_file',
        'repeated_file',
      ],
      errorNotes: { 422: 'the current offset is in the message and in Upload-Offset' },
      errorHeaders: { 422: ['Upload-Offset', 'Tus-Resumable'] },
    },
    {
      method: 'delete',
      path: '/v1/upload/resumable/{key}',
      operationId: 'resumableDelete',
      tag: 'v1',
      summary: 'Unlink a media-url (its bytes are destroyed)',
      auth: 'v1',
      params: ['mediaKey'],
      answers: { 204: { description: 'Unlinked.', headers: ['Tus-Resumable'] } },
      errors: ['upload_not_found', 'upload_deleted', 'upload_expired'],
      errorNotes: { 422: 'invalid input' },
    },
  ];
}
