// What every tool shares: its dependencies, and the wrapper that turns its outcome into an
// MCP result. Success: structuredContent plus the same JSON as text. Failure: isError with
// {error, message, ...} as text only: the SDK's client checks any structuredContent against
// the tool's output schema, error or not, and an error is not shaped like a result.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Api } from '../api.ts';
import { CompanionError } from '../errors.ts';
import type { Log } from '../log.ts';
import { progressFor, type Extra, type Progress } from '../progress.ts';

export interface ToolDeps {
  /** The REST client, or the configuration problem that stops every call. */
  api(): Api;
  log: Log;
  /** Aborted when the companion stops: every running task ends and cleans up. */
  stopping: AbortSignal;
  /** The calls under way, so that stopping can wait for their clean-up. */
  running: Set<Promise<unknown>>;
}

export interface Run {
  progress: Progress;
  signal: AbortSignal;
}

export function runTool<A>(name: string, deps: ToolDeps, fn: (args: A, run: Run) => Promise<Record<string, unknown>>) {
  return (args: A, extra: Extra): Promise<CallToolResult> => {
    const call = handle(args, extra);
    deps.running.add(call);
    return call.finally(() => deps.running.delete(call));
  };

  async function handle(args: A, extra: Extra): Promise<CallToolResult> {
    const signal = AbortSignal.any([extra.signal, deps.stopping]);
    const progress = progressFor(extra, deps.log);
    try {
      const out = await fn(args, { progress, signal });
      await progress.flush();
      deps.log.info({ tool: name }, 'tool done');
      return { content: [{ type: 'text', text: JSON.stringify(out, null, 2) }], structuredContent: out };
    } catch (err) {
      await progress.flush();
      const e = err instanceof CompanionError ? err : unexpected(err, name, deps.log);
      // the code only: messages can hold paths, and paths can name people
      deps.log.info({ tool: name, error: e.code }, 'tool failed');
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(e.toJSON(), null, 2) }] };
    }
  }
}

function unexpected(err: unknown, tool: string, log: Log): CompanionError {
  const e = err as NodeJS.ErrnoException;
  log.error({ tool, name: e?.name, code: e?.code }, 'unexpected failure');
  return new CompanionError('internal_error', `The companion failed unexpectedly (${e?.code ?? e?.name ?? 'error'}); try again, and report it if it repeats.`);
}
