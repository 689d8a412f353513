// The container engine the container tests run the shipped images on: podman, with
// deploy/podman/containers.conf, its own storage in the user's cache folder (kept between runs
// and between clones, like npm's: the base image and the build layers are what keeps a rerun
// short; the machine's own podman images are never touched), its Docker API for Debian's
// docker-compose 1.29, and the healthchecks driven where no systemd runs them.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = path.resolve(import.meta.dirname, '../..');
const CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'obscura-tests/containers');
const SOCKET = path.join(CACHE, 'podman.sock');
/** The base every Dockerfile starts FROM, made from Debian's packages (no image registry). */
const BASE = 'docker.io/library/debian:bookworm-slim';
const HOST_CA = '/etc/ssl/certs/ca-certificates.crt';

export const engineEnv: NodeJS.ProcessEnv = {
  ...process.env,
  CONTAINERS_CONF: path.join(ROOT, 'deploy/podman/containers.conf'),
  CONTAINERS_STORAGE_CONF: path.join(CACHE, 'storage.conf'),
  DOCKER_HOST: `unix://${SOCKET}`,
};

export async function sh(cmd: string, args: string[], opts: { cwd?: string; input?: string; timeout?: number } = {}): Promise<{ stdout: string; stderr: string }> {
  const child = run(cmd, args, { cwd: opts.cwd ?? ROOT, env: engineEnv, maxBuffer: 64 << 20, timeout: opts.timeout ?? 15 * 60_000 });
  if (opts.input !== undefined) child.child.stdin?.end(opts.input);
  try {
    return await child;
  } catch (err: any) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${String(err.stderr ?? '').slice(-4000)}\n${String(err.stdout ?? '').slice(-2000)}`);
  }
}

/** Why containers cannot run here, or null when they can. */
export async function engineMissing(): Promise<string | null> {
  for (const tool of ['podman', 'docker-compose', 'mmdebstrap']) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      return `${tool} is not installed (npm test's setup installs podman, runc, catatonit, mmdebstrap and docker-compose when run as root)`;
    }
  }
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(path.join(CACHE, 'storage.conf'), `[storage]\ndriver = "overlay"\ngraphroot = "${CACHE}/storage"\nrunroot = "/run/obscura-test-containers"\n`);
  try {
    if (!(await sh('podman', ['image', 'exists', BASE]).then(() => true, () => false))) await baseImage();
    await sh('podman', ['run', '--rm', '--network', 'none', BASE, 'true'], { timeout: 60_000 });
  } catch (err) {
    return `podman cannot run a container here: ${(err as Error).message.split('\n').slice(0, 3).join(' ')}`;
  }
  return null;
}

/** Debian bookworm's minimal base, from Debian's packages, imported once into the cache. */
async function baseImage(): Promise<void> {
  const tar = path.join(CACHE, 'base.tar');
  rmSync(tar, { force: true });
  await sh('mmdebstrap', ['--quiet', '--variant=minbase', 'bookworm', tar]);
  await sh('podman', ['import', tar, BASE]);
  rmSync(tar, { force: true });
}

/**
 * Builds one shipped Dockerfile as `tag`. Where the npm registry answers only with this
 * machine's CA, npm in the build reads it from a build volume (never a layer: nothing of it
 * stays in the image).
 */
export async function build(tag: string, dockerfile: string): Promise<void> {
  const npmrc = path.join(CACHE, 'npmrc');
  writeFileSync(npmrc, 'cafile=/host-ca.crt\n');
  const volumes = existsSync(HOST_CA) ? ['-v', `${HOST_CA}:/host-ca.crt:ro`, '-v', `${npmrc}:/root/.npmrc:ro`] : [];
  await sh('podman', ['build', '--quiet', '--format', 'docker', '--pull=never', '--network', 'host', ...volumes, '-f', dockerfile, '-t', tag, '.']);
}

/** podman's Docker API on a socket in the cache, for docker-compose; stopped by the returned function. */
export async function dockerApi(): Promise<() => Promise<void>> {
  rmSync(SOCKET, { force: true });
  const child = spawn('podman', ['system', 'service', '--time=0', `unix://${SOCKET}`], { env: engineEnv, stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(SOCKET); i++) await sleep(100);
  if (!existsSync(SOCKET)) throw new Error('podman system service made no socket');
  const health = driveHealthchecks();
  return async () => {
    health.stop();
    await stop(child);
  };
}

/**
 * podman runs healthchecks from systemd timers; without systemd (a container, a CI runner)
 * nobody runs them and docker-compose waits forever for `service_healthy`. Here the test runs
 * each running container's own healthcheck every 3 s, as the timers would.
 */
function driveHealthchecks(): { stop(): void } {
  if (existsSync('/run/systemd/system')) return { stop() {} };
  let going = true;
  void (async () => {
    while (going) {
      try {
        const { stdout } = await sh('podman', ['ps', '--format', '{{.ID}}'], { timeout: 30_000 });
        await Promise.all(stdout.split('\n').filter(Boolean).map((id) => sh('podman', ['healthcheck', 'run', id], { timeout: 30_000 }).catch(() => undefined)));
      } catch {
        /* the engine is between states: try again */
      }
      await sleep(3000);
    }
  })();
  return { stop: () => (going = false) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const ended = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([ended, sleep(5000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** docker-compose in the stack's folder, as the operator types it there. */
export function compose(dir: string, ...args: string[]) {
  return sh('docker-compose', args, { cwd: dir });
}

/**
 * `docker-compose down`. On podman it may need a second run: docker-compose removes the
 * containers all at once, and podman removes the service's only after tor's and i2pd's, which
 * live in its network namespace (docs/operators.md "Containers" says so).
 */
export async function down(dir: string, ...args: string[]) {
  try {
    return await compose(dir, ...args, 'down', '-t', '30');
  } catch (err) {
    if (!/dependent containers/.test((err as Error).message)) throw err;
    return compose(dir, ...args, 'down', '-t', '30');
  }
}

/** Waits until the container of `service` reports healthy (the healthcheck drive above runs its check). */
export async function healthy(dir: string, service: string, timeoutMs = 180_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < end) {
    const ids = (await compose(dir, 'ps', '-q', service)).stdout.split('\n').filter(Boolean);
    if (ids.length) {
      const states = await Promise.all(ids.map(async (id) => (await sh('podman', ['inspect', id, '--format', '{{.State.Health.Status}}'])).stdout.trim()));
      last = states.join(',');
      if (states.every((s) => s === 'healthy')) return;
    }
    await sleep(2000);
  }
  throw new Error(`${service} not healthy after ${timeoutMs / 1000} s (last: ${last || 'no container'}); logs:\n${(await compose(dir, 'logs', '--tail=40', service).catch((e) => ({ stdout: String(e) }))).stdout}`);
}
