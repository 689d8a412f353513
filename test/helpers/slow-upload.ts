// A direct upload that stops halfway and waits: the service is then mid-append on the blob
// (its journal written, the file's tail rewritten), the moment an operator's tool must not
// disturb or copy torn. release() sends the rest; done is the service's status.
import http from 'node:http';
import type { RunningService } from './service.ts';

export function pausedUpload(svc: RunningService, key: string, uid: string, step: number, name: string, bytes: Buffer, pauseAt: number) {
  let release!: () => void;
  const go = new Promise<void>((resolve) => (release = resolve));
  let paused!: () => void;
  const atPause = new Promise<void>((resolve) => (paused = resolve));
  const done = new Promise<number>((resolve, reject) => {
    const req = http.request(`${svc.url.clearnet}/api/upload`, {
      method: 'POST',
      agent: false,
      headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': String(step), 'X-Filename': encodeURIComponent(name), 'Content-Length': String(bytes.length) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    (async () => {
      const CHUNK = 64 * 1024;
      for (let off = 0; off < bytes.length; off += CHUNK) {
        if (off >= pauseAt && off - CHUNK < pauseAt) {
          paused();
          await go;
        }
        if (!req.write(bytes.subarray(off, off + CHUNK))) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })().catch(reject);
  });
  return { atPause, release, done };
}
