// Sessions: create one per task, list its files, delete it when done.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { deleteSession } from '../../../domain/session-deletion.ts';
import { SESSION_TYPES } from '../../../domain/sessions.ts';
import type { SessionType } from '../../../domain/ports.ts';
import type { ToolCall } from '../call.ts';
import { output } from '../output.ts';
import { keyed } from '../result.ts';
import { deletedShape, filesShape, sessionShape } from '../shapes.ts';
import { uploadUid } from './inputs.ts';
import { fileView, sessionView } from '../../api/session-views.ts';

export function sessionTools(server: McpServer, call: ToolCall): void {
  const { sessions, uploads, results } = call.deps;

  server.registerTool(
    'create_session',
    {
      title: 'Create a session',
      description:
        'Starts a task: a session groups the files of one job. type is hide, reveal, analyse or convert. Keep the upload_uid; the session lives 24 hours unless deleted.',
      inputSchema: z.strictObject({ type: z.enum(SESSION_TYPES as [SessionType, ...SessionType[]]) }),
      outputSchema: output(sessionShape),
      annotations: { title: 'Create a session', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    keyed(call, async ({ type }: { type: SessionType }, account) => sessionView(await sessions.create(account, type), sessions.limits)),
  );

  server.registerTool(
    'list_session_files',
    {
      title: 'Files of a session',
      description: 'The files uploaded to a session so far, with their step and size; status is completed once every byte arrived.',
      inputSchema: z.strictObject({ upload_uid: uploadUid }),
      outputSchema: output(filesShape),
      annotations: { title: 'Files of a session', readOnlyHint: true, openWorldHint: false },
    },
    keyed(call, async ({ upload_uid }: { upload_uid: string }, account) => {
      const session = await sessions.get(account, upload_uid);
      return { upload_uid: session.id, files: (await uploads.listFiles(session)).map(fileView) };
    }),
  );

  server.registerTool(
    'delete_session',
    {
      title: 'Delete a session',
      description:
        "Destroys a session now: its uploaded files, and the results and reports of its finished jobs (their downloads answer 410 from then on). Refused with session_busy while a job is queued or running on it.",
      inputSchema: z.strictObject({ upload_uid: uploadUid }),
      outputSchema: output(deletedShape),
      annotations: { title: 'Delete a session', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    keyed(call, async ({ upload_uid }: { upload_uid: string }, account) => ({ ...(await deleteSession({ sessions, uploads, results }, account, upload_uid)) })),
  );
}
