// A private Tor network on loopback: one directory authority (its v3 keys from tor-gencert) and
// relays, voting every 10 seconds. Nothing here knows of the public network: every tor gets our
// DirAuthority line in place of the default ones (TestingTorNetwork refuses to run otherwise, and
// with our authorities tor uses no fallback directories), and every address is 127.0.0.1
// (checked once with strace over the whole test: every connect() went to 127.0.0.1 or a unix
// socket). A rendezvous needs four relays; the authority counts as one.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './child.ts';
import { startChild, type Child } from './tor-process.ts';
import { Hopeless, until } from './until.ts';

type Options = [string, string][];

export interface TorNetwork {
  /** The DirAuthority line every tor of this network uses. */
  dirAuthority: string;
  nodes: { nick: string; dir: string; proc: Child }[];
  /** The command-line options a client or onion service needs on this network (no SocksPort). */
  clientOptions(): string[];
  /** Waits until every node's directory cache has a consensus listing all nodes as running
   * HSDirs, and all their microdescriptors: a client can then bootstrap from any of them. */
  waitForConsensus(ms: number): Promise<void>;
  /** How many onion-service descriptors each node (every one is an HSDir) has accepted. */
  descriptorsStored(): Record<string, number>;
  /** The tail of every node's log, for failure messages. */
  logs(): string;
  stop(): Promise<{ nick: string; killed: boolean }[]>;
}

// Shortest schedule tor accepts: votes every 10 s, 2 s to vote and 2 s to publish; the first
// consensus comes one initial interval (5 s) after start.
const AUTHORITY: Options = [
  ['AuthoritativeDirectory', '1'],
  ['V3AuthoritativeDirectory', '1'],
  ['V3AuthVotingInterval', '10'],
  ['V3AuthVoteDelay', '2'],
  ['V3AuthDistDelay', '2'],
  ['TestingV3AuthInitialVotingInterval', '5'],
  ['TestingV3AuthInitialVoteDelay', '2'],
  ['TestingV3AuthInitialDistDelay', '2'],
  ['V3AuthNIntervalsValid', '2'],
  // every relay gets every flag at once: no bandwidth or uptime history on a fresh network
  ['TestingDirAuthVoteExit', '*'],
  ['TestingDirAuthVoteHSDir', '*'],
  ['TestingDirAuthVoteGuard', '*'],
  ['TestingMinExitFlagThreshold', '0'],
  ['ContactInfo', 'auth@test.invalid'],
];

const PUBLISHED = /Publish request for HS descriptor handled successfully/g;

const render = (opts: Options) => opts.map(([k, v]) => `${k} ${v}`).join('\n') + '\n';

