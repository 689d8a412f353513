// Nearest neighbours of binary descriptors (ORB: 256 bits) among themselves, by locality-
// sensitive hashing. OpenCV's brute-force matcher compares every pair: 9 s for 10,000
// keypoints here (WebAssembly, loaded machine), so about a minute for 25,000. Two descriptors a
// few bits apart almost always agree on all the bits of at least one of TABLES random samples
// of SAMPLE_BITS bits, and two unrelated ones (about 100 bits apart) almost never do: only
// descriptors that share a bucket in some table are compared.
//
// The odds, 1 - (1 - (1 - d/256)^16)^20: 30 bits apart, found 95% of the time; 45 bits, 60%;
// 100 bits apart, compared 0.7% of the time.

const TABLES = 20;
const SAMPLE_BITS = 16;
/** A bucket holding more descriptors than this is of featureless ones (alike everywhere):
 *  skipped rather than compared pair by pair. */
const MAX_BUCKET = 48;

export interface Neighbour {
  j: number;
  d: number;
}

/**
 * Up to `k` nearest other descriptors of each (rows of `bytes` bytes), nearest first, among
 * those that shared a bucket with it and that `keep(i, j)` allows.
 */
export function hammingNeighbours(desc: Uint8Array, bytes: number, k: number, keep: (i: number, j: number) => boolean): Neighbour[][] {
  const n = Math.floor(desc.length / bytes);
  const words = bytes >> 2;
  const w = new Uint32Array(desc.buffer.slice(desc.byteOffset, desc.byteOffset + n * bytes));
  const best: Neighbour[][] = Array.from({ length: n }, () => []);
  const offer = (i: number, j: number, d: number) => {
    const list = best[i];
    if (list.length === k && d >= list[k - 1].d) return;
    if (list.some((x) => x.j === j)) return;
    let p = list.length;
    while (p > 0 && list[p - 1].d > d) p--;
    list.splice(p, 0, { j, d });
    if (list.length > k) list.pop();
  };
  // the same bit samples every time: reproducible verdicts
  let seed = 0x9e3779b9;
  const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
  const bits = bytes * 8;
  const keys = new Uint32Array(n);
  const order = new Int32Array(n);
  for (let t = 0; t < TABLES; t++) {
    const sample = Array.from({ length: SAMPLE_BITS }, () => random() % bits);
    for (let i = 0; i < n; i++) {
      let key = 0;
      for (const b of sample) key = (key << 1) | ((desc[i * bytes + (b >> 3)] >> (b & 7)) & 1);
      keys[i] = key >>> 0;
      order[i] = i;
    }
    order.sort((a, b) => keys[a] - keys[b]);
    for (let s = 0; s < n; ) {
      let e = s + 1;
      while (e < n && keys[order[e]] === keys[order[s]]) e++;
      if (e - s > 1 && e - s <= MAX_BUCKET) {
        for (let x = s; x < e; x++) {
          const i = order[x];
          for (let y = x + 1; y < e; y++) {
            const j = order[y];
            if (!keep(i, j)) continue;
            let d = 0;
            for (let q = 0; q < words; q++) {
              let v = w[i * words + q] ^ w[j * words + q];
              v -= (v >>> 1) & 0x55555555;
              v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
              d += (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
            }
            offer(i, j, d);
            offer(j, i, d);
          }
        }
      }
      s = e;
    }
  }
  return best;
}
