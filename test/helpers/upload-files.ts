// Files into an upload session, each by a direct upload as a client sends it (its name
// percent-encoded in X-Filename); anything but 201 throws with the answer.
import type { RunningService } from './service.ts';

export async function uploadFile(svc: RunningService, key: string, uid: string, step: number, name: string, bytes: Buffer): Promise<void> {
  const r = await fetch(`${svc.url.clearnet}/api/upload`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'X-Upload-Uid': uid, 'X-Upload-Step': String(step), 'X-Filename': encodeURIComponent(name) },
    body: bytes,
  });
  if (r.status !== 201) throw new Error(`upload ${name}: ${r.status} ${await r.text()}`);
}

/** A new convert session holding these files (step 1): its upload_uid. */
export async function convertSession(svc: RunningService, key: string, files: [string, Buffer][]): Promise<string> {
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid as string;
  for (const [name, bytes] of files) await uploadFile(svc, key, uid, 1, name, bytes);
  return uid;
}

/** A file into an upload session by TUS, created with its whole body in one request; its upload URL. */
export async function tusUpload(svc: RunningService, key: string, uid: string, step: number, name: string, bytes: Buffer): Promise<string> {
  const b64 = (v: string) => Buffer.from(v).toString('base64');
  const r = await fetch(`${svc.url.clearnet}/api/tus`, {
    method: 'POST',
    headers: {
      'X-Api-Key': key,
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(bytes.length),
      'Content-Type': 'application/offset+octet-stream',
      'Upload-Metadata': `upload_uid ${b64(uid)},step ${b64(String(step))},name ${b64(name)}`,
    },
    body: bytes,
  });
  if (r.status !== 201) throw new Error(`tus: ${r.status} ${await r.text()}`);
  return r.headers.get('location')!;
}
