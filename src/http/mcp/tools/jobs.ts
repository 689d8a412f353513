// Starting jobs and polling them: the domain's own checks (422 for a bad option, 409 for a job
// already running) come back as tool errors; each start counts against the account's job
// starts an hour, as a REST start does.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CARDS, bodyStarts } from '../../../products/index.ts';
import { jobView, startView } from '../../api/results.ts';
import type { ToolCall } from '../call.ts';
import { output } from '../output.ts';
import { keyed } from '../result.ts';
import { jobShape, startShape } from '../shapes.ts';
import { START_INPUTS, uploadUid } from './inputs.ts';

const MAX_WAIT_S = 30;
const starts = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export function jobTools(server: McpServer, call: ToolCall): void {
  const { jobs, sessions } = call.deps;
  // each start goes through its product's REST body (the range of expiry is checked there)
  const begin = bodyStarts({ sessions, starts: call.deps.starts, expiryMaxMs: jobs.limits.expiryMaxMs });
  const startOutput = output(startShape);

  for (const card of CARDS) {
    server.registerTool(
      card.tool.name,
      { title: card.tool.title, description: card.tool.description, inputSchema: START_INPUTS[card.product], outputSchema: startOutput, annotations: { title: card.tool.title, ...starts } },
      keyed(call, async (args: Record<string, unknown>, account) => startView(await call.startJob(account, () => begin[card.product](account, withoutUnset(args))))),
    );
  }

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
