// One whole task against the REST API: session, uploads, job start, long-poll until the job
// settles. Each product's paths differ only in their prefix; the tools read the results.
import type { Api } from './api.ts';
import { CompanionError } from './errors.ts';
import type { InputFile } from './paths.ts';
import type { Progress } from './progress.ts';
import { uploadFile } from './upload.ts';

export type Product = 'hide' | 'reveal' | 'analyse' | 'convert';

const SESSION: Record<Product, [string, Record<string, string>]> = {
  hide: ['/api/session', { type: 'hide' }],
  reveal: ['/api/session', { type: 'reveal' }],
  analyse: ['/api/analyse/session', {}],
  convert: ['/api/convert/session', {}],
};
/** Job start is POST {prefix}; poll is GET {prefix}/{upload_uid}. */
export const JOB_PREFIX: Record<Product, string> = { hide: '/api/job', reveal: '/api/job', analyse: '/api/analyse/job', convert: '/api/convert/job' };

const TERMINAL = ['completed', 'partial', 'failed'];
// Results are fetched as soon as the job ends; an hour covers a slow download over Tor and
// keeps them on the service no longer than that.
const EXPIRY = '1h';
/** Shares of the progress bar: uploading, then the job, then the download. */
export const SHARE = { upload: 0.3, job: 0.6 };

export interface TaskInput {
  product: Product;
  files: { file: InputFile; step: 1 | 2 | 3 }[];
  /** The job's options besides upload_uid and expiry (a password, a format). */
  options: Record<string, unknown>;
  progress: Progress;
  signal?: AbortSignal;
}

export interface JobView {
  job_uid: string;
  status: string;
  progress?: number;
  progress_message?: string | null;
  error?: string | null;
}

/**
 * The whole task: `collect` reads the results and downloads them. Then the session is deleted,
 * which destroys its files and results on the service at once (best effort: a service
 * without DELETE, or a job still running after a cancel, leaves them to their expiry).
 */
export async function runTask<T>(api: Api, input: TaskInput, collect: (done: { uploadUid: string; job: JobView }) => Promise<T>): Promise<T> {
  const { product, progress, signal } = input;
  const [sessionPath, sessionBody] = SESSION[product];
  progress.report(0, 'Opening a session');
  const session = await api.json('POST', sessionPath, sessionBody, { signal });
  const uploadUid = String(session.upload_uid);
  try {
    const maxFile = Number(session.max_file_bytes ?? Infinity);
    const over = input.files.find((f) => f.file.size > maxFile);
    if (over) throw new CompanionError('file_too_large', `${over.file.path} is ${over.file.size} bytes; the service takes files of at most ${maxFile} bytes.`, { max_file_bytes: maxFile });
    const job = await upAndRun(api, input, uploadUid, Number(session.max_upload_bytes ?? 0));
    return await collect({ uploadUid, job });
  } finally {
    await api.call('DELETE', `${sessionPath}/${encodeURIComponent(uploadUid)}`, { retry: false, signal: AbortSignal.timeout(10_000), idleMs: 10_000 }).catch(() => {});
  }
}

async function upAndRun(api: Api, input: TaskInput, uploadUid: string, maxDirect: number): Promise<JobView> {
  const { product, progress, signal } = input;
  const total = input.files.reduce((n, f) => n + f.file.size, 0) || 1;
  let done = 0;
  for (const [i, { file, step }] of input.files.entries()) {
    const label = `Uploading file ${i + 1} of ${input.files.length}`;
    await uploadFile(api, file, { uploadUid, step, maxDirect }, signal, (sent) => progress.report((SHARE.upload * (done + sent)) / total, label));
    done += file.size;
  }

  const prefix = JOB_PREFIX[product];
  const start = await api.json('POST', prefix, { upload_uid: uploadUid, expiry: EXPIRY, ...input.options }, { signal, retry: false });
  let job: JobView = { job_uid: String(start.job_uid), status: String(start.status) };
  progress.report(SHARE.upload, 'Job queued');
  // ?wait holds each poll until the job changes state; sooner when progress is being shown
  const wait = progress.wanted ? 5 : 25;
  while (!TERMINAL.includes(job.status)) {
    job = await api.json('GET', `${prefix}/${encodeURIComponent(uploadUid)}?wait=${wait}`, undefined, { signal, idleMs: (wait + 60) * 1000 });
    const pct = typeof job.progress === 'number' ? job.progress : 0;
    progress.report(SHARE.upload + (SHARE.job * pct) / 100, job.progress_message || `Job ${job.status}`);
  }
  if (job.status === 'failed') {
    throw new CompanionError(job.error || 'job_failed', job.progress_message || 'The job failed on the service.', { job_uid: job.job_uid });
  }
  return job;
}

/** The download's share of the progress bar, for one result of `size` bytes. */
export function downloading(progress: Progress, size: number, label = 'Downloading the result'): (bytes: number) => void {
  const from = SHARE.upload + SHARE.job;
  return (bytes) => progress.report(from + ((1 - from) * bytes) / (size || 1), label);
}
