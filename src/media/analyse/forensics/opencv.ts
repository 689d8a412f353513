// OpenCV (the npm package @techstark/opencv-js: OpenCV 4.12 compiled to WebAssembly, shipped as
// one JavaScript file with the module inlined: nothing is fetched at install or run time).
// Loaded once per process (each queue worker is its own thread with its own copy), on first
// use: only a deep analysis needs it, and the module costs about 110 MiB once loaded.
//
// Only the few bindings copy-move uses are typed here (the package's own typings describe
// the C++ API, not always the JavaScript one).

export interface CvMat {
  rows: number;
  cols: number;
  data: Uint8Array;
  data32F: Float32Array;
  data64F: Float64Array;
  delete(): void;
}
export interface CvKeyPoint {
  pt: { x: number; y: number };
  size: number;
  angle: number;
  response: number;
  octave: number;
}
export interface CvVector<T> {
  size(): number;
  get(i: number): T;
  delete(): void;
}
export interface CvDMatch {
  queryIdx: number;
  trainIdx: number;
  distance: number;
}
export interface CvFeature2D {
  detectAndCompute(image: CvMat, mask: CvMat, keypoints: CvVector<CvKeyPoint>, descriptors: CvMat): void;
  delete(): void;
}
export interface CvMatcher {
  knnMatch(query: CvMat, train: CvMat, matches: CvVector<CvVector<CvDMatch>>, k: number): void;
  delete(): void;
}
export interface OpenCv {
  Mat: { new (): CvMat; new (rows: number, cols: number, type: number): CvMat };
  matFromArray(rows: number, cols: number, type: number, data: ArrayLike<number>): CvMat;
  KeyPointVector: new () => CvVector<CvKeyPoint>;
  DMatchVectorVector: new () => CvVector<CvVector<CvDMatch>>;
  ORB: new (nfeatures: number, scaleFactor: number, nlevels: number, edgeThreshold: number, firstLevel: number, WTA_K: number, scoreType: number, patchSize: number, fastThreshold: number) => CvFeature2D;
  AKAZE: new () => CvFeature2D;
  BFMatcher: new (normType: number, crossCheck: boolean) => CvMatcher;
  estimateAffine2D(from: CvMat, to: CvMat, inliers: CvMat, method: number, ransacReprojThreshold: number, maxIters: number, confidence: number, refineIters: number): CvMat;
  CV_8UC1: number;
  CV_32FC2: number;
  NORM_HAMMING: number;
  RANSAC: number;
  ORB_HARRIS_SCORE: number;
}

let loading: Promise<OpenCv> | null = null;

/** The OpenCV module, loaded on first call. */
export function openCv(): Promise<OpenCv> {
  loading ??= load().catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}

async function load(): Promise<OpenCv> {
  // Emscripten's Node glue adds process handlers that rethrow every uncaught exception and
  // abort the module on any unhandled rejection: the service has its own, so they go.
  const before = { exception: process.listeners('uncaughtException'), rejection: process.listeners('unhandledRejection') };
  let mod: unknown;
  try {
    mod = (await import('@techstark/opencv-js')).default;
  } finally {
    for (const l of process.listeners('uncaughtException')) if (!before.exception.includes(l)) process.removeListener('uncaughtException', l);
    for (const l of process.listeners('unhandledRejection')) if (!before.rejection.includes(l)) process.removeListener('unhandledRejection', l);
  }
  // The module is a "thenable" that calls back once the runtime is ready, with itself: awaiting
  // it, or returning it from an async function, would resolve it again and again; so it is
  // waited on once and loses `then`.
  const thenable = mod as { then?: (ready: () => void) => unknown; Mat?: unknown };
  if (typeof thenable.then === 'function') {
    const then = thenable.then;
    await new Promise<void>((resolve) => then.call(thenable, () => resolve()));
    delete thenable.then;
  }
  if (typeof thenable.Mat !== 'function') throw new Error('OpenCV did not initialise');
  return thenable as unknown as OpenCv;
}
