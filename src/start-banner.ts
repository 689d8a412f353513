// What the service prints once it is up: where each listener is, which URL a person opens, and
// the first steps (health, a key, the pages). The onion and I2P listeners are not addresses a
// person can open: only the local tor or i2pd reaches them, so their lines say so and name
// the public .onion or .b32.i2p origin instead (or how to set it).
import type { Config, Network } from './config.ts';

export interface BannerInput {
  config: Config;
  listeners: { network: Network; address: string }[];
  metricsAddress?: string;
  signUpOpen: boolean;
}

const COLUMN = 22;
const INDENT = ' '.repeat(11);

/** Why a person cannot open the listener itself, and who forwards to it. */
function forwarderNote(network: 'onion' | 'i2p', config: Config): string {
  if (network === 'i2p') return "for i2pd only: i2pd's server tunnel forwards to it";
  const refused = config.abuse.onionProxyProtocol === 'required' ? '; anything else gets 400 proxy_header_required' : '';
  return `for tor only: tor's onion service forwards to it${refused}`;
}

function listenerLines(network: Network, address: string, config: Config): string[] {
  const head = `  ${network.padEnd(8)} listening on ${address.padEnd(COLUMN)}`;
  if (network === 'clearnet') return [`${head} serves ${config.origin.clearnet}`];
  const lines = [`${head} ${forwarderNote(network, config)}`];
  const browser = network === 'onion' ? 'Tor Browser' : 'a browser set up for I2P';
  if (config.originSet[network]) lines.push(`${INDENT}people open ${config.origin[network]}/ in ${browser}`);
  else {
    const [setting, script, kind] = network === 'onion' ? ['OBSCURA_ONION_ORIGIN', 'deploy/tor/run.sh', '.onion'] : ['OBSCURA_I2P_ORIGIN', 'deploy/i2p/run.sh', '.b32.i2p'];
    lines.push(`${INDENT}no public address yet: set ${setting} to the ${kind} address ${script} prints`);
  }
  return lines;
}

export function startBanner({ config, listeners, metricsAddress, signUpOpen }: BannerInput): string {
  const lines = listeners.flatMap((l) => listenerLines(l.network, l.address, config));
  if (metricsAddress) lines.push(`  metrics  listening on ${metricsAddress.padEnd(COLUMN)} serves GET /metrics (Prometheus)`);
  const onion = listeners.some((l) => l.network === 'onion') && config.originSet.onion ? `${config.origin.onion}/` : 'the onion';
  return (
    `obscura ${config.version} is up\n${lines.join('\n')}\n` +
    `  health:  curl ${config.origin.clearnet}/api/status\n` +
    // the key commands as the README gives them: bin/obscura prints the key alone (npm run cli adds npm's banner)
    `  a key:   bin/obscura account create you@example.org --verified\n` +
    `           KEY=$(bin/obscura key create you@example.org)\n` +
    `  then:    curl -H "X-Api-Key: $KEY" ${config.origin.clearnet}/api/account   (README.md: an example per product; docs/api.md: the whole API)\n` +
    `  pages:   open ${config.origin.clearnet}/ in a browser (or ${onion} in Tor Browser) and sign in with the key;\n` +
    `           ${signUpOpen ? 'people can also sign up (mail goes through OBSCURA_SMTP_URL)' : 'sign-up is closed until OBSCURA_SMTP_URL names a mail relay'}\n`
  );
}
