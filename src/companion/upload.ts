// One file into a session: a direct POST /api/upload when it fits the session's
// max_upload_bytes (one request, the cheapest over Tor), TUS in 5 MiB chunks above that.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as tus from 'tus-js-client';
import type { Api } from './api.ts';
import { cancelled, CompanionError } from './errors.ts';
import type { InputFile } from './paths.ts';
import { errorFrom } from './service-errors.ts';

/** The largest TUS chunk the service takes by default (OBSCURA_CHUNK_MAX). */
export const TUS_CHUNK_BYTES = 5 * 1024 * 1024;

export interface UploadTarget {
  uploadUid: string;
  step: 1 | 2 | 3;
  /** From the session: above this, TUS. */
  maxDirect: number;
}

export async function uploadFile(api: Api, file: InputFile, to: UploadTarget, signal?: AbortSignal, onBytes?: (sent: number) => void): Promise<'direct' | 'tus'> {
  // the same id on a retry makes the service return the first result instead of storing twice
  const clientUploadId = randomUUID();
  if (file.size <= to.maxDirect) {
    await api.call('POST', '/api/upload', {
      signal,
      idleMs: 120_000,
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(file.size),
        'X-Upload-Uid': to.uploadUid,
        'X-Upload-Step': String(to.step),
        'X-Filename': encodeURIComponent(file.name),
        'X-Client-Upload-Id': clientUploadId,
      },
      body: () => {
        let sent = 0;
        return createReadStream(file.path).on('data', (c) => onBytes?.((sent += c.length)));
      },
    });
    return 'direct';
  }
  await tusUpload(api, file, to, clientUploadId, signal, onBytes);
  return 'tus';
}

function tusUpload(api: Api, file: InputFile, to: UploadTarget, clientUploadId: string, signal?: AbortSignal, onBytes?: (sent: number) => void): Promise<void> {
  if (signal?.aborted) return Promise.reject(cancelled());
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(createReadStream(file.path) as never, {
      endpoint: `${api.origin}/api/tus`,
      httpStack: new PinnedStack(api.origin, new tus.DefaultHttpStack({ agent: api.agent })),
      headers: api.authHeaders,
      metadata: { upload_uid: to.uploadUid, step: String(to.step), name: file.name, client_upload_id: clientUploadId },
      uploadSize: file.size,
      chunkSize: TUS_CHUNK_BYTES,
      retryDelays: [1000, 3000, 5000],
      // nothing about the upload is remembered on disk
      storeFingerprintForResuming: false,
      onProgress: (sent) => onBytes?.(sent),
      onSuccess: () => {
        signal?.removeEventListener('abort', stop);
        resolve();
      },
      onError: (err) => {
        signal?.removeEventListener('abort', stop);
        reject(tusError(api, err));
      },
    });
    const stop = () => {
      upload.abort(true).catch(() => {});
      reject(cancelled());
    };
    signal?.addEventListener('abort', stop, { once: true });
    upload.start();
  });
}

/** The service's {error, message} out of a refused TUS request, or why no answer came. */
function tusError(api: Api, err: Error | tus.DetailedError): CompanionError {
  const res = (err as tus.DetailedError).originalResponse;
  if (res) {
    let body: unknown = res.getBody();
    try {
      body = JSON.parse(String(body));
    } catch {
      /* plain text */
    }
    const retry = res.getHeader('Retry-After');
    return errorFrom(res.getStatus(), retry ? { 'retry-after': retry } : {}, body);
  }
  const cause = (err as tus.DetailedError).causingError as NodeJS.ErrnoException | null;
  if (cause) return api.unreachable(cause);
  return new CompanionError('upload_failed', 'The resumable upload failed; try again.');
}

/**
 * Sends every TUS request to the configured origin, whatever host the service's Location
 * names: the companion talks to one origin only (and a service behind a proxy may hand out
 * its public name, which this machine should not, or cannot, reach directly).
 */
class PinnedStack implements tus.HttpStack {
  readonly #origin: string;
  readonly #inner: tus.HttpStack;
  constructor(origin: string, inner: tus.HttpStack) {
    this.#origin = origin;
    this.#inner = inner;
  }
  createRequest(method: string, url: string): tus.HttpRequest {
    const u = new URL(url, this.#origin);
    return this.#inner.createRequest(method, new URL(u.pathname + u.search, this.#origin).href);
  }
  getName(): string {
    return 'PinnedStack';
  }
}
