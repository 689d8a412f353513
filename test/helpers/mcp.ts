// The SDK's own MCP client over Streamable HTTP, pinned to protocol revision 2025-03-26 (the
// client asks for the newest it knows; a fetch wrapper asks for 2025-03-26 instead and records
// what went over the wire).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const PINNED = '2025-03-26';

export interface Wire {
  /** The initialize answer's result, as it came. */
  initialize?: { protocolVersion: string; serverInfo: { name: string; version: string }; instructions?: string };
  /** Each request's method and MCP-Protocol-Version header. */
  requests: { method: string; version: string | null }[];
}

export interface ToolAnswer {
  isError?: boolean;
  structuredContent?: any;
  content: { type: string; text?: string }[];
}

export async function mcpClient(origin: string, key?: string, version = PINNED) {
  const wire: Wire = { requests: [] };
  const pinned = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    let body = init?.body;
    let initializing = false;
    if (typeof body === 'string') {
      const msg = JSON.parse(body);
      if (msg.method === 'initialize') {
        initializing = true;
        msg.params.protocolVersion = version;
        body = JSON.stringify(msg);
      }
    }
    wire.requests.push({ method: init?.method ?? 'GET', version: new Headers(init?.headers).get('mcp-protocol-version') });
    const res = await fetch(url, { ...init, body });
    if (initializing && res.ok) wire.initialize = ((await res.clone().json()) as { result: Wire['initialize'] }).result;
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', origin), {
    requestInit: key === undefined ? undefined : { headers: { 'X-Api-Key': key } },
    fetch: pinned,
  });
  const client = new Client({ name: 'obscura-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    wire,
    call: async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolAnswer,
    close: () => client.close(),
  };
}
