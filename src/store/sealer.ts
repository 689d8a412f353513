// Seals small row fields (file names, client metadata) so that the row store never holds
// them as plaintext. AES-256-GCM under a key derived from the master key; the row's id is
// the associated data, so a sealed field cannot be moved to another row.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Sealer as SealerPort } from '../domain/ports.ts';
import { IntegrityError } from './master-key.ts';

const VERSION = 1;

export class Sealer implements SealerPort {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  seal(context: string, value: unknown): Buffer {
    const nonce = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.#key, nonce);
    c.setAAD(Buffer.from(context));
    const ct = Buffer.concat([c.update(JSON.stringify(value), 'utf8'), c.final()]);
    return Buffer.concat([Buffer.of(VERSION), nonce, ct, c.getAuthTag()]);
  }

  open<T>(context: string, sealed: Buffer): T {
    if (sealed.length < 29 || sealed[0] !== VERSION) throw new IntegrityError('sealed field has an unknown shape');
    const d = createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(1, 13));
    d.setAAD(Buffer.from(context));
    d.setAuthTag(sealed.subarray(sealed.length - 16));
    try {
      return JSON.parse(Buffer.concat([d.update(sealed.subarray(13, sealed.length - 16)), d.final()]).toString('utf8')) as T;
    } catch {
      throw new IntegrityError('sealed field failed authentication');
    }
  }
}
