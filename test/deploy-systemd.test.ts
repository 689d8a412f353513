// The systemd units, verified the way they would load on an operator's machine: a temporary
// root laid out like an install (/opt/obscura is this checkout, /usr is this Debian machine's,
// with systemd's own units and the tor and i2pd packages, the units in /etc/systemd/system, the
// env file in /etc/obscura), in a private mount namespace that vanishes with the command;
// `systemd-analyze verify --root` loads every unit of hardening/ there, checking syntax,
// dependencies and that each ExecStart binary exists. The example env file goes through the
// service's own config loader.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { test } from './helpers/test.ts';

const UNITS = readdirSync('hardening').filter((f) => f.endsWith('.service')).sort();
const ENV_EXAMPLE = 'deploy/obscura.env.example';

/** Where obscura.service's exposure stood when measured (systemd 252): it may only go down. */
const OBSCURA_EXPOSURE_MAX = 1.1;

interface Root {
  dir: string;
  units: string;
  /** Runs argv with the root's binds in place (a private mount namespace), never throwing. */
  run(argv: string[]): Promise<{ code: number | null; out: string }>;
}

/** An operator's install, in a temp folder: the install steps of docs/operators.md "systemd". */
function installRoot(t: { teardown(fn: () => void): void }): Root {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-root-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const d of ['usr', 'opt/obscura', 'etc/systemd/system', 'etc/obscura']) mkdirSync(path.join(dir, d), { recursive: true });
  for (const l of ['bin', 'sbin', 'lib', 'lib64']) symlinkSync(`usr/${l}`, path.join(dir, l)); // merged /usr, as on Debian 12
  const units = path.join(dir, 'etc/systemd/system');
  for (const u of UNITS) copyFileSync(path.join('hardening', u), path.join(units, u));
  copyFileSync(ENV_EXAMPLE, path.join(dir, 'etc/obscura/obscura.env'));
  writeFileSync(path.join(dir, 'etc/obscura/master.key'), Buffer.alloc(32, 7).toString('base64') + '\n', { mode: 0o600 });
  const binds = `mount --bind /usr "$1/usr" && mount --bind "$2" "$1/opt/obscura"`;
  const userns = process.getuid?.() === 0 ? [] : ['--map-root-user'];
  return {
    dir,
    units,
    run: (argv) =>
      new Promise((resolve) => {
        const args = ['--pdeathsig', 'KILL', 'unshare', ...userns, '--mount', 'sh', '-c', `${binds} && shift 2 && exec "$@"`, 'sh', dir, process.cwd(), ...argv];
        execFile('setpriv', args, { encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout + stderr });
        });
      }),
  };
}

/** A unit file's settings: key -> every value it is given, in order. */
function unitSettings(file: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const kv = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (kv) m.set(kv[1], [...(m.get(kv[1]) ?? []), kv[2]]);
  }
  return m;
}

/** KEY=VALUE lines of an EnvironmentFile (comments and blank lines skipped, as systemd does). */
function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const kv = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (kv && !line.trimStart().startsWith('#')) env[kv[1]] = kv[2].trim();
  }
  return env;
}

test('systemd-analyze verify loads every unit of hardening/ in an install-shaped root: status 0, no word about our units', async (t) => {
  t.true(UNITS.includes('obscura.service') && UNITS.length >= 3, UNITS.join(' '));
  const root = installRoot(t);
  const started = Date.now();
  const r = await root.run(['systemd-analyze', 'verify', `--root=${root.dir}`, ...UNITS]);
  t.log(`verify ${UNITS.join(' ')}: status ${r.code} in ${Date.now() - started} ms, output: ${JSON.stringify(r.out)}`);
  t.is(r.code, 0, r.out);
  const about = r.out.split('\n').filter((l) => UNITS.some((u) => l.includes(u.replace(/\.service$/, ''))));
  t.deepEqual(about, [], 'no warning names one of our units');
});

test('verify is not blind: in the same root, a unit whose program is missing fails by name', async (t) => {
  const root = installRoot(t);
  const unit = readFileSync('hardening/obscura.service', 'utf8').replace('/opt/obscura/.tools/node/bin/node', '/opt/obscura/.tools/node/bin/node-missing');
  writeFileSync(path.join(root.units, 'obscura-probe.service'), unit);
  const r = await root.run(['systemd-analyze', 'verify', `--root=${root.dir}`, 'obscura-probe.service']);
  t.not(r.code, 0);
  t.regex(r.out, /obscura-probe\.service: Command \/opt\/obscura\/\.tools\/node\/bin\/node-missing is not executable/);
});

