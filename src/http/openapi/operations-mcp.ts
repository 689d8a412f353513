// /mcp, the Model Context Protocol endpoint (Streamable HTTP, revision 2025-03-26), as
// http/mcp/route.ts serves it: stateless, JSON answers, POST only. It is mounted on the clearnet
// app alone; the document describes it wherever it is mounted, and nowhere else.
import { z } from 'zod';
import type { Operation } from './operation.ts';

const JsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.int()]).nullable().optional(),
    method: z.string().optional(),
    params: z.looseObject({}).optional(),
    result: z.unknown().optional(),
    error: z.looseObject({ code: z.int(), message: z.string() }).optional(),
  })
  .describe('A JSON-RPC 2.0 request, notification or response.');

export const McpMessage = z.union([JsonRpcMessage, z.array(JsonRpcMessage)]).describe('One JSON-RPC message, or a batch.');

const ORIGIN = { 403: 'origin_not_allowed: a web page of another origin (DNS-rebinding protection)' };
const stateless = (what: string): Operation['answers'] => ({
  405: { description: `The endpoint is stateless: ${what}. Allow: POST; the body is a JSON-RPC error.`, schema: McpMessage, headers: ['Allow'] },
});

export function mcpOperations(): Operation[] {
  const base = { path: '/mcp', tag: 'mcp', auth: 'optional-key' as const, passesMaintenance: true };
  return [
    {
      ...base,
      method: 'post',
      operationId: 'mcpPost',
      summary: 'JSON-RPC messages to the MCP tools',
      description:
        'The status and get-started tools need no key; the others read X-Api-Key and answer a refused key, a rate limit or maintenance as their own result. ' +
        'Every message that needs no key counts towards one shared limit a minute (past it, a working X-Api-Key is counted on its account instead); a message over it is a JSON-RPC error rate_limited, and a request none of whose messages was served is 429 with Retry-After. ' +
        "A batch's answers together stay within OBSCURA_MCP_BATCH_ANSWER_MAX (256 KiB by default); past it, each further answer is a JSON-RPC error batch_answer_too_large. " +
        'Accept must allow application/json and text/event-stream; answers are JSON.',
      body: { schema: McpMessage, required: true },
      answers: {
        200: { description: 'The JSON-RPC response(s).', schema: McpMessage },
        202: { description: 'Accepted: the body held only notifications or responses.' },
      },
      errorNotes: {
        400: 'not JSON, or not JSON-RPC (a JSON-RPC error body)',
        ...ORIGIN,
        406: 'Accept does not allow both application/json and text/event-stream',
        413: 'the body is over 256 KiB',
        415: 'the body is not application/json',
      },
    },
    { ...base, method: 'get', operationId: 'mcpStream', summary: 'Event stream of server messages (none: stateless)', answers: stateless('it opens no event stream'), errorNotes: ORIGIN },
    { ...base, method: 'delete', operationId: 'mcpEndSession', summary: 'End an MCP session (none: stateless)', answers: stateless('it keeps no session to end'), errorNotes: ORIGIN },
  ];
}
