import { JobStarted } from '../../http/schemas/jobs.ts';
import type { Operation } from '../../http/openapi/operation.ts';
import { BYTES, DOWNLOAD, RESULTS, START, START_BODY, downloadAnswers, jobOps, sessionOps } from '../../http/openapi/product-operations.ts';
import { StegoResults } from '../../http/schemas/results.ts';
import { sessionBody } from '../../http/schemas/sessions.ts';
import { hideStart, revealStart } from './start.ts';

/** The tag and the components the document names for hiding and revealing: request bodies and answers. */
export function stegoSchemas(expiryMaxMs: number) {
  return { tag: { name: 'hide-reveal', description: 'Hide files in a cover; reveal them with the passphrase.' }, requests: { HideRevealSessionBody: sessionBody(['hide', 'reveal']), HideJobBody: hideStart.body(expiryMaxMs), RevealJobBody: revealStart.body(expiryMaxMs) }, answers: { StegoResults } };
}

/** The REST operations of hiding and revealing, for the OpenAPI document (http/openapi/document.ts). */
export function stegoOperations(expiryMaxMs: number): Operation[] {
  return [
    ...sessionOps('/api', 'HideReveal', 'hide-reveal', sessionBody(['hide', 'reveal']), true),
    {
      method: 'post',
      path: '/api/job',
      operationId: 'startHideRevealJob',
      tag: 'hide-reveal',
      summary: 'Start a hide or a reveal',
      description: "The session's type says which: a hide session takes the hide body, a reveal session the reveal body.",
      auth: 'key',
      body: { schema: [hideStart.body(expiryMaxMs), revealStart.body(expiryMaxMs)], required: true },
      readsJson: true,
      answers: { 201: { description: 'The job is queued.', schema: JobStarted } },
      // a cover the media engine refuses: its code, at the status that code has everywhere
      errors: [...START, ...START_BODY, 'missing_password', 'invalid_password', 'no_secret', 'no_cover', 'no_file', 'secret_too_large', 'decoy_incomplete', 'decoy_same_password', 'decoy_too_small', 'limit_exceeded', 'too_much_memory', 'unsupported_media', 'corrupt', 'empty', 'engine_failed'],
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
  ];
}
