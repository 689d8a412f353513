import { JobStarted } from '../../http/schemas/jobs.ts';
import type { Operation } from '../../http/openapi/operation.ts';
import { DOWNLOAD, START, START_BODY, downloadAnswers, jobOps, sessionOps } from '../../http/openapi/product-operations.ts';
import { AnalyseResult } from '../../http/schemas/results.ts';
import { sessionBody } from '../../http/schemas/sessions.ts';
import { analyseStart } from './start.ts';

/** The tag and the components the document names for analysis: request bodies and answers. */
export function analyseSchemas(expiryMaxMs: number) {
  return { tag: { name: 'analyse', description: 'Manipulation, hidden content, privacy and provenance, graded A to F.' }, requests: { AnalyseSessionBody: sessionBody(['analyse']), AnalyseJobBody: analyseStart.body(expiryMaxMs) }, answers: { AnalyseResult } };
}

/** The REST operations of analysis, for the OpenAPI document (http/openapi/document.ts). */
export function analyseOperations(expiryMaxMs: number): Operation[] {
  return [
    ...sessionOps('/api/analyse', 'Analyse', 'analyse', sessionBody(['analyse']), false),
    {
      method: 'post',
      path: '/api/analyse/job',
      operationId: 'startAnalyseJob',
      tag: 'analyse',
      summary: 'Start an analysis',
      auth: 'key',
      body: { schema: analyseStart.body(expiryMaxMs), required: true },
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
  ];
}
