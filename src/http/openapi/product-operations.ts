// The operations every product has, written alike for each (products/<product>/operations.ts
// give theirs): its sessions, its job's start, poll, results and downloads.
import type { ErrorCode } from '../../domain/errors.ts';
import { JobView } from '../schemas/jobs.ts';
import { Session, SessionDeleted, SessionFiles, type SessionBody } from '../schemas/sessions.ts';
import type { Answer, Operation } from './operation.ts';

export const BYTES = { 'application/octet-stream': {} };
export const TUS_BYTES = { 'application/offset+octet-stream': {} };

export const SESSION: ErrorCode[] = ['session_not_found', 'session_expired'];
export const POLL: ErrorCode[] = [...SESSION, 'job_not_found', 'invalid_wait'];
export const RESULTS: ErrorCode[] = ['session_not_found', 'job_not_found', 'job_not_finished', 'session_expired', 'results_expired'];
export const DOWNLOAD: ErrorCode[] = ['asset_not_found', 'results_expired', 'range_not_satisfiable'];
export const START: ErrorCode[] = ['session_not_found', 'not_available', 'session_used', 'upload_in_progress', 'session_expired'];
export const START_BODY: ErrorCode[] = ['missing_upload_uid', 'invalid_expiry', 'unknown_option', 'invalid_option', 'no_files'];

export const downloadAnswers = (content: Record<string, Record<string, unknown>>): Record<number, Answer> => ({
  200: { description: 'The file, as an attachment.', content, headers: ['Content-Disposition', 'Accept-Ranges'] },
  206: { description: 'The one byte range asked for.', content, headers: ['Content-Range', 'Content-Disposition', 'Accept-Ranges'] },
});

/** Sessions of one product: create, describe, list its files. */
export function sessionOps(prefix: string, name: string, tag: string, body: SessionBody, bodyRequired: boolean): Operation[] {
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
export function jobOps(o: { prefix: string; name: string; tag: string; results: Operation; download: Operation }): Operation[] {
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
