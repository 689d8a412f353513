// A connection the test drives byte by byte, as a slow or hostile client does: write the
// request in pieces (or not at all), then read the one answer the server gives.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  json: any;
}

export interface RawConnection {
  socket: net.Socket;
  write(bytes: string | Buffer): void;
  /** The first whole answer (by Content-Length), or what came before the server closed. */
  answer(): Promise<RawAnswer>;
  /** Resolves once the server has closed the connection. */
  closed(): Promise<void>;
  close(): void;
}

export async function rawConnection(base: string): Promise<RawConnection> {
  const url = new URL(base);
  const socket = net.connect({ host: url.hostname, port: Number(url.port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {}); // a reset after the answer is the server closing, not a failure
  let data = Buffer.alloc(0);
  const waiting: (() => void)[] = [];
  let ended = false;
  socket.on('data', (c: Buffer) => {
    data = Buffer.concat([data, c]);
    waiting.splice(0).forEach((w) => w());
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => {
    ended = true;
    waiting.splice(0).forEach((w) => w());
    resolve();
  }));
  const parse = (): RawAnswer | undefined => {
    const end = data.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? NaN);
    const body = data.subarray(end + 4);
    if (Number.isFinite(length) ? body.length < length : !ended) return undefined;
    const text = body.subarray(0, Number.isFinite(length) ? length : undefined).toString('utf8');
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: Number(statusLine.split(' ')[1]), headers, body: text, json };
  };
  return {
    socket,
    write: (bytes) => socket.write(bytes),
    answer: () =>
      new Promise((resolve, reject) => {
        const check = () => {
          const a = parse();
          if (a) return resolve(a);
          if (ended) return reject(new Error(`the server closed the connection without a whole answer: ${JSON.stringify(data.toString('latin1').slice(0, 300))}`));
          waiting.push(check);
        };
        check();
      }),
    closed: () => closed,
    close: () => socket.destroy(),
  };
}
