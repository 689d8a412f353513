// The v1 interface's shapes, as the v1 specification gives them: FileMetadata and JobAnalyse (checked by
// v1/upload.ts and v1/jobs.ts), JobStatus and JobResult, and what the service adds beside them.
import { z } from 'zod';
import { AnalyseItem } from './results.ts';
import { strictBody, withCodes } from './validate.ts';

const SIZE = 'size must be a whole number of bytes, at least 1.';

/** Extra fields are ignored, as they always were. The name's own rules are the upload's. */
export const FileMetadata = withCodes(
  z.object({
    name: z.string({ error: 'name is required: the file name, as a string.' }).min(1, { error: 'name is required: the file name, as a string.' }).describe('file name'),
    size: z
      .int({ error: (iss) => (iss.input === undefined ? 'size is required: the file size in bytes.' : SIZE) })
      .min(1, { error: SIZE })
      .meta({ format: 'int64', description: 'file size in bytes' }),
  }),
  { unknown: 'unknown_field', fields: { name: 'invalid_name', size: 'invalid_size' } },
);

const JOB_FIELDS = ['key', 'enableTips', 'enableExtraAnalysis'];
const KEY = 'key is required: the key of the media-url (the last part of its path).';
const required = (f: string) => z.boolean({ error: `${f} is required, true or false.` });

export const JobAnalyse = withCodes(
  strictBody(
    {
      key: z.string({ error: KEY }).min(1, { error: KEY }).describe('the key contained within the media-url'),
      enableTips: required('enableTips').describe('enable extra tips where available'),
      enableExtraAnalysis: required('enableExtraAnalysis').describe('enable extra deep analysis where available'),
    },
    'field',
    ` JobAnalyse has ${JOB_FIELDS.join(', ')}.`,
  ),
  { unknown: 'unknown_field', fields: { key: 'invalid_key', enableTips: 'invalid_field', enableExtraAnalysis: 'invalid_field' } },
);

const V1_STATUS = z.enum(['WAITING', 'PROCESSING', 'COMPLETED', 'FAILED']);

export const JobStatus = z.object({
  key: z.string().describe('the key contained within the job-url'),
  status: V1_STATUS,
  message: z.string(),
  resultUrl: z.string().describe('When the job has completed, the URL of its results; otherwise empty.'),
});

export const JobResult = z.object({
  key: z.string().describe('the key contained within the result-url'),
  results: z.object({ status: V1_STATUS, files: z.array(AnalyseItem) }),
});

/** the v1 specification gives the analyse answer no body; this one repeats the job-url. */
export const AnalyseStarted = z.object({ key: z.string(), status: V1_STATUS, jobUrl: z.url() });

export const MediaUrlCreated = z.object({ key: z.string(), location: z.url(), expires_at: z.iso.datetime() });

export const ChunkAccepted = z.object({ key: z.string(), offset: z.int() });

/**
 * The parts of a resumablePatch body (multipart/form-data). The route reads them with busboy as
 * they stream, each refusal naming the upload's offset, so this schema describes them for the
 * document rather than checks them.
 */
export const ResumableChunk = z.object({
  offset: z.int().min(0).meta({ format: 'int64' }).describe('Where the chunk starts: 0 first, then the Upload-Offset of the last answer.'),
  file: z.string().meta({ contentMediaType: 'application/octet-stream' }).describe('The chunk, at most 5 MiB.'),
});
