// Hide's keys are derived by the job runner, so argon2id (0.15 s of CPU) runs while the cover
// is still being copied into scratch; the engine, already decoding the cover on a worker, gets
// them through a MessagePort when they are ready.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { MediaError } from '../errors.ts';
import type { SealingKeys } from './stream.ts';

type Message = { keys: SealingKeys } | { failed: true };

/** The worker's end of a port that will carry `keys` (or word that they failed). */
export function keysPort(keys: Promise<SealingKeys>): MessagePort {
  const { port1, port2 } = new MessageChannel();
  keys.then(
    (k) => port1.postMessage({ keys: k } satisfies Message),
    () => port1.postMessage({ failed: true } satisfies Message),
  );
  return port2;
}

/** The keys from a port made by keysPort(); rejects if they failed or the port closed first. */
export function receiveKeys(port: MessagePort): Promise<SealingKeys> {
  return new Promise((resolve, reject) => {
    const fail = () => reject(new MediaError('engine_failed', 'The passphrase could not be turned into keys.'));
    port.once('close', fail);
    port.once('message', (m: Message) => {
      port.off('close', fail);
      port.close();
      if ('failed' in m) return fail();
      // a structured clone makes Buffers plain Uint8Arrays
      const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
      resolve({ salt: buf(m.keys.salt), keys: { locator: buf(m.keys.keys.locator), header: buf(m.keys.keys.header), payload: buf(m.keys.keys.payload) } });
    });
  });
}
