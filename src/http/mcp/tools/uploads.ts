// MCP carries JSON, not file bytes: this tool says where and how to send a file over HTTP,
// for the session and step given, on the request's origin. The key is never echoed back; the
// instructions name the header and leave its value to the caller.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { stepRules } from '../../../domain/sessions.ts';
import { cleanName } from '../../../domain/uploads.ts';
import type { ToolCall } from '../call.ts';
import { output } from '../output.ts';
import { keyed } from '../result.ts';
import { uploadUid } from './inputs.ts';

// Where the agent puts its own key in the headers it is told to send: no tool ever echoes a key.
const YOUR_KEY = '<your API key>';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
// percent-encoded, quotes and brackets too: the value also goes into a shell example
const headerName = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const headers = z.record(z.string(), z.string());

const instructionsShape = {
  upload_uid: z.string(),
  session_type: z.string(),
  step: z.number().int(),
  what: z.string().describe('what this step takes'),
  files_allowed: z.number().int().describe('files this step takes in all'),
  direct: z.object({
    method: z.literal('POST'),
    url: z.string(),
    headers,
    body: z.string(),
    max_bytes: z.number().int(),
    example: z.string(),
  }),
  tus: z.object({
    endpoint: z.string(),
    version: z.literal('1.0.0'),
    create_headers: headers,
    patch_headers: headers,
    max_bytes: z.number().int(),
    chunk_max_bytes: z.number().int(),
  }),
  then: z.string(),
};

export function uploadTools(server: McpServer, call: ToolCall): void {
  const { uploads } = call.deps;
  server.registerTool(
    'get_upload_instructions',
    {
      title: 'How to upload a file',
      description:
        'The direct-upload URL and headers, and the TUS endpoint, for one file of a session at a step (1: the input, the secret(s) or the file to reveal from; 2: the cover of a hide). Checks the session, the step and the room left first. Send the bytes over HTTP with your X-Api-Key header, then start the job.',
      inputSchema: z.strictObject({
        upload_uid: uploadUid,
        step: z.number().int().min(1).max(2),
        file_name: z.string().min(1).max(1024).optional().describe('the name the file should keep'),
        size: z.number().int().min(0).optional().describe('bytes, to be told which way fits'),
      }),
      outputSchema: output(instructionsShape),
      annotations: { title: 'How to upload a file', readOnlyHint: true, openWorldHint: false },
    },
    keyed(call, async ({ upload_uid, step, file_name, size }: { upload_uid: string; step: number; file_name?: string; size?: number }, account) => {
      const { session } = await uploads.admit(account, { uploadUid: upload_uid, step, size }); // no side effect: checks only
      const limits = uploads.limits;
      const rule = stepRules(session.type, limits.sessionMaxFiles)[step];
      const name = file_name === undefined ? undefined : cleanName(file_name);
      const directMax = Math.min(limits.directUploadMax, limits.fileMax);
      const url = new URL('/api/upload', call.origin).toString();
      const direct: Record<string, string> = {
        'X-Api-Key': YOUR_KEY,
        'X-Upload-Uid': session.id,
        'X-Upload-Step': String(step),
        ...(name ? { 'X-Filename': headerName(name) } : {}),
        'Content-Type': 'application/octet-stream',
      };
      const metadata = [`upload_uid ${b64(session.id)}`, `step ${b64(String(step))}`, ...(name ? [`name ${b64(name)}`] : [])].join(',');
      return {
        upload_uid: session.id,
        session_type: session.type,
        step,
        what: rule.what,
        files_allowed: rule.max,
        direct: {
          method: 'POST' as const,
          url,
          headers: direct,
          body: `the raw bytes of the file, with Content-Length (no chunked encoding); at most ${directMax} bytes, else use tus`,
          max_bytes: directMax,
          example: `curl --fail -X POST ${Object.entries(direct).map(([k, v]) => `-H '${k}: ${v}'`).join(' ')} --data-binary @<file> ${url}`,
        },
        tus: {
          endpoint: new URL('/api/tus', call.origin).toString(),
          version: '1.0.0' as const,
          create_headers: { 'X-Api-Key': YOUR_KEY, 'Tus-Resumable': '1.0.0', 'Upload-Length': size === undefined ? '<file size in bytes>' : String(size), 'Upload-Metadata': metadata },
          patch_headers: { 'X-Api-Key': YOUR_KEY, 'Tus-Resumable': '1.0.0', 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '<bytes sent so far>' },
          max_bytes: limits.fileMax,
          chunk_max_bytes: limits.chunkMax,
        },
        then: `Check with list_session_files that every file is completed, then start the job on upload_uid ${session.id}.`,
      };
    }),
  );
}
