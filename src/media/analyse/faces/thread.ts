// Face detection on a thread of its own, one per media worker, so that it runs beside the
// detectors of the media thread (forensic maps, watermark, c2pa) instead of after them: tfjs's
// wasm backend computes on the thread that calls it, and its threaded build does not load in
// Node. Started on first use, one detection at a time, ended when idle (its wasm heap only
// grows). An abort ends the thread: a detection cannot be stopped midway.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { detectFaces, type FaceDetection, type RawImage } from './detect.ts';

const ROLE = 'obscura-faces';
/** An idle thread is ended after this long: memory matters more than a model load. */
const IDLE_MS = 60_000;

interface Request {
  id: number;
  img: RawImage;
  sensitivity: number;
}
type Reply = { id: number; found: FaceDetection } | { id: number; failed: string };

if (!isMainThread && workerData === ROLE) {
  parentPort!.on('message', (r: Request) => {
    detectFaces(r.img, r.sensitivity).then(
      (found) => parentPort!.postMessage({ id: r.id, found } satisfies Reply),
      (err: unknown) => parentPort!.postMessage({ id: r.id, failed: (err as Error).message } satisfies Reply),
    );
  });
}

let thread: Worker | undefined;
let nextId = 1;
let idle: NodeJS.Timeout | undefined;
let started = 0;
const pending = new Map<number, { resolve: (f: FaceDetection) => void; reject: (e: Error) => void }>();

function current(): Worker {
  if (thread) return thread;
  started += 1;
  const w = new Worker(new URL(import.meta.url), { workerData: ROLE });
  const die = (err: Error) => {
    if (thread === w) thread = undefined;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  w.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if ('failed' in m) p?.reject(new Error(m.failed));
    else p?.resolve(m.found);
    if (!pending.size) {
      w.unref();
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => void endFaces(), IDLE_MS).unref();
    }
  });
  w.on('error', die);
  w.on('exit', () => die(new Error('the face detection thread stopped')));
  w.unref();
  thread = w;
  return w;
}

/**
 * Finds faces in `img` on the faces thread: the same answer as detectFaces() here. The pixels
 * are copied (the caller's stay shared with the other detectors); the thread's requests run in
 * the order they are asked.
 */
export function detectFacesOnThread(img: RawImage, sensitivity: number, signal?: AbortSignal): Promise<FaceDetection> {
  signal?.throwIfAborted();
  if (idle) clearTimeout(idle);
  const w = current();
  const id = nextId++;
  return new Promise<FaceDetection>((resolve, reject) => {
    const onAbort = () => {
      pending.delete(id);
      void endFaces();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    pending.set(id, {
      resolve: (f) => (done(), resolve(f)),
      reject: (e) => (done(), reject(e)),
    });
    w.ref(); // an answer is awaited
    const data = new Uint8Array(img.data); // a copy of its own, moved to the thread
    w.postMessage({ id, img: { data, width: img.width, height: img.height, channels: img.channels }, sensitivity } satisfies Request, [data.buffer]);
  });
}

/** Ends the faces thread now (an abort, idle, tests). */
export async function endFaces(): Promise<void> {
  if (idle) clearTimeout(idle);
  const w = thread;
  thread = undefined;
  if (w) await w.terminate().catch(() => {});
}

/** How many faces threads this thread started so far, for tests. */
export function facesStats(): { started: number } {
  return { started };
}
