// Headers that name the visitor on an anonymity network. i2pd's HTTP server tunnel adds
// X-I2P-DestHash, -DestB64 and -DestB32; only the I2P listener can receive them from i2pd,
// anywhere else they are a client's forgery. They are taken off the request before Koa runs,
// so no middleware, log line or error report can ever see them. On the I2P listener the hash
// becomes an opaque visitor tag (HMAC under a key that lives only in this process), enough
// to tell visitors apart for limits without being able to name or link them.
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Network } from '../config.ts';
import { UNNAMED_VISITOR } from '../domain/rate-limits.ts';

const VISITOR_HEADER = /^x-i2p-/i;
const tagKey = randomBytes(32);
const visitors = new WeakMap<IncomingMessage, string>();

/** Removes every X-I2P-* header; on the I2P listener, remembers the visitor's opaque tag. */
export function takeNetworkHeaders(network: Network, req: IncomingMessage): void {
  const raw = req.rawHeaders;
  let destHash: string | undefined;
  let found = false;
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (VISITOR_HEADER.test(raw[i])) {
      found = true;
      if (raw[i].toLowerCase() === 'x-i2p-desthash') destHash = raw[i + 1];
    } else kept.push(raw[i], raw[i + 1]);
  }
  // i2pd's HTTP server tunnel names every visitor; a request without the hash (a local
  // process, a tunnel of another type) is counted with all such under one shared tag
  if (network === 'i2p' && !destHash) visitors.set(req, UNNAMED_VISITOR);
  if (!found) return;
  // Node builds headers and headersDistinct lazily from rawHeaders and its own count of them:
  // build both from the original first, then cut the visitor's out of all three.
  const { headers, headersDistinct } = req;
  for (const name of Object.keys(headers)) if (VISITOR_HEADER.test(name)) delete headers[name];
  for (const name of Object.keys(headersDistinct)) if (VISITOR_HEADER.test(name)) delete headersDistinct[name];
  req.rawHeaders = kept;
  if (network === 'i2p' && destHash) visitors.set(req, createHmac('sha256', tagKey).update(destHash).digest('base64url').slice(0, 22));
}

/** The I2P visitor's opaque tag (UNNAMED_VISITOR without a header from i2pd), or undefined on other networks. */
export function visitorTag(req: IncomingMessage): string | undefined {
  return visitors.get(req);
}
