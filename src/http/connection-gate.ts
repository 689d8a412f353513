// A listener's front door, before Node's HTTP parser sees a connection: at most
// `maxConnections` open at once (the next ones are answered 503 with Retry-After once their
// request starts; past twice as many, Node refuses them at accept and only a count is logged),
// and on the onion listener tor's PROXY line is read first and the circuit tagged.
// Node's own 'connection' listener is taken off the server and called once a socket is let in,
// so the server keeps listening, timing out and closing connections exactly as before.
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Network } from '../config.ts';
import type { Logger } from '../log.ts';
import { readProxyHeader, tagCircuit } from './proxy-protocol.ts';
import { answerAndClose, rawAnswer } from './raw-answer.ts';

export interface GateOptions {
  network: Network;
  /** Open connections at once; Infinity: no cap. */
  maxConnections: number;
  /** Require and read tor's PROXY protocol v1 line (the onion listener only). */
  proxyProtocol: boolean;
  /** How long a connection may take to send its PROXY line or, when refused, its first bytes. */
  waitMs: number;
  log?: Logger;
}

export interface Gate {
  /** Ends the connections not yet handed to Node (a PROXY line awaited, a refusal draining). */
  closeHeld(): void;
}

const BUSY_RETRY_AFTER_S = 5;
const LOG_EVERY_MS = 60_000;

type Counted = 'busy' | 'dropped' | 'no_proxy_header';

export function gateConnections(server: http.Server, o: GateOptions): Gate {
  const nodeAccept = server.listeners('connection')[0] as (socket: Socket) => void;
  server.removeListener('connection', nodeAccept);
  const held = new Set<Socket>();
  const note = refusalLog(o);
  let open = 0;
  if (Number.isFinite(o.maxConnections)) {
    server.maxConnections = o.maxConnections * 2;
    server.on('drop', () => note('dropped'));
  }

  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
    const busy = open > o.maxConnections;
    if (!busy && !o.proxyProtocol) {
      nodeAccept.call(server, socket);
      return;
    }
    held.add(socket);
    socket.once('close', () => held.delete(socket));
    const onError = () => socket.destroy();
    socket.on('error', onError);
    const late = setTimeout(() => socket.destroy(), o.waitMs);
    late.unref();
    void admit(socket, busy).then((admitted) => {
      clearTimeout(late);
      if (!admitted) return;
      held.delete(socket);
      socket.removeListener('error', onError);
      nodeAccept.call(server, socket);
      socket.resume(); // what followed the PROXY line was unshifted: Node's parser reads it first
    });
  });

  async function admit(socket: Socket, busy: boolean): Promise<boolean> {
    if (o.proxyProtocol) {
      const r = await readProxyHeader(socket);
      if (!r.ok) {
        if (r.why === 'closed') return false;
        note('no_proxy_header');
        const [code, said] =
          r.why === 'missing'
            ? ['proxy_header_required', 'This listener takes connections from tor only, and tor begins each with a PROXY protocol line (HiddenServiceExportCircuitID haproxy). Set OBSCURA_ONION_PROXY_PROTOCOL=off to serve without it.']
            : ['invalid_proxy_header', 'The PROXY protocol line is not valid.'];
        answerAndClose(socket, rawAnswer(400, code, said));
        return false;
      }
      tagCircuit(socket, r.source);
    }
    if (!busy) return true;
    note('busy');
    await firstBytes(socket); // answered once the request starts, so the client reads it as the answer
    if (!socket.destroyed) {
      answerAndClose(
        socket,
        rawAnswer(503, 'too_many_connections', `This listener has ${o.maxConnections} connections open, the most it takes; try again in ${BUSY_RETRY_AFTER_S} seconds.`, {
          'Retry-After': String(BUSY_RETRY_AFTER_S),
        }),
      );
    }
    return false;
  }

  return {
    closeHeld() {
      for (const s of held) s.destroy();
    },
  };
}

function firstBytes(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readableLength > 0 || socket.destroyed) return resolve();
    socket.once('data', () => resolve());
    socket.once('close', () => resolve());
    socket.resume();
  });
}

// Refusals are counted, never described: no address, no circuit, at most one line a minute.
function refusalLog(o: GateOptions): (what: Counted) => void {
  const counts: Record<Counted, number> = { busy: 0, dropped: 0, no_proxy_header: 0 };
  let quietUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    o.log?.warn({ network: o.network, ...counts }, 'connections refused');
    for (const k of Object.keys(counts) as Counted[]) counts[k] = 0;
    quietUntil = Date.now() + LOG_EVERY_MS;
  };
  return (what) => {
    counts[what]++;
    if (timer) return;
    timer = setTimeout(flush, Math.max(0, quietUntil - Date.now()));
    timer.unref();
  };
}
