// The real service as a child process, for tests that kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';

/**
 * The V8 flags the service runs with (npm start, the image, the systemd unit): a 1 MiB young
 * generation, and external memory (Buffers) counted in the heap's global limit, without which
 * every 64 MB of file bytes moved forced a full collection (about 150 ms of CPU per hide and
 * reveal of a 12 MP picture).
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=1', '--external-memory-accounted-in-global-limit', '--initial-heap-size=64'];

/**
 * A loopback port for a child process to bind. Chosen at random below the kernel's ephemeral
 * range (32768 and up here), where no outgoing connection of any test takes one between our
 * check and the child's bind (a port 0 choice raced with them: a tor relay once found its
 * port taken); checked free by binding it first.
 */
export async function freePort(): Promise<number> {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const top = Math.max(2000, (Number.isFinite(low) ? low : 32768) - 1);
  for (let tries = 0; tries < 50; tries++) {
    const port = 1024 + Math.floor(Math.random() * (top - 1024));
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error('no free loopback port found below the ephemeral range');
}

/** Creates a verified account in the data folder (with the real services) and returns its key. */
export async function keyFor(dataDir: string, email: string): Promise<string> {
  const s = await createServices(loadConfig({ OBSCURA_DATA_DIR: dataDir, OBSCURA_LOG_LEVEL: 'silent' }));
  await s.accounts.create(email, { verified: true });
  const { key } = await s.apiKeys.issue(email);
  await s.close();
  return key;
}

export async function startChild(dataDir: string, port: number, env: Record<string, string> = {}, nodeArgs: string[] = ['--import', './test/helpers/no-egress.ts']): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs, 'src/main.ts'], {
    env: {
      ...process.env,
      OBSCURA_DATA_DIR: dataDir,
      OBSCURA_CLEARNET_LISTEN: `127.0.0.1:${port}`,
      OBSCURA_ONION_LISTEN: 'off',
      OBSCURA_I2P_LISTEN: 'off',
      OBSCURA_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('is up')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return child;
}

export function exited(child: ChildProcess): Promise<unknown> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));
}
