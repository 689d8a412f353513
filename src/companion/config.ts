// The companion's settings, all from the environment. A bad value does not stop the process:
// the tools answer it as an {error} naming the variable, which the agent can show its person
// (an MCP server that dies at start leaves most clients with nothing to say).
import { CompanionError } from './errors.ts';

export interface CompanionConfig {
  /** e.g. http://127.0.0.1:8080; every request goes to this origin and nowhere else. */
  origin: string;
  apiKey: string;
  /** socks5h://host:port (or socks5/socks4a/socks4), or undefined for plain connections. */
  socksProxy?: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const PROXY_SCHEMES = ['socks5h:', 'socks5:', 'socks4a:', 'socks4:'];

export function readConfig(env: NodeJS.ProcessEnv): CompanionConfig | CompanionError {
  const raw = env.OBSCURA_BASE_URL?.trim() || DEFAULT_BASE_URL;
  let base: URL;
  try {
    base = new URL(raw);
  } catch {
    return bad('OBSCURA_BASE_URL is not a URL; set it to the service origin, e.g. http://127.0.0.1:8080.');
  }
  if (!['http:', 'https:'].includes(base.protocol)) return bad('OBSCURA_BASE_URL must start with http:// or https://.');
  if (base.username || base.password) return bad('OBSCURA_BASE_URL must not carry a user name or password.');
  // the service hands out every path from its origin: a prefix would be silently dropped
  if (base.pathname !== '/' || base.search || base.hash) return bad('OBSCURA_BASE_URL must be an origin only (scheme, host and port), without a path.');

  let socksProxy: string | undefined;
  const proxy = env.OBSCURA_SOCKS_PROXY?.trim();
  if (proxy) {
    let p: URL;
    try {
      p = new URL(proxy);
    } catch {
      return bad('OBSCURA_SOCKS_PROXY is not a URL; use e.g. socks5h://127.0.0.1:9050.');
    }
    if (!PROXY_SCHEMES.includes(p.protocol)) return bad('OBSCURA_SOCKS_PROXY must be socks5h://, socks5://, socks4a:// or socks4:// (socks5h for Tor).');
    socksProxy = proxy;
  }
  // An onion or I2P name must be resolved by the proxy: asked of the system resolver, it
  // would leak which hidden site this machine visits (and fail anyway).
  const hidden = /\.(onion|i2p)$/i.test(base.hostname);
  if (hidden && !socksProxy) return bad(`${base.hostname.endsWith('.i2p') ? 'An I2P' : 'An onion'} address needs OBSCURA_SOCKS_PROXY, e.g. socks5h://127.0.0.1:9050 (Tor) or socks5h://127.0.0.1:4447 (i2pd).`);
  if (hidden && socksProxy && /^socks(5|4):/i.test(socksProxy)) {
    return bad('OBSCURA_SOCKS_PROXY must resolve names at the proxy for an onion or I2P address: use socks5h:// or socks4a://.');
  }

  const apiKey = env.OBSCURA_API_KEY?.trim() ?? '';
  if (!apiKey) return new CompanionError('missing_api_key', 'OBSCURA_API_KEY is not set in the companion\'s environment; add the key from "npm run cli -- key create <email>" to the MCP client\'s configuration of obscura-mcp.');
  // the key goes in a header; a stray character would fail every request with a vaguer error
  if (!/^[\x21-\x7e]+$/.test(apiKey)) return bad('OBSCURA_API_KEY holds characters no key has (spaces, line breaks or non-ASCII); copy it again.');
  return { origin: base.origin, apiKey, socksProxy };
}

const bad = (message: string) => new CompanionError('bad_configuration', message);

/** The proxy as host:port, for messages: a SOCKS user name may be a Tor isolation token. */
export function proxyShown(proxy: string): string {
  const u = new URL(proxy);
  return `${u.protocol}//${u.host}`;
}
