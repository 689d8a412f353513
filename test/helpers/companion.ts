// The local companion (bin/obscura-mcp.js) as an agent client runs it: a child process spoken
// to over stdio with the SDK's own StdioClientTransport. Its stderr is kept for assertions; a
// line on stdout that is not protocol reaches the client's onerror, and is kept too.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const LAUNCHER = path.join(ROOT, 'bin', 'obscura-mcp.js');

/** The machine's own Node when it is older than 24.7 (the launcher's fallback case), else undefined. */
export function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const v = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim().split('.').map(Number);
    if (v[0] < 24 || (v[0] === 24 && v[1] < 7)) return candidate;
  }
  return undefined;
}

export interface ToolOutcome {
  isError: boolean;
  /** structuredContent of a success, the parsed {error, ...} of a failure. */
  data: any;
  text: string;
  progress: Progress[];
}

export interface Companion {
  client: Client;
  stderr(): string;
  /** Anything on stdout the client could not read as protocol, and other transport errors. */
  protocolErrors: Error[];
  call(name: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export async function startCompanion(env: Record<string, string>, launch: { command: string; args: string[]; cwd?: string } = { command: process.execPath, args: [LAUNCHER] }): Promise<Companion> {
  const transport = new StdioClientTransport({ ...launch, cwd: launch.cwd ?? ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (c) => (stderr += c));
  const client = new Client({ name: 'obscura-companion-test', version: '1.0.0' });
  const protocolErrors: Error[] = [];
  client.onerror = (err) => {
    // The SDK's client handles a notification a microtask later than a response: when the last
    // progress notification and the result arrive in one read, it finds the call already done.
    // The companion wrote them in order; this is the client's race, not a stray line.
    if (/^Received a progress notification for an unknown token/.test(err.message)) return;
    protocolErrors.push(err);
  };
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    protocolErrors,
    async call(name, args) {
      const progress: Progress[] = [];
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 110_000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p) });
      const text = (r.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? '';
      return { isError: r.isError === true, data: r.isError ? JSON.parse(text) : r.structuredContent, text, progress };
    },
    close: () => client.close(),
  };
}
