// Every tool answers the same way: its view as structuredContent and as JSON text (clients of
// revision 2025-03-26 read the text), or a tool error `{error, message, ...}` carrying the same
// code the REST API would give, so a model can act on it. Nothing unexpected leaks: such a
// failure is logged under the request id and answered with that id only.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../domain/errors.ts';
import type { Account } from '../../domain/ports.ts';
import type { ToolCall } from './call.ts';

type View = Record<string, unknown>;

export function ok(view: View): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(view) }], structuredContent: view };
}

export function failed(call: ToolCall, err: unknown): CallToolResult {
  let body: View;
  if (err instanceof AppError) {
    body = { error: err.code, message: err.message, ...err.details };
  } else {
    const id = call.ctx.state.requestId;
    call.deps.log.error({ req_id: id, err }, 'tool failed unexpectedly');
    body = { error: 'internal_error', message: `Something went wrong on our side. Quote request id ${id} if you report it.`, request_id: id };
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** A tool that needs no key. */
export function open<A>(call: ToolCall, fn: (args: A) => View | Promise<View>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return ok(await fn(args));
    } catch (err) {
      return failed(call, err);
    }
  };
}

/** A tool that needs the key on the HTTP request: authenticated when called, not before. */
export function keyed<A>(call: ToolCall, fn: (args: A, account: Account) => View | Promise<View>): (args: A) => Promise<CallToolResult> {
  return open(call, async (args: A) => fn(args, await call.account()));
}
