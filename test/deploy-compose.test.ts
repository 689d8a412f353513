// The compose deployment, checked offline (no Docker engine runs here): docker-compose 1.29
// resolves and validates docker-compose.yml exactly as `docker-compose up` would before
// talking to an engine, dclint checks it against the current compose schema and best
// practices, and the assertions read the resolved file. The container healthcheck script
// runs against the real service.
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { statusOf } from '../deploy/healthcheck.ts';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';

type Service = Record<string, any>;

type Resolved = { services: Record<string, Service>; volumes: Record<string, any>; secrets: Record<string, any> };
const resolved = new Map<string, Resolved>();

/** `docker-compose config` with nothing from this machine's environment but PATH and an .env of envFile, parsed. */
function composeConfig(envFile: string): Resolved {
  if (!resolved.has(envFile)) resolved.set(envFile, resolve(envFile));
  return structuredClone(resolved.get(envFile)!);
}

function resolve(envFile: string): Resolved {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-compose-'));
  try {
    const env = path.join(dir, 'env');
    writeFileSync(env, envFile);
    const r = spawnSync('docker-compose', ['--env-file', env, '-f', 'docker-compose.yml', 'config'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    if (r.status !== 0) throw new Error(`docker-compose config failed (${r.status}):\n${r.stderr}`);
    if (r.stderr.trim()) throw new Error(`docker-compose config warned:\n${r.stderr}`);
    // docker-compose's own YAML library (python3-yaml, one of its dependencies) turns it into JSON
    const json = spawnSync('python3', ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], { input: r.stdout, encoding: 'utf8' });
    if (json.status !== 0) throw new Error(json.stderr);
    return JSON.parse(json.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** "127.0.0.1:8080:8080/tcp" or the long form, as {host_ip, published, target}. */
function ports(s: Service): { host_ip?: string; published?: string; target: string }[] {
  return (s.ports ?? []).map((p: any) => {
    if (typeof p === 'object') return { host_ip: p.host_ip, published: String(p.published), target: String(p.target) };
    const parts = String(p).replace(/\/tcp$/, '').split(':');
    return parts.length === 3 ? { host_ip: parts[0], published: parts[1], target: parts[2] } : { published: parts.at(-2), target: parts.at(-1)! };
  });
}

/** "volume:/path:rw" or the long form, as {source, target}. */
function mounts(s: Service): { source: string; target: string }[] {
  return (s.volumes ?? []).map((v: any) => (typeof v === 'object' ? { source: v.source, target: v.target } : { source: v.split(':')[0], target: v.split(':')[1] }));
}

function dclint(args: string[]): { status: number | null; files: { messages: { rule: string; type: string; message: string }[]; errorCount: number; warningCount: number }[] } {
  const r = spawnSync('node_modules/.bin/dclint', ['-f', 'json', ...args, 'docker-compose.yml'], { encoding: 'utf8' });
  try {
    return { status: r.status, files: JSON.parse(r.stdout) };
  } catch {
    throw new Error(`dclint printed no JSON (status ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
}

/** The services a plain `up` starts: those in no profile. */
function byDefault(c: Resolved): Record<string, Service> {
  return Object.fromEntries(Object.entries(c.services).filter(([, s]) => !s.profiles));
}

const ROUTERS = { tor: { dir: 'deploy/tor', script: 'deploy/tor/run.sh', pkg: 'tor' }, i2pd: { dir: 'deploy/i2p', script: 'deploy/i2p/run.sh', pkg: 'i2pd' } } as const;

test('docker-compose 1.29 validates the file; one published port, on the service, on loopback; tor and i2pd in its namespace', (t) => {
  const c = composeConfig('');
  t.deepEqual(Object.keys(byDefault(c)).sort(), ['i2pd', 'obscura', 'tor']);
  const published = Object.entries(byDefault(c)).flatMap(([name, s]) => ports(s).map((p) => ({ name, ...p })));
  t.deepEqual(published, [{ name: 'obscura', host_ip: '127.0.0.1', published: '8080', target: '8080' }], 'only the clearnet port, bound to loopback (OBSCURA_PORT unset)');
  for (const name of ['tor', 'i2pd'] as const) {
    const s = c.services[name];
    t.is(s.network_mode, 'service:obscura', `${name} shares the service's network namespace: the listeners stay on loopback`);
    t.deepEqual(s.depends_on, { obscura: { condition: 'service_healthy' } }, `${name} starts once the service is healthy`);
  }
  // the service's own config loader accepts the environment compose gives it (plus the image's)
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const imageEnv = Object.fromEntries([...dockerfile.matchAll(/(OBSCURA_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  const env = Object.fromEntries(Object.entries({ ...imageEnv, ...c.services.obscura.environment }).filter(([, v]) => v !== null)) as Record<string, string>;
  const config = loadConfig(env);
  t.deepEqual(config.listen.clearnet, { kind: 'tcp', host: '0.0.0.0', port: 8080 }, 'the published port reaches the clearnet listener');
  t.is(c.services.tor.environment.OBSCURA_ONION_LISTEN, env.OBSCURA_ONION_LISTEN, "tor's run.sh forwards to the service's onion listener");
  const tunnel = readFileSync('deploy/i2p/tunnels.conf', 'utf8');
  const i2pTarget = `${/^host\s*=\s*(\S+)/m.exec(tunnel)?.[1]}:${/^port\s*=\s*(\S+)/m.exec(tunnel)?.[1]}`;
  t.is(env.OBSCURA_I2P_LISTEN, i2pTarget, "i2pd's server tunnel points at the service's I2P listener");
  t.deepEqual(config.listen.i2p, { kind: 'tcp', host: '127.0.0.1', port: Number(i2pTarget.split(':')[1]) });
  t.is(c.services.obscura.environment.OBSCURA_ONION_ORIGIN, null, 'before the keys exist the origin is left unset (an empty one would be refused)');
  t.is(c.services.obscura.environment.OBSCURA_I2P_ORIGIN, null);
});

test('the origins an operator writes to .env reach the service', (t) => {
  const onion = `http://${'a'.repeat(56)}.onion`;
  const b32 = `http://${'b'.repeat(52)}.b32.i2p`;
  const c = composeConfig(`OBSCURA_ONION_ORIGIN=${onion}\nOBSCURA_I2P_ORIGIN=${b32}\nOBSCURA_CLEARNET_ORIGIN=https://media.example.org\n`);
  const env = c.services.obscura.environment;
  t.like(env, { OBSCURA_ONION_ORIGIN: onion, OBSCURA_I2P_ORIGIN: b32, OBSCURA_CLEARNET_ORIGIN: 'https://media.example.org' });
  t.like(loadConfig(env).origin, { onion, i2p: b32, clearnet: 'https://media.example.org' });
});

test('tor and i2pd: built from small Dockerfiles, started by the shipped run.sh, keys on named volumes, healthchecks', (t) => {
  const c = composeConfig('');
  for (const [name, r] of Object.entries(ROUTERS)) {
    const s = c.services[name];
    const file = readFileSync(s.build.dockerfile, 'utf8');
    t.regex(file, new RegExp(`^RUN apt-get update[^]*apt-get install -y --no-install-recommends ${r.pkg}\\b`, 'm'), `${name} is installed at build time`);
    t.regex(file, new RegExp(`^COPY ${r.dir} /opt/obscura/${r.dir}$`, 'm'), `${name}'s image holds this checkout's ${r.dir}`);
    t.notRegex(JSON.stringify([s.command, s.entrypoint]), /apt-get|install/, 'nothing is installed at container start');
    // the shipped script, as an operator runs it: run.sh STATE_DIR
    const [script, state, ...extra] = s.command as string[];
    t.is(script, `/opt/obscura/${r.script}`);
    accessSync(r.script, constants.X_OK);
    t.deepEqual(extra, []);
    // STATE_DIR (the keys: onion/ for tor, obscura-site.dat for i2pd) is a named volume
    const m = mounts(s).find((v) => v.target === state);
    t.truthy(m, `${name}'s state folder ${state} is mounted`);
    t.truthy(c.volumes[m!.source], `${name}'s state is the named volume ${m?.source}`);
    t.regex(c.volumes[m!.source].name, /^obscura-/, 'with a fixed name, whatever the project is called');
    t.regex(file, new RegExp(`^RUN install -d -o \\S+ -g \\S+ -m 700 ${state}$`, 'm'), 'a fresh volume is owned by the router user');
  }
  // healthy: the keys are in the state folder, and the listener the router forwards to answers
  const { OBSCURA_ONION_LISTEN: onion, OBSCURA_I2P_LISTEN: i2p } = c.services.obscura.environment;
  const siteKeys = /^keys\s*=\s*(\S+)/m.exec(readFileSync('deploy/i2p/tunnels.conf', 'utf8'))![1];
  // (scripts, not inline `bash -c`: podman's Docker API splits an argument that holds spaces;
  // test/containers.test.ts runs them)
  t.deepEqual(c.services.tor.healthcheck.test, ['CMD', '/opt/obscura/deploy/tor/healthcheck.sh']);
  t.deepEqual(c.services.i2pd.healthcheck.test, ['CMD', '/opt/obscura/deploy/i2p/healthcheck.sh']);
  const torCheck = readFileSync('deploy/tor/healthcheck.sh', 'utf8');
  t.true(torCheck.includes(`\${1:-${c.services.tor.command[1]}}/onion/hostname`), 'tor: the keys in its state folder');
  t.is(c.services.tor.environment.OBSCURA_ONION_LISTEN, onion, 'tor: the listener it probes is the service\'s');
  const i2pCheck = readFileSync('deploy/i2p/healthcheck.sh', 'utf8');
  t.true(i2pCheck.includes(`\${1:-${c.services.i2pd.command[1]}}/${siteKeys}`), 'i2pd: the site keys in its state folder');
  t.true(i2pCheck.includes(`/dev/tcp/${i2p.replace(':', '/')}`), "i2pd: the service's I2P listener");
  for (const f of ['deploy/tor/healthcheck.sh', 'deploy/i2p/healthcheck.sh']) accessSync(f, constants.X_OK);
  const data = mounts(c.services.obscura).find((v) => v.target === '/var/lib/obscura');
  t.truthy(data && c.volumes[data.source], "the service's data folder is a named volume");
});

test('every container: read-only root, no capabilities, no new privileges, tmpfs scratch, no core dumps; the master key is a secret', (t) => {
  const c = composeConfig('');
  // the engines of the scale profile run their own images' entrypoints (PostgreSQL's drops from
  // root to its user; Swift's writes its config at start): no new privileges and no core dumps
  // only, and nothing of theirs is published
  const engines = ['postgres', 's3'];
  for (const name of engines) {
    t.true(c.services[name].security_opt?.includes('no-new-privileges:true'), `${name}: no-new-privileges`);
    t.deepEqual(c.services[name].ulimits?.core, 0, `${name}: no core dumps`);
    t.deepEqual(ports(c.services[name]), [], `${name}: reached on the compose network only`);
  }
  for (const [name, s] of Object.entries(c.services).filter(([n]) => !engines.includes(n))) {
    t.is(s.read_only, true, `${name}: read-only root`);
    t.deepEqual(s.cap_drop, ['ALL'], `${name}: cap_drop ALL`);
    t.deepEqual(s.cap_add, undefined, `${name}: no capability added back`);
    t.true(s.security_opt?.includes('no-new-privileges:true'), `${name}: no-new-privileges`);
    t.deepEqual(s.ulimits?.core, 0, `${name}: no core dumps`);
    t.true(s.tmpfs?.some((m: string) => m.startsWith('/tmp:')), `${name}: /tmp in memory`);
    t.falsy(s.privileged, `${name}: not privileged`);
  }
  const svc = c.services.obscura;
  t.true(svc.tmpfs.some((m: string) => m.startsWith('/dev/shm:')), 'the media scratch (/dev/shm) is a tmpfs');
  t.deepEqual(svc.secrets, [{ source: 'obscura_master_key' }]);
  t.truthy(c.secrets.obscura_master_key.file);
  t.is(svc.environment.OBSCURA_MASTER_KEY_FILE, '/run/secrets/obscura_master_key', 'the service reads the key from the secret');
  t.is(svc.environment.OBSCURA_MASTER_KEY, undefined, 'never the key itself in the environment');
  t.deepEqual(svc.healthcheck.test, ['CMD', '.tools/node/bin/node', 'deploy/healthcheck.ts']);
  t.regex(readFileSync('Dockerfile', 'utf8'), /^HEALTHCHECK .*CMD \["\.tools\/node\/bin\/node", "deploy\/healthcheck\.ts"\]$/m, 'the image carries the same healthcheck');
  t.regex(readFileSync('Dockerfile', 'utf8'), /^USER obscura$/m, 'the service does not run as root');
});

test('the scale profile: two instances on one PostgreSQL and one S3 store, started only with --profile scale', (t) => {
  const c = composeConfig('OBSCURA_PG_PASSWORD=pg-secret\nOBSCURA_S3_ACCESS_KEY=obscura:app\nOBSCURA_S3_SECRET_KEY=s3-secret\n');
  for (const name of ['app1', 'app2', 'postgres', 's3']) t.deepEqual(c.services[name].profiles, ['scale'], `${name} is in the scale profile only`);
  const [app, app2] = [c.services.app1, c.services.app2];
  const { ports: ports1, ...rest1 } = app;
  const { ports: ports2, ...rest2 } = app2;
  t.deepEqual(rest1, rest2, 'two replicas of one service');
  t.deepEqual(app.depends_on, { postgres: { condition: 'service_healthy' }, s3: { condition: 'service_healthy' } });
  t.deepEqual(app.secrets, [{ source: 'obscura_master_key' }], 'every replica gets the same master key');
  t.deepEqual([...ports(app), ...ports(app2)], [
    { host_ip: '127.0.0.1', published: '8091', target: '8080' },
    { host_ip: '127.0.0.1', published: '8092', target: '8080' },
  ], 'a port each, on loopback only, for the balancer');
  void ports1, ports2;
  // the service's own config loader accepts what compose gives the replicas
  const config = loadConfig(Object.fromEntries(Object.entries(app.environment).filter(([, v]) => v !== null)) as Record<string, string>);
  t.is(new URL(config.databaseUrl!).host, 'postgres:5432');
  t.is(new URL(config.databaseUrl!).password, 'pg-secret');
  t.regex(config.blobUrl!, /^s3:\/\/obscura\?endpoint=http:\/\/s3:9000&/);
  t.is(app.environment.AWS_ACCESS_KEY_ID, 'obscura:app');
  t.is(c.services.s3.environment.S3_ACCESS_KEY, 'obscura:app', 'the store and the replicas share one key');
  t.is(c.services.postgres.environment.POSTGRES_PASSWORD, 'pg-secret');
  // the store is the shipped deploy/s3, the one the scale-out tests start
  const s3 = c.services.s3;
  const file = readFileSync(s3.build.dockerfile, 'utf8');
  t.regex(file, /^COPY deploy\/s3 \/opt\/obscura\/deploy\/s3$/m);
  t.deepEqual(s3.command, ['/opt/obscura/deploy/s3/run.sh', '/srv/obscura-s3']);
  accessSync('deploy/s3/run.sh', constants.X_OK);
  for (const [name, target] of [['postgres', '/var/lib/postgresql/data'], ['s3', '/srv/obscura-s3']] as const) {
    const m = mounts(c.services[name]).find((v) => v.target === target);
    t.regex(c.volumes[m!.source].name, /^obscura-/, `${name} keeps its data on a named volume`);
  }
});

test('dclint: no error and no warning; the committed config turns off only the rule docker-compose 1.29 cannot follow', (t) => {
  const lint = dclint(['-c', 'deploy/docker/dclint.yaml']);
  t.log(JSON.stringify(lint.files[0]));
  t.is(lint.status, 0);
  t.is(lint.files[0].errorCount, 0, JSON.stringify(lint.files[0].messages, null, 1));
  t.is(lint.files[0].warningCount, 0, JSON.stringify(lint.files[0].messages, null, 1));
  const bare = dclint([]);
  t.deepEqual([...new Set(bare.files[0].messages.map((m) => m.rule))], ['require-project-name-field'], 'without the config, that rule alone speaks');
  t.is(bare.files[0].errorCount, 0);
});

test('the container healthcheck asks the service it runs beside: UP and maintenance are healthy, no answer is not', async (t) => {
  // asynchronously: the service answering it runs in this process
  const run = (env: Record<string, string>) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['deploy/healthcheck.ts'], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env }, timeout: 30_000 }, (_err, stdout, stderr) =>
        resolve({ status: child.exitCode, stdout, stderr }),
      );
    });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-health-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  const sock = path.join(dir, 'clearnet.sock');
  const svc = await startService({ OBSCURA_CLEARNET_LISTEN: `unix:${sock}` });
  let closed = false;
  t.teardown(() => (closed ? undefined : svc.close()));
  const up = await run({ OBSCURA_CLEARNET_LISTEN: `unix:${sock}` });
  t.is(up.status, 0, up.stderr);
  t.is(up.stdout, 'obscura: UP\n');
  t.is(await statusOf({ kind: 'unix', path: sock }), 'UP');
  await svc.close();
  closed = true;
  const down = await run({ OBSCURA_CLEARNET_LISTEN: `unix:${sock}` });
  t.is(down.status, 1);
  t.regex(down.stderr, /^obscura healthcheck: /);

  // the image's listener is 0.0.0.0:8080: the script asks loopback
  const wild = await startService({ OBSCURA_CLEARNET_LISTEN: '0.0.0.0:0', OBSCURA_MAINTENANCE: 'on' });
  t.teardown(() => wild.close());
  const port = wild.url.clearnet.split(':').at(-1)!;
  const maint = await run({ OBSCURA_CLEARNET_LISTEN: `0.0.0.0:${port}` });
  t.is(maint.status, 0, maint.stderr);
  t.is(maint.stdout, 'obscura: MAINTENANCE\n');
  const off = await run({ OBSCURA_CLEARNET_LISTEN: 'off' });
  t.is(off.status, 1);
  t.regex(off.stderr, /clearnet listener is off/);
});

test("the operator's secrets stay out of git, and the docs say one compose command", (t) => {
  // `git add -A` must never pick up the master key or the compose .env
  const ignored = spawnSync('git', ['check-ignore', 'secrets/master.key', '.env'], { encoding: 'utf8' });
  t.deepEqual(ignored.stdout.trim().split('\n'), ['secrets/master.key', '.env']);
  // docker-compose throughout; Compose v2's `docker compose` only where the docs say it is the same
  for (const file of ['README.md', 'docs/operators.md']) {
    const text = readFileSync(file, 'utf8').replace(/write\s+`docker compose`/g, '');
    t.notRegex(text, /docker compose\b/, file);
  }
});
