// How a passphrase's keys reach the worker that hides or reveals: the one way, for both. The
// passphrase stays with the job runner (in the job's sealed options, erased when the job ends);
// the task's args carry only a MessagePort, over which the engine asks for what it needs and
// gets derived keys back:
//   hide:   sealing()           fresh keys; the runner started argon2id before the task, so it
//                               runs while the cover is copied into scratch and decoded
//   reveal: locator(domain)     where the header is, before its salt is known
//           open(salt, domain)  the keys for the salt read from the cover
// Keys that failed, or a port closed before the answer (the task or the job ended), reject the
// engine's wait: a failed handover fails the task, it never hangs it.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { MediaError } from '../errors.ts';
import type { Keys, PassphraseKeys, SealingKeys } from './keys.ts';

type Question = { ask: 'sealing' } | { ask: 'locator'; domain: string } | { ask: 'open'; salt: Uint8Array; domain: string };
type Ask = Question & { id: number };
type Answer = { id: number; ok: unknown } | { id: number; failed: true };

function answer(keys: PassphraseKeys, m: Ask): Promise<unknown> {
  switch (m.ask) {
    case 'sealing':
      return keys.sealing();
    case 'locator':
      return keys.locator(m.domain);
    case 'open':
      return keys.open(m.salt, m.domain);
    default:
      return Promise.reject(new Error('unknown ask'));
  }
}

/**
 * The runner's side: serves `keys` over a fresh port for as long as `use` runs (the task on the
 * worker), then closes it. `use` gets the worker's end, to put in the task's args and transfer.
 */
export async function handOverKeys<T>(keys: PassphraseKeys, use: (port: MessagePort) => Promise<T>): Promise<T> {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (m: Ask) => {
    answer(keys, m).then(
      (ok) => port1.postMessage({ id: m.id, ok } satisfies Answer),
      () => port1.postMessage({ id: m.id, failed: true } satisfies Answer), // no reason crosses: it might quote the passphrase
    );
  });
  try {
    return await use(port2);
  } finally {
    port1.close();
  }
}

/** A structured clone makes Buffers plain Uint8Arrays. */
const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
const keysBack = (k: Keys): Keys => ({ locator: buf(k.locator), header: buf(k.header), payload: buf(k.payload) });

/** The worker's side: the keys behind a port from handOverKeys(). close() when the task is done. */
export function keysFrom(port: MessagePort): PassphraseKeys & { close(): void } {
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let closed = false;
  const failure = () => new MediaError('engine_failed', 'The passphrase could not be turned into keys.');
  const onClose = () => {
    closed = true;
    for (const p of pending.values()) p.reject(failure());
    pending.clear();
  };
  port.once('close', onClose);
  port.on('message', (m: Answer) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if ('failed' in m) p.reject(failure());
    else p.resolve(m.ok);
  });
  const ask = <T>(m: Question): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (closed) return reject(failure());
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      port.postMessage({ ...m, id });
    });
  let sealing: Promise<SealingKeys> | undefined;
  return {
    sealing() {
      sealing ??= ask<SealingKeys>({ ask: 'sealing' }).then((k) => ({ salt: buf(k.salt), keys: keysBack(k.keys) }));
      return sealing;
    },
    locator: (domain) => ask<Uint8Array>({ ask: 'locator', domain }).then(buf),
    open: (salt, domain) => ask<Keys>({ ask: 'open', salt, domain }).then(keysBack),
    close() {
      port.close();
    },
  };
}

