// MCP Inspector's CLI as a client independent of our own code: it lists the tools of the
// running service and calls them over Streamable HTTP, on loopback only (it runs under the same
// no-egress guard as the service's child processes).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'node_modules/.bin/mcp-inspector-cli');
// inspector-cli 1.0.3 finds its own package.json through the working folder's parent: run it
// from its build folder.
const CWD = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build');

/** Runs the CLI (without blocking this process, which serves the requests) and parses its JSON. */
async function inspector(url: string, ...args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(BIN, ['--cli', url, '--transport', 'http', ...args], {
    cwd: CWD,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      // the CLI starts `node` again: the same Node, with the guard that refuses non-loopback connections
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      NODE_OPTIONS: `--import ${path.join(ROOT, 'test/helpers/no-egress.ts')}`,
    },
  });
  return JSON.parse(stdout);
}

test('MCP Inspector CLI lists the tools and calls them, with and without a key', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  t.teardown(() => svc.close());
  const url = `${svc.url.clearnet}/mcp`;

  const listed = await inspector(url, '--method', 'tools/list');
  const names = listed.tools.map((x: any) => x.name);
  for (const name of ['status', 'get_started', 'get_capabilities', 'create_session', 'get_upload_instructions', 'start_convert_job', 'get_job_results', 'delete_session']) {
    t.true(names.includes(name), name);
  }
  t.is(listed.tools.find((x: any) => x.name === 'delete_session').annotations.destructiveHint, true);

  const status = await inspector(url, '--method', 'tools/call', '--tool-name', 'status');
  t.falsy(status.isError);
  t.like(status.structuredContent, { status: 'UP', service: 'obscura', version: svc.services.config.version });

  const { key } = await svc.account();
  const made = await inspector(url, '--method', 'tools/call', '--tool-name', 'create_session', '--tool-arg', 'type=analyse', '--header', `X-Api-Key: ${key}`);
  t.falsy(made.isError);
  t.like(made.structuredContent, { type: 'analyse' });
  t.is((await svc.api('GET', `/api/analyse/session/${made.structuredContent.upload_uid}`, key)).status, 200, 'the session is real');

  const refused = await inspector(url, '--method', 'tools/call', '--tool-name', 'create_session', '--tool-arg', 'type=analyse');
  t.true(refused.isError);
  t.is(refused.structuredContent.error, 'missing_api_key');
});
