// Results of finished jobs, with download URLs on the request's origin (GET them with the
// X-Api-Key header). A job still running is a tool error job_not_finished with retry_after.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.ts';
import { analyseResult } from '../../../products/analyse/results.ts';
import { CARDS } from '../../../products/index.ts';
import type { ToolCall } from '../call.ts';
import { output } from '../output.ts';
import { keyed } from '../result.ts';
import { analyseShape, resultsShape } from '../shapes.ts';
import { uploadUid } from './inputs.ts';

export function resultTools(server: McpServer, call: ToolCall): void {
  const { jobs, results, sessions } = call.deps;

  server.registerTool(
    'get_job_results',
    {
      title: 'Results of a job',
      description:
        'The files a finished convert, hide or reveal job made: result_files with download_url (GET it with the X-Api-Key header; one Range is honoured), and for convert the files that failed and why. Results are destroyed at expires_at.',
      inputSchema: z.strictObject({ upload_uid: uploadUid }),
      outputSchema: output(resultsShape),
      annotations: { title: 'Results of a job', readOnlyHint: true, openWorldHint: false },
    },
    keyed(call, async ({ upload_uid }: { upload_uid: string }, account) => {
      const type = (await sessions.get(account, upload_uid)).type;
      const answer = CARDS.find((c) => c.product === type)?.results;
      if (!answer) {
        throw new AppError('analyse_session', 'An analysis answers one report per file: call get_analyse_result with this upload_uid.');
      }
      const job = await jobs.latest(account, upload_uid, type);
      return await answer(call.ctx, results, job);
    }),
  );

  server.registerTool(
    'get_analyse_result',
    {
      title: 'Result of an analysis',
      description:
        'One report per file of a finished analyse job: grade A-F, verdicts, findings and image assets (download_url, GET with the X-Api-Key header). A null verdict means the check gave no answer, never a clean result. Give job_uid, or upload_uid for the session\'s latest job.',
      inputSchema: z.strictObject({ job_uid: z.string().min(1).max(80).optional(), upload_uid: uploadUid.optional() }),
      outputSchema: output(analyseShape),
      annotations: { title: 'Result of an analysis', readOnlyHint: true, openWorldHint: false },
    },
    keyed(call, async ({ job_uid, upload_uid }: { job_uid?: string; upload_uid?: string }, account) => {
      if ((job_uid === undefined) === (upload_uid === undefined)) {
        throw new AppError('invalid_input', 'Give either job_uid or upload_uid.');
      }
      const job = job_uid !== undefined ? await jobs.byUid(account, job_uid, 'analyse') : await jobs.latest(account, upload_uid!, 'analyse');
      return await analyseResult(call.ctx, results, job);
    }),
  );
}
