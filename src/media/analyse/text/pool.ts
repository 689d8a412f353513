// The tesseract.js workers of this media worker thread: one at a time, started on first use,
// recycled after N recognitions (its wasm heap only grows) and ended when idle (each holds
// tens of MB). Everything is read from installed packages: the language data from
// @tesseract.js-data/eng, the worker script and the wasm core from tesseract.js(-core). With
// langPath a folder and cacheMethod 'none' nothing is fetched and nothing is written to disk.
import { createRequire } from 'node:module';
import path from 'node:path';
import type Tesseract from 'tesseract.js';

const require = createRequire(import.meta.url);

/** Recognitions a worker does before it is replaced (OBSCURA_OCR_RECYCLE_AFTER's default). */
export const DEFAULT_RECYCLE_AFTER = 25;
/** An idle worker is ended after this long: memory matters more than a 0.3 s start. */
const IDLE_MS = 60_000;

// LSTM-only data (the engine we run), the "best" network quantised to int: 2.9 MB gzipped
// against 10.9 MB for 4.0.0, which also carries the legacy engine's data we never load.
const LANG_DIR = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

let current: { worker: Promise<Tesseract.Worker>; uses: number } | undefined;
let queue: Promise<unknown> = Promise.resolve();
let idle: NodeJS.Timeout | undefined;
let started = 0;
let pixelsRead = 0;
/** A recognition that takes longer has hung (a crashed wasm worker never answers). */
const HUNG_MS = 120_000;
const START_MS = 60_000;

async function start(): Promise<Tesseract.Worker> {
  const { createWorker, OEM, PSM } = require('tesseract.js') as typeof Tesseract;
  started += 1;
  const w = await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: LANG_DIR,
    gzip: true,
    cacheMethod: 'none',
    // tesseract.js's worker script behind a guard that makes every fetch fail (offline-worker.cjs)
    workerPath: path.join(import.meta.dirname, 'offline-worker.cjs'),
    corePath: path.dirname(require.resolve('tesseract.js-core/package.json')),
    // no progress or error logging: messages could carry what was read. An errorHandler must
    // be given: without one tesseract.js throws a failed job's error inside its message
    // listener, which would bring this whole media worker thread down.
    logger: () => {},
    errorHandler: () => {},
  });
  // sparse text: photos hold scattered words (signs, badges, corner marks), not pages;
  // debug_file: tesseract's own warnings go nowhere instead of the service's stderr
  await w.setParameters({ tessedit_pageseg_mode: PSM.SPARSE_TEXT, user_defined_dpi: '300', debug_file: '/dev/null' });
  return w;
}

function retire(): void {
  const old = current;
  current = undefined;
  if (old) void old.worker.then((w) => w.terminate()).catch(() => {});
}

/**
 * Runs fn on this thread's tesseract worker, one call at a time. An abort ends the worker
 * (a recognition cannot be stopped midway) and rejects with the signal's reason.
 */
export function withOcr<T>(fn: (w: Tesseract.Worker) => Promise<T>, opts: { recycleAfter?: number; signal?: AbortSignal } = {}): Promise<T> {
  const run = async (): Promise<T> => {
    opts.signal?.throwIfAborted();
    if (idle) clearTimeout(idle);
    if (!current) {
      // tesseract.js never settles a start whose language data failed to load: bound it
      const worker = Promise.race([start(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('OCR did not start')), START_MS).unref())]);
      current = { worker, uses: 0 };
      worker.catch(() => {
        if (current?.worker === worker) current = undefined; // a failed start is retried next time
      });
    }
    const mine = current;
    mine.uses += 1;
    const w = await mine.worker;
    let onAbort: (() => void) | undefined;
    let hung: NodeJS.Timeout | undefined;
    try {
      return await new Promise<T>((resolve, reject) => {
        onAbort = () => {
          if (current === mine) retire();
          reject(opts.signal!.reason);
        };
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        hung = setTimeout(() => {
          if (current === mine) retire();
          reject(new Error('OCR did not answer in time'));
        }, HUNG_MS);
        fn(w).then(resolve, reject);
      });
    } finally {
      clearTimeout(hung);
      if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
      if (current === mine && mine.uses >= (opts.recycleAfter ?? DEFAULT_RECYCLE_AFTER)) retire();
      idle = setTimeout(retire, IDLE_MS).unref();
    }
  };
  const p = queue.then(run, run);
  queue = p.catch(() => {});
  return p;
}

/** Ends this thread's worker now (tests, shutdown). */
export async function endOcr(): Promise<void> {
  if (idle) clearTimeout(idle);
  const old = current;
  current = undefined;
  if (old) await old.worker.then((w) => w.terminate()).catch(() => {});
}

/** Counts the pixels handed to recognition (a whole picture, or a crop of it). */
export function countRead(pixels: number): void {
  pixelsRead += pixels;
}

/** How many workers this thread started so far (tests of the recycling), and how many pixels
 *  they were given to read (tests that a large picture is read in crops, not whole). */
export function ocrStats(): { started: number; pixelsRead: number } {
  return { started, pixelsRead };
}
