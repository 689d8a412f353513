// The companion's MCP server: four whole-task tools over the REST API.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerAnalyseFile } from './tools/analyse-file.ts';
import { registerConvertFile } from './tools/convert-file.ts';
import { registerHideFile } from './tools/hide-file.ts';
import { registerRevealFile } from './tools/reveal-file.ts';
import type { ToolDeps } from './tools/run-tool.ts';

export const VERSION = '0.1.0';

export function createServer(deps: ToolDeps): McpServer {
  const server = new McpServer(
    { name: 'obscura-companion', title: 'Obscura (local companion)', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools that run whole Obscura tasks on local files: analyse_file, hide_file, reveal_file, convert_file. ' +
        'Give absolute paths. Outputs are saved beside the input (or in output_dir) and never overwrite a file. ' +
        'On failure a tool answers {"error": "<code>", "message": "..."}; the message says what to change.',
    },
  );
  registerAnalyseFile(server, deps);
  registerHideFile(server, deps);
  registerRevealFile(server, deps);
  registerConvertFile(server, deps);
  return server;
}
