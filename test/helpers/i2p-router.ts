// What a two-router private I2P network needs, and only that: each router's network options,
// the site's deploy folder (the shipped files, zero-hop tunnels) and the visitor's own config.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SHIPPED = path.resolve(import.meta.dirname, '../../deploy/i2p');

// Not the main network's id (2): should a packet ever get out, no real router would talk to it.
const NET_ID = '77';

/**
 * The options that put a router on the private network: its own address (published and bound),
 * a fixed port, no reseed (the routers learn of each other from a copied router.info), floodfill
 * (someone must hold the lease sets), NTCP2 only. i2pd 2.45.1's --nat is a switch that cannot be
 * turned off on the command line; the explicit --host is what the router publishes either way.
 */
export function networkOptions(ip: string, port: number): string[] {
  return ['--host', ip, '--address4', ip, '--port', String(port), '--reseed.urls', '', '--floodfill', '--ssu2.enabled', 'false', '--ntcp2.enabled', 'true', '--netid', NET_ID];
}

/**
 * A folder to run the site from: the shipped run.sh and i2pd.conf as they are (symlinks; run.sh
 * reads its configs from the folder it is called from), and the shipped tunnels.conf with only
 * its tunnel lengths set to 0, since two routers cannot build 3-hop tunnels. The transformation
 * is textual and first checks that the shipped lines are there.
 */
export function siteDeployFolder(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const f of ['run.sh', 'i2pd.conf']) symlinkSync(path.join(SHIPPED, f), path.join(dir, f));
  let conf = readFileSync(path.join(SHIPPED, 'tunnels.conf'), 'utf8');
  for (const way of ['inbound', 'outbound']) {
    const line = new RegExp(`^${way}\\.length = \\d+$`, 'm');
    if (!line.test(conf)) throw new Error(`deploy/i2p/tunnels.conf has no "${way}.length = N" line to shorten for the test`);
    conf = conf.replace(line, `${way}.length = 0`);
  }
  writeFileSync(path.join(dir, 'tunnels.conf'), conf);
  return dir;
}

/** The visitor's router: every interface off but one client tunnel to the site, on port 80 as a browser would ask. */
export function visitorConfig(dir: string, siteB32: string, tunnelPort: number): { conf: string; tunconf: string } {
  mkdirSync(dir, { recursive: true });
  const conf = path.join(dir, 'i2pd.conf');
  const tunconf = path.join(dir, 'tunnels.conf');
  writeFileSync(
    conf,
    ['log = stdout', 'loglevel = warn', 'daemon = false', 'ipv4 = true', 'ipv6 = false', 'nat = false',
      ...['http', 'httpproxy', 'socksproxy', 'sam', 'bob', 'i2cp', 'i2pcontrol', 'upnp', 'addressbook', 'nettime'].flatMap((s) => [`[${s}]`, 'enabled = false']),
    ].join('\n') + '\n',
  );
  writeFileSync(
    tunconf,
    ['[visitor]', 'type = client', 'address = 127.0.0.1', `port = ${tunnelPort}`, `destination = ${siteB32}.b32.i2p`, 'destinationport = 80',
      // persistent keys, so the test knows the visitor's destination and can look for it
      'keys = visitor.dat', 'inbound.length = 0', 'outbound.length = 0'].join('\n') + '\n',
  );
  return { conf, tunconf };
}
