// Starts the real service in this process: real SQLite, real encrypted store, real
// listeners on loopback ports chosen by the OS. Logs are captured for assertions.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, NETWORKS, type Network } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import { closeListener, listen, listenOptions, type Listener } from '../../src/http/listeners.ts';
import { listenMetrics, type MetricsListener } from '../../src/http/metrics-listener.ts';
import { createServices, type Services } from '../../src/services.ts';
import { callApi } from './api-client.ts';
import { filesContaining } from './files.ts';
import { MARKER } from './payload.ts';

export interface RunningService {
  services: Services;
  url: Record<Network, string>;
  listeners: Listener[];
  /** http://host:port/metrics when OBSCURA_METRICS_LISTEN names one (off by default, as in production). */
  metricsUrl?: string;
  logs: string[];
  dataDir: string;
  /** A verified account and a working key. */
  account(email?: string): Promise<{ email: string; key: string }>;
  /** POSTs JSON with the key; returns status, headers and parsed body. */
  api(method: string, path: string, key: string, body?: unknown, network?: Network): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

// Every folder a test file made is removed when its worker process exits, whatever the tests
// did: a suite run would otherwise leave about 100 MB in /tmp.
const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(tag = 'obscura-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), tag));
  made.push(dir);
  return dir;
}

export async function startService(env: Record<string, string> = {}): Promise<RunningService> {
  const dataDir = env.OBSCURA_DATA_DIR ?? tempDir();
  const config = loadConfig({
    OBSCURA_DATA_DIR: dataDir,
    OBSCURA_CLEARNET_LISTEN: '127.0.0.1:0',
    OBSCURA_ONION_LISTEN: '127.0.0.1:0',
    OBSCURA_I2P_LISTEN: '127.0.0.1:0',
    OBSCURA_LOG_LEVEL: 'info',
    // tests reach the onion listener directly, without tor and so without its PROXY line
    OBSCURA_ONION_PROXY_PROTOCOL: 'off',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const services = await createServices(config, { logDestination: sink });
  await services.jobs.start();
  const listeners: Listener[] = [];
  const url = {} as Record<Network, string>;
  for (const network of NETWORKS) {
    const l = await listen(network, config.listen[network], createApp(network, services), listenOptions(config, services.log));
    if (!l) continue;
    listeners.push(l);
    url[network] = `http://${l.address}`;
    // hand out the port the OS chose, unless the test pinned an origin
    if (!env[`OBSCURA_${network.toUpperCase()}_ORIGIN`]) config.origin[network] = url[network];
  }
  // started as main.ts starts it, after the networks' listeners
  const metrics: MetricsListener | undefined = await listenMetrics(config.metrics.listen, services.metrics);
  let n = 0;
  return {
    services,
    url,
    listeners,
    metricsUrl: metrics && `http://${metrics.address}/metrics`,
    logs,
    dataDir,
    async account(email = `user${++n}-${Date.now()}@example.org`) {
      await services.accounts.create(email, { verified: true });
      return { email, key: (await services.apiKeys.issue(email)).key };
    },
    api(method, path, key, body, network = 'clearnet') {
      return callApi(url[network], method, path, key, body);
    },
    async close() {
      await Promise.all([...listeners.map(closeListener), metrics?.close()]);
      await services.close();
      // every uploaded test file carries MARKER: it must not be on disk in the clear
      const leaks = filesContaining(dataDir, MARKER);
      if (!env.OBSCURA_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
      if (leaks.length) throw new Error(`plaintext found on disk: ${leaks.join(', ')}`);
    },
  };
}
