// Recently written or read part objects of the S3 store, by object key, in this process's
// memory. A part object is written once under a fresh name and never rewritten, so an entry can
// never be stale: nothing to invalidate, only room to make (least recently used first). It holds
// ciphertext only, as the bucket does; it saves the round trips of reading back what this
// instance just wrote (a job validating, then converting, the upload it received).
export class PartCache {
  readonly #maxBytes: number;
  readonly #maxItem: number;
  readonly #parts = new Map<string, Buffer>();
  #bytes = 0;

  /** maxBytes 0: nothing is kept. A part larger than maxItem is never kept. */
  constructor(maxBytes: number, maxItem = maxBytes) {
    this.#maxBytes = maxBytes;
    this.#maxItem = Math.min(maxItem, maxBytes);
  }

  get(key: string): Buffer | undefined {
    const b = this.#parts.get(key);
    if (b) {
      // used now: to the end of the order
      this.#parts.delete(key);
      this.#parts.set(key, b);
    }
    return b;
  }

  /** Keeps a copy of `bytes` (the caller's buffer may be reused). */
  put(key: string, bytes: Uint8Array): void {
    if (bytes.length > this.#maxItem || this.#parts.has(key)) return;
    while (this.#bytes + bytes.length > this.#maxBytes) {
      const [oldest, b] = this.#parts.entries().next().value!;
      this.#parts.delete(oldest);
      this.#bytes -= b.length;
    }
    this.#parts.set(key, Buffer.from(bytes));
    this.#bytes += bytes.length;
  }

  delete(key: string): void {
    const b = this.#parts.get(key);
    if (!b) return;
    this.#parts.delete(key);
    this.#bytes -= b.length;
  }

  get bytes(): number {
    return this.#bytes;
  }
}
