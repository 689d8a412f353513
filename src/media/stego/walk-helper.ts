// A second thread for a reveal's walk. Once argon2id and the decode are done, the walk over the
// payload's strata (about 0.1 s for 12 MP) is all that is left, on one core; this thread walks
// the second half of the blocks meanwhile. It is one thread per media worker, started with it.
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { Strata } from './positions.ts';

/** What it takes to rebuild a walk on another thread: plain data only. */
export interface WalkPlan {
  key: Uint8Array;
  stream: number;
  n: number;
  count: number;
  taken: Uint32Array;
  nb: number;
}

interface Request extends WalkPlan {
  id: number;
  samples: SharedArrayBuffer;
  from: number;
  to: number;
}

type Reply = { id: number; syndromes: Uint16Array } | { id: number; failed: string };

const ROLE = 'obscura-walk-helper';

if (workerData === ROLE) {
  parentPort!.on('message', (r: Request) => {
    try {
      const syndromes = new Uint16Array(r.to - r.from);
      let k = 0;
      const key = Buffer.from(r.key.buffer, r.key.byteOffset, r.key.byteLength);
      new Strata(key, r.stream, r.n, r.count, r.taken).blocks(new Uint8Array(r.samples), r.nb, (s) => (syndromes[k++] = s), r.from, r.to);
      parentPort!.postMessage({ id: r.id, syndromes } satisfies Reply, [syndromes.buffer]);
    } catch (err) {
      parentPort!.postMessage({ id: r.id, failed: (err as Error).message } satisfies Reply);
    }
  });
}

let helper: Worker | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (s: Uint16Array) => void; reject: (e: Error) => void }>();

function thread(): Worker {
  if (helper) return helper;
  const w = new Worker(new URL(import.meta.url), { workerData: ROLE });
  w.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (!pending.size) w.unref();
    if ('failed' in m) p?.reject(new Error(m.failed));
    else p?.resolve(m.syndromes);
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

/** The syndromes of blocks [from, to) of a walk, computed on the helper thread. */
export function helperSyndromes(samples: SharedArrayBuffer, plan: WalkPlan, from: number, to: number): Promise<Uint16Array> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    const w = thread();
    w.ref(); // an answer is awaited
    w.postMessage({ ...plan, id, samples, from, to } satisfies Request);
  });
}
