// One HTTP listener per network, each serving its own app. Onion and I2P listeners sit on
// loopback or a unix socket and are reached only through the local tor and i2pd.
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import http from 'node:http';
import net, { type Socket } from 'node:net';
import type Koa from 'koa';
import type { Config, ListenAddress, Network } from '../config.ts';
import type { Logger } from '../log.ts';
import { gateConnections, type Gate } from './connection-gate.ts';
import type { AppState } from './context.ts';
import { takeNetworkHeaders } from './network-headers.ts';
import { answerAndClose, rawAnswer } from './raw-answer.ts';

export interface Listener {
  network: Network;
  server: http.Server;
  /** Where it listens, for the start-up banner and the tests. */
  address: string;
  gate: Gate;
}

/** What a listener enforces before its app runs. Bare listeners (tests of one middleware) cap nothing. */
export interface ListenOptions {
  /** Open connections at once; the next ones are answered 503 (docs/api.md "Limits"). */
  maxConnections?: number;
  headersTimeoutMs?: number;
  /** The whole request, body included: a backstop behind the body-rate watcher. */
  requestTimeoutMs?: number;
  /** The onion listener only: require tor's PROXY protocol v1 line on every connection. */
  onionProxyProtocol?: 'required' | 'off';
  log?: Logger;
}

export function listenOptions(config: Config, log: Logger): ListenOptions {
  const a = config.abuse;
  return { maxConnections: a.maxConnections, headersTimeoutMs: a.headersTimeoutMs, requestTimeoutMs: a.requestTimeoutMs, onionProxyProtocol: a.onionProxyProtocol, log };
}

export async function listen(network: Network, addr: ListenAddress, app: Koa<AppState>, opts: ListenOptions = {}): Promise<Listener | undefined> {
  if (addr.kind === 'off') return undefined;
  const handle = app.callback();
  const headersTimeout = opts.headersTimeoutMs ?? 30_000;
  const server = http.createServer(
    {
      maxHeaderSize: 16 * 1024,
      headersTimeout,
      // A slow body is ended long before this by the body-rate watcher (middleware/body-rate.ts);
      // this bounds one that keeps the minimum rate (100 MiB at 1 KiB/s would take 28 hours).
      requestTimeout: opts.requestTimeoutMs ?? 3_600_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      takeNetworkHeaders(network, req);
      void handle(req, res);
    },
  );
  server.timeout = 120_000; // an idle socket (a stalled body, a slowloris) is closed after 2 minutes
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket));
  // only the onion listener is reached through tor, so only it can carry tor's PROXY line
  const gate = gateConnections(server, {
    network,
    maxConnections: opts.maxConnections ?? Infinity,
    proxyProtocol: network === 'onion' && opts.onionProxyProtocol === 'required',
    waitMs: headersTimeout,
    log: opts.log,
  });
  const address = await bind(server, addr, network);
  return { network, server, address, gate };
}

/** Binds `server` to a TCP address or a unix socket (mode 0660, a stale file cleared first); where it listens, as the banner prints it. */
export async function bind(server: http.Server, addr: Exclude<ListenAddress, { kind: 'off' }>, name: Network | 'metrics'): Promise<string> {
  if (addr.kind === 'unix') await clearStaleSocket(name, addr.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (addr.kind === 'unix') {
      server.listen(addr.path, () => {
        chmodSync(addr.path, 0o660);
        resolve();
      });
    } else {
      server.listen({ host: addr.host, port: addr.port, exclusive: true }, () => resolve());
    }
  });
  const a = server.address();
  return typeof a === 'string' ? `unix:${a}` : a ? `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : '?';
}

export class ListenError extends Error {}

// A socket file left by a process that died is removed; a live one (another instance is
// serving on it) or anything that is not a socket (a mistyped path) is refused, never deleted.
export async function clearStaleSocket(network: Network | 'metrics', path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return; // nothing there
  }
  if (!isSocket) throw new ListenError(`${network} listener: ${path} exists and is not a socket; refusing to replace it`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = net.connect({ path });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new ListenError(`${network} listener: ${path} is in use by another running process`);
  rmSync(path, { force: true });
}

// Errors Node raises before a request reaches the app (oversized headers, malformed
// requests) still get a JSON body and the security headers every answer carries.
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request headers are too large.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ETIMEDOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive.']
        : [400, 'bad_request', 'The request could not be parsed.'];
  answerAndClose(socket, rawAnswer(status, code, message));
}

export function closeListener(l: Listener): Promise<void> {
  return new Promise((resolve) => {
    l.server.close(() => resolve());
    l.server.closeIdleConnections();
    l.gate.closeHeld();
  });
}
