// A job's own answers, the same for every product: the start's and the poll's. Each product's
// start body is its own (products/<product>/start.ts).
import { z } from 'zod';
import { PRODUCTS } from '../../domain/ports.ts';

const iso = z.iso.datetime();
const product = z.enum(PRODUCTS);
const state = z.enum(['queued', 'processing', 'completed', 'partial', 'failed']);

export const JobStarted = z.object({ job_uid: z.string(), job_type: product, status: state, upload_uid: z.string() });

export const JobView = z.object({
  job_uid: z.string(),
  job_type: product,
  status: state.describe('queued, processing, then completed, partial (some files failed) or failed.'),
  progress: z.int().min(0).max(100).describe('Percent; 100 once completed.'),
  progress_message: z.string().describe('The reason of a failure, in words.'),
  error: z.string().nullable(),
  retry_after: z.int().optional().describe('While the job runs: seconds to wait before the next poll (also in Retry-After).'),
  created_at: iso,
  started_at: iso.nullable(),
  finished_at: iso.nullable(),
  expires_at: iso.nullable().describe('When the results are destroyed.'),
});
