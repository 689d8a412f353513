// notifications/progress for a tool call whose request carried a progressToken: one number
// from 0 to 100 across the whole task (upload, job, download), never going back, as MCP asks.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Log } from './log.ts';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface Progress {
  /** True when the client asked for progress: polls then come back sooner to report it. */
  readonly wanted: boolean;
  /** fraction 0..1 of the whole task. */
  report(fraction: number, message: string): void;
  /** Waits for the notifications sent so far: none may arrive after the call's result. */
  flush(): Promise<void>;
}

export function progressFor(extra: Extra, log: Log): Progress {
  const token = extra._meta?.progressToken;
  let last = -1;
  let lastMessage = '';
  const pending = new Set<Promise<void>>();
  return {
    wanted: token !== undefined,
    report(fraction, message) {
      if (token === undefined) return;
      // whole percents: a notification per percent at most, however small the chunks
      const progress = Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
      if (progress < last || (progress === last && message === lastMessage)) return;
      last = progress;
      lastMessage = message;
      const sent = extra
        .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100, message } })
        .catch((err: Error) => log.debug({ err: err.name }, 'progress notification not sent'))
        .finally(() => pending.delete(sent));
      pending.add(sent);
    },
    async flush() {
      await Promise.all(pending);
    },
  };
}
