// face-api on tfjs's wasm backend, loaded once per worker thread. Everything comes from
// installed packages: the wasm binaries from @tensorflow/tfjs-backend-wasm/dist (read from
// disk, never fetched) and the models face-api ships in its model/ folder. No network.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

type FaceApi = typeof import('@vladmandic/face-api');

let loading: Promise<FaceApi> | undefined;

/** The face-api module with the tfjs wasm backend ready and both detectors' weights loaded. */
export function faceApi(): Promise<FaceApi> {
  return (loading ??= load().catch((e: unknown) => {
    loading = undefined; // a failed start may be retried by the next file
    throw e;
  }));
}

async function load(): Promise<FaceApi> {
  const tf = require('@tensorflow/tfjs') as typeof import('@tensorflow/tfjs');
  const wasm = require('@tensorflow/tfjs-backend-wasm') as { setWasmPaths(prefix: string, usePlatformFetch?: boolean): void };
  // The node-wasm build uses the @tensorflow/tfjs we installed instead of bundling tfjs-node
  // (whose install downloads a binary).
  const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
  // A folder path, and usePlatformFetch false: emscripten then reads the file with fs. With
  // true, tfjs would fetch() it, and fetch() takes URLs only.
  const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
  wasm.setWasmPaths(`${wasmDir}${path.sep}`, false);
  await tf.setBackend('wasm');
  await tf.ready();
  const modelDir = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
  await faceapi.nets.tinyFaceDetector.loadFromDisk(modelDir);
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(modelDir);
  return faceapi;
}
