// Deleting a session: its files and whatever its jobs left are destroyed now, not when the
// session would have expired. Refused while a job is queued or running on it (that job reads
// the files), so nothing is pulled from under a running job.
import type { Account, SessionType } from './ports.ts';
import type { JobResults } from './job-results.ts';
import type { Sessions } from './sessions.ts';
import type { Uploads } from './uploads.ts';

export interface SessionDeleted {
  upload_uid: string;
  type: SessionType;
  deleted: true;
  files_destroyed: number;
  jobs_destroyed: number;
}

export async function deleteSession(
  d: { sessions: Sessions; uploads: Uploads; results: JobResults },
  account: Account,
  uploadUid: string,
  types?: readonly SessionType[],
): Promise<SessionDeleted> {
  const session = await d.sessions.get(account, uploadUid, types);
  await d.sessions.assertIdle(session); // 409 session_busy, naming the job
  // Ended first, in the same tick as the check: no upload or job start gets in after it.
  await d.sessions.end(session);
  const files = await d.uploads.destroyIn(session);
  const jobs = await d.results.destroyOf(session);
  return { upload_uid: session.id, type: session.type, deleted: true, files_destroyed: files, jobs_destroyed: jobs };
}
