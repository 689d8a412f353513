// Starting jobs and polling them: the domain's own checks (422 for a bad option, 409 for a job
// already running) come back as tool errors; each start counts against the account's job
// starts an hour, as a REST start does.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Product } from '../../../domain/ports.ts';
import { jobView, startView } from '../../api/results.ts';
import type { ToolCall } from '../call.ts';
import { output } from '../output.ts';
import { keyed } from '../result.ts';
import { jobShape, startShape } from '../shapes.ts';
import { analyseInput, convertInput, hideInput, revealInput, uploadUid } from './inputs.ts';

const MAX_WAIT_S = 30;
const starts = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export function jobTools(server: McpServer, call: ToolCall): void {
  const { jobs, sessions } = call.deps;
  const start = (product: Product) =>
    keyed(call, async (args: Record<string, unknown>, account) => startView(await call.startJob(account, () => jobs.create(account, product, withoutUnset(args)))));
  const startOutput = output(startShape);

  server.registerTool(
    'start_convert_job',
    {
      title: 'Start a conversion',
      description:
        'Converts every step-1 file of a convert session. Give image_format for images or video_format for videos; options are checked at once (an unknown format or a result over the limits is an error now, not later). Then poll get_job_status.',
      inputSchema: convertInput,
      outputSchema: startOutput,
      annotations: { title: 'Start a conversion', ...starts },
    },
    start('convert'),
  );
  server.registerTool(
    'start_analyse_job',
    {
      title: 'Start an analysis',
      description: 'Analyses every step-1 file of an analyse session (manipulation, hidden content, provenance, privacy; graded A-F). Then poll get_job_status and read get_analyse_result.',
      inputSchema: analyseInput,
      outputSchema: startOutput,
      annotations: { title: 'Start an analysis', ...starts },
    },
    start('analyse'),
  );
  server.registerTool(
    'start_hide_job',
    {
      title: 'Start hiding files',
      description:
        'Encrypts the step-1 secret file(s) of a hide session under the passphrase and hides them losslessly in the step-2 cover. A secret that does not fit is refused now, with capacity_bytes. Then poll get_job_status.',
      inputSchema: hideInput,
      outputSchema: startOutput,
      annotations: { title: 'Start hiding files', ...starts },
    },
    start('hide'),
  );
  server.registerTool(
    'start_reveal_job',
    {
      title: 'Start revealing files',
      description: 'Recovers the files hidden in the step-1 file of a reveal session with the passphrase. Then poll get_job_status.',
      inputSchema: revealInput,
      outputSchema: startOutput,
      annotations: { title: 'Start revealing files', ...starts },
    },
    start('reveal'),
  );

  server.registerTool(
    'get_job_status',
    {
      title: 'Job status',
      description: `The latest job of a session: status queued, processing, then completed, partial (some files failed) or failed; the reason is in progress_message. wait (seconds, at most ${MAX_WAIT_S}) holds the answer until the job changes state; while it runs, retry_after says how long to wait.`,
      inputSchema: z.strictObject({ upload_uid: uploadUid, wait: z.number().int().min(0).max(MAX_WAIT_S).optional() }),
      outputSchema: output(jobShape),
      annotations: { title: 'Job status', readOnlyHint: true, openWorldHint: false },
    },
    keyed(call, async ({ upload_uid, wait }: { upload_uid: string; wait?: number }, account) => {
      const product = (await sessions.get(account, upload_uid)).type; // a session's type is its product
      const job = await jobs.latest(account, upload_uid, product);
      return jobView(await jobs.settle(job, (wait ?? 0) * 1000, call.signal));
    }),
  );
}

/** The job body as REST would get it: options the caller left out are absent, not undefined. */
function withoutUnset(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}
