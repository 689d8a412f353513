// The views the tools answer, as zod shapes: the same objects the REST routes answer.
import { z } from 'zod';
import { HIDDEN_WITH } from '../../media/stego/foreign.ts';
import { SESSION_TYPES } from '../../domain/sessions.ts';
import { iso, isoOrNull } from './output.ts';

const JOB_STATES = ['queued', 'processing', 'completed', 'partial', 'failed'] as const;
const uid = z.string();

export const sessionShape = {
  upload_uid: uid,
  type: z.enum(SESSION_TYPES as [string, ...string[]]),
  max_upload_bytes: z.number().int().describe('largest direct upload'),
  max_file_bytes: z.number().int().describe('largest file (TUS)'),
  max_files: z.number().int(),
  created_at: iso,
  expires_at: iso,
};

export const fileShape = {
  storage_uid: uid,
  name: z.string(),
  step: z.number().int(),
  size: z.number().int(),
  status: z.enum(['completed', 'uploading']),
};

export const filesShape = { upload_uid: uid, files: z.array(z.object(fileShape)) };

export const startShape = {
  job_uid: uid,
  job_type: z.string(),
  status: z.enum(JOB_STATES),
  upload_uid: uid,
};

export const jobShape = {
  job_uid: uid,
  job_type: z.string(),
  status: z.enum(JOB_STATES),
  progress: z.number().describe('0 to 100'),
  progress_message: z.string(),
  error: z.string().nullable(),
  retry_after: z.number().int().optional().describe('seconds to wait before polling again; absent once the job has ended'),
  created_at: iso,
  started_at: isoOrNull,
  finished_at: isoOrNull,
  expires_at: isoOrNull.describe('when the results are destroyed'),
};

const resultFile = z.looseObject({
  asset_id: uid,
  name: z.string(),
  output_name: z.string().optional(),
  mime_type: z.string(),
  file_size: z.number().int(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  notes: z.array(z.string()),
  download_path: z.string(),
  download_url: z.string().describe('GET it with the X-Api-Key header'),
});

export const resultsShape = {
  job_uid: uid,
  job_type: z.string().optional(),
  status: z.enum(JOB_STATES),
  message: z.string().optional(),
  expires_at: isoOrNull,
  hidden_with: z.enum(HIDDEN_WITH).optional().describe('a reveal that found something: whose format it was'),
  result_files: z.array(resultFile),
  failed_files: z.array(z.object({ name: z.string(), error: z.string(), message: z.string() })).optional(),
};

export const analyseShape = {
  job_uid: uid,
  status: z.enum(JOB_STATES),
  message: z.string(),
  expires_at: isoOrNull,
  files: z.array(
    z.looseObject({ name: z.string(), grade: z.string().nullable().describe('A (clean) to F; null when the file could not be analysed') }).describe(
      'one report per file; a null verdict means the check gave no answer, never a clean result',
    ),
  ),
};

export const deletedShape = {
  upload_uid: uid,
  type: z.enum(SESSION_TYPES as [string, ...string[]]),
  deleted: z.literal(true),
  files_destroyed: z.number().int(),
  jobs_destroyed: z.number().int(),
};