function relayOptions(nick: string, dir: string, orPort: number): Options {
  return [
    ['TestingTorNetwork', '1'],
    ['DataDirectory', dir],
    ['Nickname', nick],
    ['Address', '127.0.0.1'],
    ['ORPort', `127.0.0.1:${orPort}`],
    ['SocksPort', '0'],
    ['AssumeReachable', '1'],
    ['ExitRelay', '0'],
    ['ExitPolicy', 'reject *:*'],
    ['PathsNeededToBuildCircuits', '0.67'],
    ['TestingClientMaxIntervalWithoutRequest', '1 second'],
    // caches fetch each new consensus as soon as the authority has it, not some time later
    ['FetchDirInfoEarly', '1'],
    ['FetchDirInfoExtraEarly', '1'],
    ['ShutdownWaitLength', '0'],
    ['__OwningControllerProcess', String(process.pid)],
    ['Log', `notice file ${path.join(dir, 'notice.log')}`],
    // the HSDir's word that it took a descriptor: the onion is then reachable
    ['Log', `[rend]info file ${path.join(dir, 'rend.log')}`],
  ];
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

// A relay is a directory cache too: a client may ask any of them for the microdescriptors, and
// one that has the consensus but not yet the microdescriptors answers 404 and is not asked again
// for 10 s. So the network is ready when every node's cache holds both, complete.
function cacheReady(dir: string, nicks: string[]): boolean {
  const consensus = read(path.join(dir, 'cached-microdesc-consensus'));
  // one entry per relay: "r nick ...", then its "s flags" and "m digest" lines
  const entries = consensus.split(/^r /m).slice(1);
  const listed = entries.filter((e) => /^s (?=.*\bHSDir\b)(?=.*\bRunning\b)/m.test(e)).map((e) => e.split(' ')[0]);
  if (!nicks.every((n) => listed.includes(n))) return false;
  // a microdescriptor's digest: SHA-256 of its text from "onion-key" on, base64 without padding
  const cached = new Set(
    (read(path.join(dir, 'cached-microdescs')) + read(path.join(dir, 'cached-microdescs.new')))
      .split(/^(?=@|onion-key$)/m)
      .filter((md) => md.startsWith('onion-key'))
      .map((md) => createHash('sha256').update(md).digest('base64').replace(/=+$/, '')),
  );
  return entries.every((e) => cached.has(/^m (\S+)$/m.exec(e)?.[1] ?? '-'));
}

function tail(file: string, n = 2000): string {
  return existsSync(file) ? readFileSync(file, 'utf8').slice(-n) : '(no log)';
}

function run(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

export async function startTorNetwork(root: string, relays = 3): Promise<TorNetwork> {
  const nodes: TorNetwork['nodes'] = [];
  try {
    return await build(root, relays, nodes);
  } catch (e) {
    await Promise.all(nodes.map((n) => n.proc.stop('SIGKILL')));
    throw e;
  }
}

async function build(root: string, relays: number, nodes: TorNetwork['nodes']): Promise<TorNetwork> {
  const authDir = path.join(root, 'auth');
  mkdirSync(path.join(authDir, 'keys'), { recursive: true, mode: 0o700 });
  const [authOr, authDirPort] = [await freePort(), await freePort()];

  // The authority's v3 identity and signing keys, and its certificate (empty passphrase).
  const keys = path.join(authDir, 'keys');
  run('tor-gencert', ['--create-identity-key', '-m', '12', '-a', `127.0.0.1:${authDirPort}`, '-i', path.join(keys, 'authority_identity_key'), '-s', path.join(keys, 'authority_signing_key'), '-c', path.join(keys, 'authority_certificate'), '--passphrase-fd', '0'], '\n');
  const v3ident = /^fingerprint ([0-9A-F]{40})$/m.exec(readFileSync(path.join(keys, 'authority_certificate'), 'utf8'))?.[1];
  if (!v3ident) throw new Error('tor-gencert wrote no fingerprint in the authority certificate');

  const authTorrc = path.join(root, 'auth.torrc');
  writeFileSync(authTorrc, render([...relayOptions('auth', authDir, authOr), ['DirPort', `127.0.0.1:${authDirPort}`], ...AUTHORITY]));
  // Its relay identity: TestingTorNetwork wants some DirAuthority even to print it.
  const placeholder = `auth orport=${authOr} v3ident=${v3ident} 127.0.0.1:${authDirPort} ${'0'.repeat(40)}`;
  const listed = run('tor', ['--defaults-torrc', '/dev/null', '-f', authTorrc, '--DirAuthority', placeholder, '--list-fingerprint', '--hush']);
  const fingerprint = /^auth ((?:[0-9A-F]{4} ?){10})$/m.exec(listed)?.[1].replace(/ /g, '');
  if (!fingerprint) throw new Error(`tor --list-fingerprint printed no fingerprint: ${listed}`);
  const dirAuthority = `auth orport=${authOr} v3ident=${v3ident} 127.0.0.1:${authDirPort} ${fingerprint}`;
  writeFileSync(authTorrc, `DirAuthority ${dirAuthority}\n`, { flag: 'a' });

  const launch = (nick: string, dir: string, torrc: string) => {
    nodes.push({ nick, dir, proc: startChild(`tor ${nick}`, ['tor', '--defaults-torrc', '/dev/null', '-f', torrc]) });
  };
  launch('auth', authDir, authTorrc);
  for (let i = 1; i <= relays; i++) {
    const nick = `relay${i}`;
    const dir = path.join(root, nick);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const torrc = path.join(root, `${nick}.torrc`);
    writeFileSync(torrc, render([...relayOptions(nick, dir, await freePort()), ['DirAuthority', dirAuthority]]));
    launch(nick, dir, torrc);
  }

  const logs = () => nodes.map((n) => `--- ${n.nick} (${n.proc.alive() ? 'running' : 'exited'})\n${n.proc.output().slice(-1000)}${tail(path.join(n.dir, 'notice.log'))}`).join('\n');

  return {
    dirAuthority,
    nodes,
    clientOptions: () => [
      '--TestingTorNetwork', '1',
      '--DirAuthority', dirAuthority,
      '--PathsNeededToBuildCircuits', '0.67',
      '--TestingClientMaxIntervalWithoutRequest', '1 second',
      '--__OwningControllerProcess', String(process.pid),
    ],
    async waitForConsensus(ms) {
      const want = nodes.map((n) => n.nick);
      let lacking: string[] = [];
      await until('every relay serving a consensus that lists all relays as running HSDirs, with their microdescriptors', ms, () => {
        const dead = nodes.find((n) => !n.proc.alive());
        if (dead) throw new Hopeless(`${dead.nick} exited`);
        lacking = nodes.filter((n) => !cacheReady(n.dir, want)).map((n) => n.nick);
        return lacking.length ? undefined : true;
      }).catch((e: Error) => {
        throw new Error(`${e.message}; not yet: ${lacking.join(', ')}\n${logs()}`);
      });
    },
    descriptorsStored() {
      const counts: Record<string, number> = {};
      for (const n of nodes) {
        const log = path.join(n.dir, 'rend.log');
        counts[n.nick] = existsSync(log) ? (readFileSync(log, 'utf8').match(PUBLISHED)?.length ?? 0) : 0;
      }
      return counts;
    },
    logs,
    async stop() {
      return Promise.all(nodes.map(async (n) => ({ nick: n.nick, killed: (await n.proc.stop('SIGTERM', 10_000)).killed })));
    },
  };
}
