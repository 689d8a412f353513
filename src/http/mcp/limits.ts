// What one POST to /mcp may ask. Every message that needs no key (initialize, tools/list, the
// discovery tools) is counted before it runs, per clearnet client where the operator's proxy
// names it, else with every such message together (domain/rate-limits.ts keyless()); once those are used up, a caller
// that sends a working X-Api-Key goes on, counted on its account. Keyed tools are counted by
// their own key check (call.ts). And a batch's answers together stay
// within OBSCURA_MCP_BATCH_ANSWER_MAX: past it, each further answer is replaced by a short error.
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Refusal } from '../../domain/rate-limits.ts';
import { identify } from '../middleware/auth.ts';
import { visitorId } from '../visitor-id.ts';
import type { ToolCall } from './call.ts';
import { KEYLESS_TOOLS } from './tools/discovery.ts';

/** JSON-RPC's implementation-defined server error, as the SDK's transport uses for its own refusals. */
const SERVER_ERROR = -32000;

export interface MessageLimits {
  /** The refusal, when every request of the POST was refused by a limit (the HTTP answer is then 429). */
  allRefused(): Refusal | undefined;
}

/** Wraps the transport's delivery and sending; call after the server is connected to it. */
export function limitMessages(transport: WebStandardStreamableHTTPServerTransport, call: ToolCall, batchAnswerMax: number): MessageLimits {
  const deliver = transport.onmessage!.bind(transport);
  const send = transport.send.bind(transport);
  let requests = 0;
  let refused = 0;
  let last: Refusal | undefined;
  let account: Promise<string | undefined> | undefined;
  let answered = 0;

  transport.send = async (message, options) => {
    // the messages of a POST are all delivered before the first answer, so `requests` is whole here
    if (requests > 1 && (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message))) {
      let size = Buffer.byteLength(JSON.stringify(message));
      if (answered + size > batchAnswerMax) {
        message = error(message.id, `This answer was left out: the answers to this batch passed ${batchAnswerMax} bytes, the most one batch gets. Ask for it alone or in a smaller batch.`, { error: 'batch_answer_too_large', max_bytes: batchAnswerMax });
        size = Buffer.byteLength(JSON.stringify(message));
      }
      answered += size;
    }
    return send(message, options);
  };

  transport.onmessage = (message, extra) => {
    if (!isJSONRPCRequest(message)) return deliver(message, extra); // notifications: nothing to answer
    requests++;
    if (keyed(message)) return deliver(message, extra);
    void (async () => {
      const header = call.deps.config.web.clearnetClientHeader;
      const shared = call.deps.rateLimits.keyless(header ? visitorId(call.ctx, header) : undefined);
      if (!shared) return undefined;
      account ??= accountOf(call);
      const id = await account;
      return id === undefined ? shared : call.deps.rateLimits.request(id);
    })()
      .then(
        (refusal) => {
          if (!refusal) return deliver(message, extra);
          refused++;
          last = refusal;
          return transport.send(error(message.id, refusal.message, { error: 'rate_limited', retry_after: refusal.retryAfterS }));
        },
        () => transport.send(error(message.id, 'The request could not be counted; try again.', { error: 'internal_error' })),
      )
      .catch(() => {}); // the transport closed meanwhile: nobody to answer
  };

  return { allRefused: () => (requests > 0 && refused === requests ? last : undefined) };
}

/** A call of a tool that needs a key: its key check counts it on the account (call.ts). */
function keyed(m: JSONRPCRequest): boolean {
  return m.method === 'tools/call' && !KEYLESS_TOOLS.includes(String(m.params?.name) as (typeof KEYLESS_TOOLS)[number]);
}

/** The account of the request's key, if it sends one that works (a wrong one counts towards the brake, as anywhere). */
async function accountOf(call: ToolCall): Promise<string | undefined> {
  const raw = call.ctx.get('x-api-key');
  if (raw === '') return undefined;
  const found = await identify(call.deps.apiKeys, call.deps.rateLimits, raw.trim(), 'X-Api-Key').catch(() => undefined);
  return found && 'account' in found ? found.account.id : undefined;
}

function error(id: JSONRPCRequest['id'] | undefined, message: string, data: Record<string, unknown>): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: SERVER_ERROR, message, data } } as JSONRPCMessage;
}
