// Starts the service: configuration, stores, one listener per network.
import { ConfigError, loadConfig, NETWORKS } from './config.ts';
import { createApp } from './http/app.ts';
import { closeListener, listen, ListenError, listenOptions, type Listener } from './http/listeners.ts';
import { listenMetrics, type MetricsListener } from './http/metrics-listener.ts';
import { createServices } from './services.ts';

/** A write to the blob store unfinished after a day was left by an instance that died: a slow upload over Tor takes hours, not days. */
const UNFINISHED_WRITE_LIFE = 24 * 3_600_000;

async function main(): Promise<void> {
  let config, services;
  try {
    config = loadConfig();
    services = await createServices(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`obscura: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const { log } = services;
  if (services.masterKeyCreated) {
    process.stderr.write(
      `\n!! obscura: created a new master key at ${services.masterKeyCreated}\n` +
        `!! Every stored byte is sealed under it: back it up, keep it off the data disk in production\n` +
        `!! (set OBSCURA_MASTER_KEY or OBSCURA_MASTER_KEY_FILE), and never lose it.\n\n`,
    );
  }
  if (!services.scratch.isMemoryBacked()) {
    log.warn({ scratch: config.scratchDir }, 'scratch folder is not on a memory-backed filesystem; media tools will write plaintext to disk');
  }
  await services.scratch.sweep();
  await services.jobs.start();
  services.pool.warm(); // the first job should not wait for a worker to load its media engines

  const listeners: Listener[] = [];
  let metrics: MetricsListener | undefined;
  for (const network of [...NETWORKS, 'metrics'] as const) {
    try {
      if (network === 'metrics') metrics = await listenMetrics(config.metrics.listen, services.metrics);
      else {
        const l = await listen(network, config.listen[network], createApp(network, services), listenOptions(config, log));
        if (l) listeners.push(l);
      }
    } catch (err) {
      const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!(err instanceof ListenError) && !inUse) throw err;
      process.stderr.write(`obscura: ${inUse ? `${network} listener: the address is already in use` : (err as Error).message}\n`);
      await Promise.all(listeners.map(closeListener));
      await services.close();
      process.exit(1);
    }
  }

  const hint: Record<string, string> = {
    onion: '  (set OBSCURA_ONION_ORIGIN to what deploy/tor/run.sh prints)',
    i2p: '  (set OBSCURA_I2P_ORIGIN to what deploy/i2p/run.sh prints)',
  };
  const lines = listeners.map(
    (l) =>
      `  ${l.network.padEnd(8)} listening on ${l.address.padEnd(22)} serves ${config.origin[l.network]}` +
      (config.originSet[l.network] ? '' : (hint[l.network] ?? '')),
  );
  if (metrics) lines.push(`  metrics  listening on ${metrics.address.padEnd(22)} serves GET /metrics (Prometheus)`);
  process.stdout.write(
    `obscura ${config.version} is up\n${lines.join('\n')}\n` +
      `  health:  curl ${config.origin.clearnet}/api/status\n` +
      `  a key:   npm run cli -- account create you@example.org --verified\n` +
      `           npm run cli -- key create you@example.org\n` +
      `  then:    curl -H "X-Api-Key: <key>" ...   (README.md: an example per product; docs/api.md: the whole API)\n` +
      `  pages:   open ${config.origin.clearnet}/ in a browser (or the onion in Tor Browser) and sign in with the key;\n` +
      `           ${services.selfService.signUpOpen ? 'people can also sign up (mail goes through OBSCURA_SMTP_URL)' : 'sign-up is closed until OBSCURA_SMTP_URL names a mail relay'}\n`,
  );
  log.info({ listeners: [...listeners.map((l) => l.network), ...(metrics ? ['metrics'] : [])] }, 'started');

  // expired uploads and results are destroyed within the sweep interval even if nobody asks for them
  const janitor = setInterval(() => {
    services.uploads.expire().catch((err) => log.error({ err }, 'upload expiry sweep failed'));
    services.results.expire().catch((err) => log.error({ err }, 'result expiry sweep failed'));
    services.webSessions.sweep().catch((err) => log.error({ err }, 'web session sweep failed'));
    services.selfService.sweep().catch((err) => log.error({ err }, 'mail link sweep failed'));
    services.blobs.sweep?.(Date.now() - UNFINISHED_WRITE_LIFE).catch((err) => log.error({ err }, 'blob store sweep failed'));
  }, config.sweepIntervalMs);
  janitor.unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    clearInterval(janitor);
    await Promise.all([...listeners.map(closeListener), metrics?.close()]);
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

await main();
