// A second thread for the hide engine, one per media worker, started with it. For a reveal, once
// argon2id and the decode are done, the walk over the payload's strata (about 0.1 s for 12 MP)
// is all that is left, on one core: this thread walks the second half of the blocks meanwhile.
// For a hide in a plain PNG cover, it decodes the cover row by row into shared memory while
// the media worker's embedding follows it down the picture.
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { decodePlainPng } from '../png-rows.ts';
import { Strata, type Lane } from './positions.ts';

/** What it takes to rebuild a walk on another thread: plain data only. */
export interface WalkPlan {
  key: Uint8Array;
  stream: number;
  n: number;
  count: number;
  taken: Uint32Array;
  nb: number;
  lane: Lane;
}

interface WalkRequest extends WalkPlan {
  kind: 'walk';
  id: number;
  samples: SharedArrayBuffer;
  from: number;
  to: number;
}

interface DecodeRequest {
  kind: 'decode';
  id: number;
  file: Uint8Array;
  pixels: SharedArrayBuffer;
  /** [rows decoded so far, or -1 once the decode has failed] */
  progress: SharedArrayBuffer;
}

type Reply = { id: number; syndromes?: Uint16Array } | { id: number; failed: string };

const ROLE = 'obscura-walk-helper';

if (workerData === ROLE) {
  parentPort!.on('message', (r: WalkRequest | DecodeRequest) => {
    if (r.kind === 'decode') return void decode(r);
    try {
      const syndromes = new Uint16Array(r.to - r.from);
      let k = 0;
      const key = Buffer.from(r.key.buffer, r.key.byteOffset, r.key.byteLength);
      new Strata(key, r.stream, r.n, r.count, r.taken, r.lane).blocks(new Uint8Array(r.samples), r.nb, (s) => (syndromes[k++] = s), r.from, r.to);
      parentPort!.postMessage({ id: r.id, syndromes } satisfies Reply, [syndromes.buffer]);
    } catch (err) {
      parentPort!.postMessage({ id: r.id, failed: (err as Error).message } satisfies Reply);
    }
  });
}

async function decode(r: DecodeRequest): Promise<void> {
  const progress = new Int32Array(r.progress);
  try {
    await decodePlainPng(Buffer.from(r.file.buffer, r.file.byteOffset, r.file.byteLength), new Uint8Array(r.pixels), (rows) => {
      Atomics.store(progress, 0, rows);
      Atomics.notify(progress, 0);
    });
    // the cover's bytes (handed over whole, so this thread's alone), freed now rather than at
    // some later collection; only after success, when zlib is surely done with them
    (r.file.buffer as ArrayBuffer).transfer(0);
    parentPort!.postMessage({ id: r.id } satisfies Reply);
  } catch (err) {
    Atomics.store(progress, 0, -1); // wakes a waiter, whatever count it was waiting past
    Atomics.notify(progress, 0);
    parentPort!.postMessage({ id: r.id, failed: (err as Error).message } satisfies Reply);
  }
}

let helper: Worker | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (s?: Uint16Array) => void; reject: (e: Error) => void }>();

function thread(): Worker {
  if (helper) return helper;
  const w = new Worker(new URL(import.meta.url), { workerData: ROLE });
  w.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (!pending.size) w.unref();
    if ('failed' in m) p?.reject(new Error(m.failed));
    else p?.resolve('syndromes' in m ? m.syndromes : undefined);
  });
  const die = (err: Error) => {
    if (helper === w) helper = undefined;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  w.on('error', die);
  w.on('exit', () => die(new Error('the walk helper stopped')));
  w.unref(); // after the listeners, which ref it: idle, it never keeps the process alive
  helper = w;
  return w;
}

/** Starts the helper thread ahead of the first reveal (a media worker does at boot). */
export function startWalkHelper(): void {
  thread();
}

function ask<T>(request: WalkRequest | DecodeRequest, transfer: ArrayBuffer[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    pending.set(request.id, { resolve: resolve as (s?: Uint16Array) => void, reject });
    const w = thread();
    w.ref(); // an answer is awaited
    w.postMessage(request, transfer);
  });
}

/** The syndromes of blocks [from, to) of a walk, computed on the helper thread. */
export function helperSyndromes(samples: SharedArrayBuffer, plan: WalkPlan, from: number, to: number): Promise<Uint16Array> {
  return ask({ ...plan, kind: 'walk', id: nextId++, samples, from, to });
}

/** How long a waiter waits for the next rows before it gives up on the decode. */
const STALL_MS = 5000;

/** Rows of a picture that another thread is decoding; rows(n) blocks until the first n are in. */
export interface DecodingRows {
  /** Blocks this thread until `n` rows are decoded; throws if the decode failed or stalled. */
  rows(n: number): void;
  /** Settles when the decode has finished, every check included. */
  done: Promise<void>;
}

/**
 * Decodes a plain PNG (see png-rows.ts) on the helper thread into `pixels`, handing `file`'s
 * bytes over (they are gone from this thread afterwards).
 */
export function helperDecode(file: Buffer, pixels: SharedArrayBuffer): DecodingRows {
  const progress = new Int32Array(new SharedArrayBuffer(4));
  // a whole ArrayBuffer of its own is handed over; anything else (a slice of Node's shared pool,
  // say, which must never be detached) is copied into memory of its own first
  const own = file.byteOffset === 0 && file.byteLength === file.buffer.byteLength && file.buffer instanceof ArrayBuffer ? file : copyOwn(file);
  const bytes = new Uint8Array(own.buffer as ArrayBuffer, own.byteOffset, own.byteLength);
  const done = ask<void>({ kind: 'decode', id: nextId++, file: bytes, pixels, progress: progress.buffer as SharedArrayBuffer }, [bytes.buffer as ArrayBuffer]);
  done.catch(() => {}); // the caller awaits it, or has failed already
  return {
    done,
    rows(n) {
      for (;;) {
        const have = Atomics.load(progress, 0);
        if (have < 0) throw new Error('the decode failed');
        if (have >= n) return;
        if (Atomics.wait(progress, 0, have, STALL_MS) === 'timed-out') throw new Error('the decode stalled');
      }
    },
  };
}

function copyOwn(b: Uint8Array): Buffer {
  const c = Buffer.allocUnsafeSlow(b.byteLength);
  c.set(b);
  return c;
}
