// One MCP server per HTTP request (the SDK's stateless pattern): it holds nothing between
// requests, and its tools see that request only.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolCall } from './call.ts';
import { discoveryTools } from './tools/discovery.ts';
import { jobTools } from './tools/jobs.ts';
import { resultTools } from './tools/results.ts';
import { sessionTools } from './tools/sessions.ts';
import { uploadTools } from './tools/uploads.ts';

const INSTRUCTIONS =
  'Obscura analyses, hides, reveals and converts images and videos. Call get_started first: it gives the whole workflow. File bytes are uploaded over HTTP, not through MCP (get_upload_instructions says how). Tools other than status, get_started and get_capabilities need the X-Api-Key header on the HTTP request.';

export function mcpServer(call: ToolCall): McpServer {
  const { service } = call.deps;
  const server = new McpServer({ name: service.name, title: 'Obscura', version: service.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  discoveryTools(server, call);
  sessionTools(server, call);
  uploadTools(server, call);
  jobTools(server, call);
  resultTools(server, call);
  return server;
}
