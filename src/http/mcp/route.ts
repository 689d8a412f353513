// /mcp: the MCP Streamable HTTP endpoint, stateless (no Mcp-Session-Id), answering JSON rather
// than SSE. Mounted on the clearnet app only. Koa sends the transport's answer, so it keeps the
// security headers, the access log and the error boundary of every other route.
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { NodeRequest } from 'srvx/node';
import type { AppState, Ctx } from '../context.ts';
import { ToolCall, type McpDeps } from './call.ts';
import { limitMessages } from './limits.ts';
import { mcpServer } from './server.ts';

export const MCP_PATH = '/mcp';

/** Whether a request path is the endpoint, as the (strict, case-sensitive) router matches it. */
export const isMcpPath = (path: string): boolean => path === MCP_PATH;

// Tool calls are small JSON; the transport answers 413 past this, before parsing.
const MAX_BODY = 256 * 1024;

export function mcpRoutes(deps: McpDeps): Router<AppState> {
  const router = newRouter();
  router.all(MCP_PATH, async (ctx) => {
    if (!originAllowed(ctx)) {
      ctx.status = 403;
      ctx.body = { error: 'origin_not_allowed', message: `Requests to ${MCP_PATH} from a web page are taken only from ${ctx.state.origin}.` };
      return;
    }
    if (ctx.method !== 'POST') return methodNotAllowed(ctx);

    const gone = new AbortController();
    const onClose = () => gone.abort();
    ctx.res.once('close', onClose); // the client went away: a long poll in a tool stops waiting
    const call = new ToolCall(ctx, deps, gone.signal);
    const server = mcpServer(call);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY });
    try {
      await server.connect(transport);
      const limits = limitMessages(transport, call, deps.config.abuse.mcpBatchAnswerMax);
      const response = await transport.handleRequest(new NodeRequest({ req: ctx.req, res: ctx.res }) as unknown as Request);
      const refused = limits.allRefused();
      ctx.status = refused ? 429 : response.status;
      if (refused) ctx.set('Retry-After', String(refused.retryAfterS));
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') ctx.set(name, value);
      });
      const text = await response.text();
      ctx.body = text === '' ? null : text; // 202 for notifications: no body
    } finally {
      ctx.res.off('close', onClose);
      await server.close();
    }
  });
  return router;
}

/**
 * DNS-rebinding protection: a browser names the page's origin in Origin, and a page on another
 * origin (a rebound name included) is refused. Clients that are not browsers send no Origin.
 */
function originAllowed(ctx: Ctx): boolean {
  const origin = ctx.get('origin');
  return origin === '' || origin === ctx.state.origin;
}

/**
 * GET would open an SSE stream for messages the server starts, and DELETE would end a session:
 * a stateless server has neither, so both answer 405, as the transport's specification allows
 * (and as the SDK's client expects).
 */
function methodNotAllowed(ctx: Ctx): void {
  ctx.status = 405;
  ctx.set('Allow', 'POST');
  ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: `Method not allowed: ${MCP_PATH} is stateless and takes JSON-RPC messages by POST only.` }, id: null };
}
