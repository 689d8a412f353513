#!/usr/bin/env node
// obscura-mcp: starts the local companion (src/companion/main.ts, an MCP server on stdio).
// Plain JavaScript that Node 18 and 20 can parse, because agent clients start it with the
// machine's own Node: a Node that runs TypeScript and has crypto.argon2 (24.7+) imports the
// companion directly; an older one runs it with the project's Node 24 from .tools/ (made by
// deploy/setup.sh), stdio passed through. stdout belongs to MCP: setup's output goes to stderr.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const main = path.join(root, 'src', 'companion', 'main.ts');
const ownNode = path.join(root, '.tools', 'node', 'bin', 'node');
const [major, minor] = process.versions.node.split('.').map(Number);
const newEnough = major > 24 || (major === 24 && minor >= 7);

// Node 24 and the npm packages, when either is missing: setup's companion mode installs
// nothing else (no media tools: the companion is a client). Its output goes to stderr.
if ((!newEnough && !existsSync(ownNode)) || !existsSync(path.join(root, 'node_modules', '@modelcontextprotocol', 'sdk'))) {
  const setup = spawnSync('bash', [path.join(root, 'deploy', 'setup.sh'), '--companion'], { stdio: ['ignore', 2, 2] });
  if (setup.status !== 0 || (!newEnough && !existsSync(ownNode))) {
    process.stderr.write(`obscura-mcp: the setup did not finish (bash deploy/setup.sh --companion exited ${setup.status ?? setup.signal}); run it by hand to see why.\n`);
    process.exit(1);
  }
}

if (newEnough) {
  await import(pathToFileURL(main).href);
} else {
  const child = spawn(ownNode, [main], { stdio: 'inherit' });
  // the agent client stops the companion by signal: pass each on, and end as the child ends
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  child.on('error', (err) => {
    process.stderr.write(`obscura-mcp: could not start ${ownNode}: ${err.code ?? err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.off(s, forward);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}
