import { JobStarted } from '../../http/schemas/jobs.ts';
import type { Operation } from '../../http/openapi/operation.ts';
import { BYTES, DOWNLOAD, RESULTS, START, START_BODY, downloadAnswers, jobOps, sessionOps } from '../../http/openapi/product-operations.ts';
import { ConvertResults } from '../../http/schemas/results.ts';
import { sessionBody } from '../../http/schemas/sessions.ts';
import { convertStart } from './start.ts';

/** The tag and the components the document names for conversion: request bodies and answers. */
export function convertSchemas(expiryMaxMs: number) {
  return { tag: { name: 'convert', description: 'Images and videos to other formats.' }, requests: { ConvertSessionBody: sessionBody(['convert']), ConvertJobBody: convertStart.body(expiryMaxMs) }, answers: { ConvertResults } };
}

/** The REST operations of conversion, for the OpenAPI document (http/openapi/document.ts). */
export function convertOperations(expiryMaxMs: number): Operation[] {
  return [
    ...sessionOps('/api/convert', 'Convert', 'convert', sessionBody(['convert']), false),
    {
      method: 'post',
      path: '/api/convert/job',
      operationId: 'startConvertJob',
      tag: 'convert',
      summary: 'Start a conversion',
      auth: 'key',
      body: { schema: convertStart.body(expiryMaxMs), required: true },
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
