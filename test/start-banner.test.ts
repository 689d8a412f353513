// What `node src/main.ts` prints once it is up, read as a newcomer reads it: which address a
// person opens, which ones are for tor and i2pd only (and that the onion one really refuses a
// browser), the public .onion and .b32.i2p addresses once set, and how to get a key.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { test } from './helpers/test.ts';
import { exited, freePort } from './helpers/child.ts';
import { tempDir } from './helpers/service.ts';

const ONION = `http://${'obscura2x'.padEnd(56, 'q')}.onion`;
const I2P = `http://${'obscura7i'.padEnd(52, 'a')}.b32.i2p`;

/** Starts the real service with all three listeners on free loopback ports; resolves with its banner. */
async function start(env: Record<string, string>): Promise<{ child: ChildProcess; banner: string; ports: Record<string, number>; dataDir: string }> {
  const ports = { clearnet: await freePort(), onion: await freePort(), i2p: await freePort() };
  const dataDir = tempDir();
  const child = spawn(process.execPath, ['--import', './test/helpers/no-egress.ts', 'src/main.ts'], {
    env: {
      ...process.env,
      OBSCURA_DATA_DIR: dataDir,
      OBSCURA_CLEARNET_LISTEN: `127.0.0.1:${ports.clearnet}`,
      OBSCURA_ONION_LISTEN: `127.0.0.1:${ports.onion}`,
      OBSCURA_I2P_LISTEN: `127.0.0.1:${ports.i2p}`,
      OBSCURA_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const banner = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      // the banner's last line
      if (/sign-up is closed|people can also sign up/.test(out)) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`the service exited ${code} before its banner: ${out}`)));
  });
  return { child, banner, ports, dataDir };
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await exited(child);
}

const lineOf = (banner: string, network: string) => banner.split('\n').find((l) => l.startsWith(`  ${network} `)) ?? '';
/** A listener's line and the lines under it (indented past the column of names). */
function block(banner: string, network: string): string {
  const lines = banner.split('\n');
  const at = lines.indexOf(lineOf(banner, network));
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((l) => !l.startsWith('           '));
  return [lines[at], ...rest.slice(0, end < 0 ? rest.length : end)].join('\n');
}

/** The shell commands of the banner's "a key:" and "then:" lines, as a person copies them. */
function keyCommands(banner: string): string[] {
  const lines = banner.split('\n');
  const from = lines.findIndex((l) => l.startsWith('  a key:'));
  const to = lines.findIndex((l) => l.startsWith('  then:'));
  return lines.slice(from, to + 1).map((l) => l.slice(11).replace(/ {3}\(README.*$/, ''));
}

test('the banner: the onion and I2P listeners are for tor and i2pd only, not URLs to open; until their origins are set it says how to set them; and how to get a key, in commands that work as printed', async (t) => {
  t.timeout(120_000);
  const { child, banner, ports, dataDir } = await start({});
  t.teardown(() => child.kill('SIGKILL'));

  t.regex(lineOf(banner, 'clearnet'), new RegExp(`listening on 127\\.0\\.0\\.1:${ports.clearnet} +serves http://127\\.0\\.0\\.1:${ports.clearnet}$`), 'the clearnet URL is the one to open');
  const onion = block(banner, 'onion');
  t.regex(onion, new RegExp(`listening on 127\\.0\\.0\\.1:${ports.onion} +for tor only: tor's onion service forwards to it; anything else gets 400 proxy_header_required`));
  t.notRegex(onion, /serves|http:\/\/127/, 'no onion URL a person would try to open');
  t.regex(onion, /no public address yet: set OBSCURA_ONION_ORIGIN to the \.onion address deploy\/tor\/run\.sh prints/);
  const i2p = block(banner, 'i2p');
  t.regex(i2p, new RegExp(`listening on 127\\.0\\.0\\.1:${ports.i2p} +for i2pd only: i2pd's server tunnel forwards to it`));
  t.notRegex(i2p, /serves|http:\/\/127/);
  t.regex(i2p, /no public address yet: set OBSCURA_I2P_ORIGIN to the \.b32\.i2p address deploy\/i2p\/run\.sh prints/);
  // the key commands, copied from the banner into a shell in the checkout, give a key that works
  const commands = keyCommands(banner);
  t.deepEqual(commands, [
    'bin/obscura account create you@example.org --verified',
    'KEY=$(bin/obscura key create you@example.org)',
    `curl -H "X-Api-Key: $KEY" http://127.0.0.1:${ports.clearnet}/api/account`,
  ]);
  const account = execFileSync('bash', ['-ec', commands.join('\n')], { env: { ...process.env, OBSCURA_DATA_DIR: dataDir }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  t.like(JSON.parse(account.trim().split('\n').pop()!), { email: 'you@example.org', verified: true, active: true }, account);
  t.regex(banner, /open http:\/\/127\.0\.0\.1:\d+\/ in a browser \(or the onion in Tor Browser\)/);

  // what the banner says is true: a browser pointed at the onion listener is refused
  const res = await fetch(`http://127.0.0.1:${ports.onion}/`);
  t.is(res.status, 400);
  t.is(((await res.json()) as { error: string }).error, 'proxy_header_required');
  await stop(child);
});

test('the banner names the public .onion and .b32.i2p addresses once they are set; without the PROXY protocol it does not promise a 400', async (t) => {
  t.timeout(120_000);
  const { child, banner } = await start({ OBSCURA_ONION_ORIGIN: ONION, OBSCURA_I2P_ORIGIN: I2P, OBSCURA_ONION_PROXY_PROTOCOL: 'off' });
  t.teardown(() => child.kill('SIGKILL'));
  const onion = block(banner, 'onion');
  t.regex(onion, /for tor only: tor's onion service forwards to it$/m);
  t.false(onion.includes('proxy_header_required'));
  t.true(onion.includes(`people open ${ONION}/ in Tor Browser`), onion);
  t.false(onion.includes('OBSCURA_ONION_ORIGIN'));
  const i2p = block(banner, 'i2p');
  t.true(i2p.includes(`people open ${I2P}/ in a browser set up for I2P`), i2p);
  t.true(banner.includes(`(or ${ONION}/ in Tor Browser)`), 'the pages line names the onion address');
  await stop(child);
});