test('obscura.service: loopback only, the onion socket in a 0750 runtime folder of group obscura, its env file, its key as a credential', (t) => {
  const u = unitSettings('hardening/obscura.service');
  t.deepEqual(u.get('IPAddressDeny'), ['any']);
  t.deepEqual(u.get('IPAddressAllow'), ['localhost']);
  t.deepEqual(u.get('User'), ['obscura']);
  t.deepEqual(u.get('Group'), ['obscura']);
  t.deepEqual(u.get('RuntimeDirectory'), ['obscura']);
  t.deepEqual(u.get('RuntimeDirectoryMode'), ['0750']);
  t.deepEqual(u.get('EnvironmentFile'), ['/etc/obscura/obscura.env']);
  t.deepEqual(u.get('LoadCredential'), ['master.key:/etc/obscura/master.key']);
  t.deepEqual(u.get('Environment'), ['OBSCURA_MASTER_KEY_FILE=%d/master.key']);
  t.deepEqual(u.get('LimitCORE'), ['0']);
  t.deepEqual(u.get('CapabilityBoundingSet'), ['']);
  t.deepEqual(u.get('NoNewPrivileges'), ['true']);

  // the example env file, as the service's own loader reads it
  const env = envFile(readFileSync(ENV_EXAMPLE, 'utf8'));
  t.is(env.OBSCURA_ONION_LISTEN, 'unix:/run/obscura/onion.sock');
  t.is(env.OBSCURA_I2P_LISTEN, '127.0.0.1:8082');
  t.false('OBSCURA_MASTER_KEY' in env, 'the key is not in the env file');
  const config = loadConfig({ ...env, OBSCURA_MASTER_KEY_FILE: '/run/credentials/obscura.service/master.key' });
  t.deepEqual(config.listen.onion, { kind: 'unix', path: `/run/${u.get('RuntimeDirectory')![0]}/onion.sock` }, 'the onion socket sits in the RuntimeDirectory');
  t.is(config.dataDir, `/var/lib/${u.get('StateDirectory')![0]}`, 'the data folder is the StateDirectory');
  t.deepEqual(config.listen.i2p, { kind: 'tcp', host: '127.0.0.1', port: 8082 });
  // filled in as an operator would, with the lines run.sh printed
  const onion = `http://${'a'.repeat(56)}.onion`;
  const b32 = `http://${'b'.repeat(52)}.b32.i2p`;
  const filled = readFileSync(ENV_EXAMPLE, 'utf8')
    .replace(/^#OBSCURA_ONION_ORIGIN=.*$/m, `OBSCURA_ONION_ORIGIN=${onion}`)
    .replace(/^#OBSCURA_I2P_ORIGIN=.*$/m, `OBSCURA_I2P_ORIGIN=${b32}`);
  t.like(loadConfig(envFile(filled)).origin, { onion, i2p: b32, clearnet: env.OBSCURA_CLEARNET_ORIGIN });
});

test('the tor unit can reach the onion socket: it joins group obscura and starts after the service', (t) => {
  const tor = unitSettings('hardening/obscura-tor.service');
  t.true((tor.get('SupplementaryGroups') ?? []).some((v) => v.split(/\s+/).includes('obscura')), 'SupplementaryGroups=obscura');
  t.true((tor.get('After') ?? []).some((v) => v.split(/\s+/).includes('obscura.service')));
});

test('systemd-analyze security (offline): the exposure of each unit; obscura.service stays at or below what was measured', async (t) => {
  const root = installRoot(t);
  const scores: Record<string, number> = {};
  for (const u of UNITS) {
    const r = await root.run(['systemd-analyze', 'security', '--offline=yes', `--root=${root.dir}`, u]);
    const m = new RegExp(`Overall exposure level for ${u.replace('.', '\\.')}: (\\d+(?:\\.\\d+)?)`).exec(r.out);
    t.truthy(m, `${u}: ${r.out.slice(-500)}`);
    scores[u] = Number(m?.[1]);
  }
  t.log(JSON.stringify(scores));
  t.true(scores['obscura.service'] <= OBSCURA_EXPOSURE_MAX, `obscura.service exposure ${scores['obscura.service']} > ${OBSCURA_EXPOSURE_MAX}`);
});
