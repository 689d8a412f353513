// The master key wraps every object's data key and seeds the server's other secrets
// (the API-key pepper). It comes from OBSCURA_MASTER_KEY, or a key file; the embedded
// default creates the file on first start and says so loudly.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const WRAP_VERSION = 1;

export class IntegrityError extends Error {
  override name = 'IntegrityError';
}

/** The master key cannot be had: the message names the file or variable and what is wrong. */
export class MasterKeyError extends Error {}

/** A start with another key than the database was first used with: it must stop before it writes. */
export const otherMasterKey = (): MasterKeyError =>
  new MasterKeyError('the master key differs from the one this database was first used with: every instance must be given the same OBSCURA_MASTER_KEY (or the same key file)');

export class MasterKey {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the master key must be 32 bytes');
    this.#key = Buffer.from(key);
  }

  /** Loads the key (a MasterKeyError says what is wrong with it); creates the key file when there is neither a key nor a file. */
  static load(opts: { inline?: string; file: string }): { key: MasterKey; created?: string } {
    if (opts.inline) return { key: new MasterKey(Buffer.from(opts.inline, 'base64')) };
    if (existsSync(opts.file)) {
      let text: string;
      try {
        text = readFileSync(opts.file, 'utf8').trim();
      } catch (err) {
        throw new MasterKeyError(`cannot read the master key file ${opts.file} (${(err as NodeJS.ErrnoException).code}): it must be readable by the user the service runs as`);
      }
      const raw = Buffer.from(text, 'base64');
      if (raw.length !== 32) throw new MasterKeyError(`the master key file ${opts.file} does not hold 32 bytes in base64`);
      return { key: new MasterKey(raw) };
    }
    mkdirSync(path.dirname(opts.file), { recursive: true, mode: 0o700 });
    const raw = randomBytes(32);
    writeFileSync(opts.file, raw.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    return { key: new MasterKey(raw), created: opts.file };
  }

  /** Tells this key from another without revealing it: the first start records it, every later one compares. */
  get check(): string {
    return this.derive('master-key-check').toString('base64url');
  }

  /** A separate secret for one purpose, so no two uses share key material. */
  derive(label: string, length = 32): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#key, Buffer.alloc(0), `obscura/${label}`, length));
  }

  wrap(objectId: string, dataKey: Buffer): Buffer {
    const nonce = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.#key, nonce);
    c.setAAD(wrapAad(objectId));
    const ct = Buffer.concat([c.update(dataKey), c.final()]);
    return Buffer.concat([Buffer.of(WRAP_VERSION), nonce, ct, c.getAuthTag()]);
  }

  unwrap(objectId: string, wrapped: Buffer): Buffer {
    if (wrapped.length !== 1 + 12 + 32 + 16 || wrapped[0] !== WRAP_VERSION) throw new IntegrityError('wrapped key has an unknown shape');
    const d = createDecipheriv('aes-256-gcm', this.#key, wrapped.subarray(1, 13));
    d.setAAD(wrapAad(objectId));
    d.setAuthTag(wrapped.subarray(45));
    try {
      return Buffer.concat([d.update(wrapped.subarray(13, 45)), d.final()]);
    } catch {
      throw new IntegrityError('wrapped key failed authentication');
    }
  }
}

const wrapAad = (objectId: string) => Buffer.from(`obscura/blob-key/v${WRAP_VERSION}/${objectId}`);
