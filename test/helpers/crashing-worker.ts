// A worker-thread entry for the pool that dies on a task the way a media library can: an
// uncaught RangeError whose text comes from the file (a size read from its header), thrown
// outside anything the worker awaits. A task whose input is "alive" is answered normally.
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: { type: string; id: number; args?: { input?: string } }) => {
  if (m.type !== 'run') return;
  if (m.args?.input === 'alive') {
    parentPort!.postMessage({ type: 'done', id: m.id, result: 'alive' });
    return;
  }
  setTimeout(() => new Uint8Array(new ArrayBuffer(8), 0, 657761067)); // "Invalid typed array length: 657761067"
});
