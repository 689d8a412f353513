// An HTTP answer written straight onto a socket, for what the listener refuses before Node's
// parser or any app sees the request (a full listener, a missing PROXY header, a request Node
// could not parse). It carries the same JSON shape and security headers as every app answer.
import http from 'node:http';
import type { Socket } from 'node:net';
import { SECURITY_HEADERS } from './middleware/security-headers.ts';

export function rawAnswer(status: number, code: string, message: string, extra: Record<string, string> = {}): string {
  const body = JSON.stringify({ error: code, message });
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    ...SECURITY_HEADERS,
    ...extra,
    Connection: 'close',
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${lines}\r\n${body}`;
}

const DRAIN_MS = 5_000; // a refused connection is closed by then, whatever the client does

/** Writes the answer, reads and drops whatever still comes for a moment (so the answer is not lost to a reset), and closes. */
export function answerAndClose(socket: Socket, answer: string): void {
  socket.end(answer);
  socket.resume();
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}
