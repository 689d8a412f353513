// What went wrong with a piece of media, in the users' words. Messages are shown to end users
// as they are: they never quote file system paths or raw tool output.
export type MediaErrorCode =
  | 'unsupported_media'
  | 'limit_exceeded'
  | 'corrupt'
  | 'empty'
  | 'invalid_option'
  | 'engine_failed'
  /** convert: the result the options ask for is over a limit (refused before any work) */
  | 'output_too_large'
  /** convert: the file needed more CPU time than OBSCURA_CONVERT_CPU_BUDGET */
  | 'cpu_budget_exceeded'
  /** the work needs more memory than one job may have (OBSCURA_MEDIA_MEMORY_*), or a tool went over its share */
  | 'too_much_memory'
  | 'aborted'
  /** reveal: wrong passphrase, nothing hidden, or a re-encoded file; deliberately one answer */
  | 'nothing_found'
  /** reveal: the hidden files, as their sealed container declares them, are over the bound
   *  (OBSCURA_MAX_REVEAL_BYTES, the file's capacity); refused before anything is inflated */
  | 'reveal_too_large';

export class MediaError extends Error {
  override name = 'MediaError';
  readonly code: MediaErrorCode;

  constructor(code: MediaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isMediaError(e: unknown, code?: MediaErrorCode): e is MediaError {
  return e instanceof MediaError && (code === undefined || e.code === code);
}

/**
 * Whether a failure is a stop (the job's signal fired), whichever layer threw it: a MediaError,
 * or the pool's error for a task it stopped. A stop is passed on, never turned into a finding
 * or a file's error; the job decides what a stop means (domain/job-stop.ts).
 */
export function isAborted(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'aborted';
}

export function abortedError(): MediaError {
  return new MediaError('aborted', 'The job was cancelled.');
}

/** Throws MediaError('aborted') when the signal has fired. */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortedError();
}

/**
 * Settles with `work`, or rejects with 'aborted' as soon as the signal fires. For work that
 * cannot be killed (sharp runs in libvips threads): the caller is freed at once, and
 * `onLateSettle` runs when the work does end (to remove what it wrote).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, onLateSettle?: () => void): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.then(onLateSettle, onLateSettle);
    return Promise.reject(abortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.then(onLateSettle, onLateSettle);
      reject(abortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
