// A client for a service that listens on a unix socket (as in the no-egress test, where the
// service lives in a network namespace of its own and a socket file is the only way in).
// Handed-out URLs name the configured origin; only their path is used, over the socket.
import http from 'node:http';
import * as tus from 'tus-js-client';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

type Product = 'hide' | 'reveal' | 'analyse' | 'convert';
const DONE = ['completed', 'partial', 'failed'];

export function unixClient(socketPath: string, key: string) {
  const request = (method: string, pathOrUrl: string, init: { headers?: Record<string, string>; body?: Buffer | string } = {}) =>
    new Promise<Reply>((resolve, reject) => {
      const p = pathOrUrl.startsWith('/') ? pathOrUrl : new URL(pathOrUrl).pathname + new URL(pathOrUrl).search;
      const headers: Record<string, string | number> = { 'X-Api-Key': key, ...init.headers };
      if (init.body !== undefined) headers['Content-Length'] = Buffer.byteLength(init.body);
      const req = http.request({ socketPath, path: p, method, headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(parts);
          let json: unknown;
          try {
            json = bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined;
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode!, headers: res.headers, bytes, json });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(init.body);
    });

  const json = (method: string, p: string, body?: unknown) =>
    request(method, p, body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  const must = (r: Reply, status: number, what: string): Reply => {
    if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${r.bytes.toString('utf8').slice(0, 500)}`);
    return r;
  };

  const prefix = (p: Product) => (p === 'hide' || p === 'reveal' ? '/api' : `/api/${p}`);

  return {
    request,
    json,

    async session(product: Product): Promise<string> {
      const r = product === 'hide' || product === 'reveal' ? await json('POST', '/api/session', { type: product }) : await json('POST', `${prefix(product)}/session`, {});
      return must(r, 201, `${product} session`).json.upload_uid;
    },

    /** Direct upload (POST /api/upload). */
    async upload(uid: string, step: number, name: string, bytes: Buffer): Promise<void> {
      must(await request('POST', '/api/upload', { headers: { 'X-Upload-Uid': uid, 'X-Upload-Step': String(step), 'X-Filename': encodeURIComponent(name) }, body: bytes }), 201, `upload of ${name}`);
    },

    /** Resumable upload with tus-js-client, over the socket. */
    tus(uid: string, step: number, name: string, bytes: Buffer): Promise<string> {
      return new Promise((resolve, reject) => {
        const u = new tus.Upload(bytes, {
          endpoint: 'http://127.0.0.1/api/tus', // only the path counts: the socket is the way in
          httpStack: new tus.DefaultHttpStack({ socketPath }),
          retryDelays: [],
          headers: { 'X-Api-Key': key },
          metadata: { upload_uid: uid, step: String(step), name },
          onError: reject,
          onSuccess: () => resolve(u.url!),
        });
        u.start();
      });
    },

    /** v1 (SEED-SPEC.md): create-media-url, then multipart PATCHes of offset + file; returns the last PATCH. */
    async v1Upload(name: string, bytes: Buffer, chunk: number): Promise<{ key: string; last: Reply }> {
      const v1 = { api_key: key };
      const created = must(await request('POST', '/v1/upload/create-media-url', { headers: { ...v1, 'Content-Type': 'application/json' }, body: JSON.stringify({ name, size: bytes.length }) }), 201, 'v1 create-media-url');
      const mediaKey = String(created.headers.location).split('/').pop()!;
      let last = created;
      for (let at = 0; at < bytes.length; at += chunk) {
        const form = new FormData();
        form.append('offset', String(at));
        form.append('file', new Blob([bytes.subarray(at, at + chunk)]), 'chunk');
        const encoded = new Response(form); // serialises the multipart body and names its boundary
        const body = Buffer.from(await encoded.arrayBuffer());
        last = await request('PATCH', `/v1/upload/resumable/${mediaKey}`, { headers: { ...v1, 'Content-Type': encoded.headers.get('content-type')! }, body });
      }
      return { key: mediaKey, last };
    },

    /** Starts the job, long-polls until it settles (deadline ms) and returns the last poll. */
    async run(product: Product, uid: string, options: Record<string, unknown>, ms: number): Promise<{ start: Reply; poll: any }> {
      const start = must(await json('POST', `${prefix(product)}/job`, { upload_uid: uid, ...options }), 201, `${product} job start`);
      const until = Date.now() + ms;
      for (;;) {
        const poll = must(await json('GET', `${prefix(product)}/job/${uid}?wait=10`), 200, `${product} poll`).json;
        if (DONE.includes(poll.status)) return { start, poll };
        if (Date.now() > until) throw new Error(`${product} job still ${poll.status} after ${ms / 1000} s: ${poll.progress_message}`);
      }
    },

    /** result_files of a finished hide, reveal or convert, each with its downloaded bytes. */
    async results(product: 'hide' | 'reveal' | 'convert', uid: string): Promise<{ meta: any; bytes: Buffer }[]> {
      const list = must(await json('GET', `${prefix(product)}/job/${uid}/results`), 200, `${product} results`).json.result_files as any[];
      const out = [];
      for (const meta of list) out.push({ meta, bytes: must(await request('GET', meta.download_url), 200, `download of ${meta.output_name ?? meta.name}`).bytes });
      return out;
    },
  };
}
