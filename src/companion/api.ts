// The REST client: node:http(s) with one agent (a SOCKS agent when OBSCURA_SOCKS_PROXY is set,
// so an onion origin is reached through tor, name resolved there). Every request goes to the
// configured origin; paths the service hands out are joined to it, never followed elsewhere.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { SocksProxyAgent } from 'socks-proxy-agent';
import { proxyShown, type CompanionConfig } from './config.ts';
import { cancelled, CompanionError } from './errors.ts';
import { errorFrom, retryable, unreachable } from './service-errors.ts';

export interface SendOptions {
  headers?: Record<string, string>;
  /** A string, or a function opening the body afresh (so a retry can send it again). */
  body?: string | (() => Readable);
  signal?: AbortSignal;
  /** Longest silence on the socket; long polls and slow Tor circuits need a generous one. */
  idleMs?: number;
}

const RETRY_DELAYS_MS = [1000, 3000];
const JSON_MAX_BYTES = 16 * 1024 * 1024;

export class Api {
  readonly origin: string;
  readonly agent: http.Agent;
  readonly #key: string;
  readonly #via?: string;

  constructor(config: CompanionConfig) {
    this.origin = config.origin;
    this.#key = config.apiKey;
    this.#via = config.socksProxy && proxyShown(config.socksProxy);
    const Plain = this.origin.startsWith('https:') ? https.Agent : http.Agent;
    this.agent = config.socksProxy ? new SocksProxyAgent(config.socksProxy, { keepAlive: true }) : new Plain({ keepAlive: true });
  }

  /** The key header, for clients that make their own requests (tus-js-client). */
  get authHeaders(): Record<string, string> {
    return { 'X-Api-Key': this.#key };
  }

  /** One request; resolves with the response (any status) once its headers arrive. */
  send(method: string, path: string, opts: SendOptions = {}): Promise<http.IncomingMessage> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const url = new URL(path, this.origin);
      const transport = url.protocol === 'https:' ? https : http;
      const req = transport.request(url, { method, agent: this.agent, headers: { ...this.authHeaders, ...opts.headers }, signal });
      req.setTimeout(opts.idleMs ?? 60_000, () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
      req.once('response', resolve);
      req.once('error', (err) => reject(signal?.aborted ? cancelled() : this.unreachable(err)));
      const body = opts.body;
      if (typeof body === 'function') {
        const stream = body();
        stream.once('error', (err) => req.destroy(err));
        // a refused or broken request must not keep the file open
        req.once('close', () => stream.destroy());
        stream.pipe(req);
      } else req.end(body);
    });
  }

  unreachable(err: NodeJS.ErrnoException): CompanionError {
    return err instanceof CompanionError ? err : unreachable(err, this.origin, this.#via);
  }

  /** A JSON call: the parsed answer of a 2xx, else the service's error as a CompanionError. */
  async json(method: string, path: string, body?: unknown, opts: SendOptions & { retry?: boolean } = {}): Promise<any> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = text === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) };
    return this.call(method, path, { ...opts, headers: { ...headers, ...opts.headers }, body: text });
  }

  /** send(), read the JSON answer, retry a 500/502/503/504 twice when opts.retry is not false. */
  async call(method: string, path: string, opts: SendOptions & { retry?: boolean } = {}): Promise<any> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(method, path, opts);
      const parsed = await readJson(res, opts.signal);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return parsed;
      if (opts.retry !== false && attempt < RETRY_DELAYS_MS.length && retryable(status, parsed)) {
        await sleep(RETRY_DELAYS_MS[attempt], undefined, { signal: opts.signal }).catch(() => {
          throw cancelled();
        });
        continue;
      }
      throw errorFrom(status, res.headers, parsed);
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

async function readJson(res: http.IncomingMessage, signal?: AbortSignal): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > JSON_MAX_BYTES) {
        res.destroy();
        throw new CompanionError('bad_answer', 'The service sent an answer far larger than any it should.');
      }
      parts.push(chunk);
    }
  } catch (err) {
    if (err instanceof CompanionError) throw err;
    throw signal?.aborted ? cancelled() : new CompanionError('service_unreachable', 'The connection to the service broke while it answered; try again.');
  }
  const text = Buffer.concat(parts).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
