// obscura-mcp: the local companion, an MCP server on stdio. Started by bin/obscura-mcp.js.
// stdout is the protocol and nothing else; the log is on stderr.
import './stdout-guard.ts';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Api } from './api.ts';
import { proxyShown, readConfig } from './config.ts';
import { CompanionError } from './errors.ts';
import { createLog } from './log.ts';
import { createServer } from './server.ts';

const log = createLog();
const config = readConfig(process.env);
const api = config instanceof CompanionError ? undefined : new Api(config);
const stopping = new AbortController();
const running = new Set<Promise<unknown>>();

const server = createServer({
  api() {
    if (config instanceof CompanionError) throw config;
    return api!;
  },
  log,
  stopping: stopping.signal,
  running,
});

let stopped = false;
async function stop(why: string): Promise<void> {
  if (stopped) return;
  stopped = true;
  log.info({ why }, 'companion stopping');
  // running tasks end, and remove any half-written output, before the process goes
  stopping.abort();
  const grace = setTimeout(() => process.exit(0), 3000);
  grace.unref();
  await Promise.allSettled(running);
  await server.close().catch(() => {});
  api?.close();
  process.exit(0);
}

process.stdin.once('end', () => void stop('stdin closed'));
process.stdin.once('close', () => void stop('stdin closed'));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));

await server.connect(new StdioServerTransport());
if (config instanceof CompanionError) log.warn({ error: config.code }, 'not configured: every tool will answer this error');
else log.info({ origin: config.origin, socks_proxy: config.socksProxy ? proxyShown(config.socksProxy) : null }, 'companion ready');
