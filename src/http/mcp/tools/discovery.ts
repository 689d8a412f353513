// The tools that need no key: whether the service is up, how to use it, what it offers.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { capabilities } from '../capabilities.ts';
import type { ToolCall } from '../call.ts';
import { guide } from '../guide.ts';
import { output } from '../output.ts';
import { open } from '../result.ts';

/** The tools here, by name: a call of any other tool needs a key. */
export const KEYLESS_TOOLS = ['status', 'get_started', 'get_capabilities'] as const;

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

export function discoveryTools(server: McpServer, call: ToolCall): void {
  const { deps } = call;

  server.registerTool(
    'status',
    {
      title: 'Service status',
      description: 'Whether the service is up (UP) or in maintenance (MAINTENANCE, with retry_after in seconds), and its version. Needs no key.',
      outputSchema: output({
        status: z.enum(['UP', 'MAINTENANCE']),
        service: z.string(),
        version: z.string(),
        timestamp: z.string(),
        maintenance: z.boolean(),
        retry_after: z.number().int().optional(),
      }),
      annotations: { title: 'Service status', ...readOnly },
    },
    open(call, async () => {
      const down = await deps.maintenance.isOn();
      return {
        status: down ? 'MAINTENANCE' : 'UP',
        service: deps.service.name,
        version: deps.service.version,
        timestamp: new Date().toISOString(),
        maintenance: down,
        ...(down ? { retry_after: deps.maintenance.retryAfterS } : {}),
      };
    }),
  );

  server.registerTool(
    'get_started',
    {
      title: 'How to use this service',
      description: 'Read this first: the whole workflow (session, upload, job, poll, results) step by step, with the tools, the exact REST calls and the headers. Needs no key.',
      outputSchema: output({ guide: z.string(), api_url: z.string(), key_header: z.literal('X-Api-Key') }),
      annotations: { title: 'How to use this service', ...readOnly },
    },
    open(call, () => ({ guide: guide(deps, call.origin), api_url: `${call.origin}/api`, key_header: 'X-Api-Key' as const })),
  );

  server.registerTool(
    'get_capabilities',
    {
      title: 'What the service offers',
      description: 'Products, the steps of their sessions, input and output formats, every job option and the limits in force. Needs no key.',
      outputSchema: output({
        service: z.string(),
        version: z.string(),
        products: z.array(z.looseObject({ product: z.string(), start_tool: z.string() })),
        input_formats: z.looseObject({}),
        convert: z.looseObject({}),
        hide: z.looseObject({}),
        job_states: z.looseObject({}),
        limits: z.looseObject({}),
      }),
      annotations: { title: 'What the service offers', ...readOnly },
    },
    open(call, () => capabilities(deps)),
  );
}
