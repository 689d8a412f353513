// Two keys from one passphrase. The locator key only decides where bits go: it is cheap
// (HKDF), since positions alone reveal nothing that can be tested. The seal key, which
// encrypts and authenticates, comes from argon2id with a random salt carried in the stream.
import { argon2, hkdfSync } from 'node:crypto';

export const SALT_BYTES = 16;

/**
 * argon2id: 64 MiB, 3 passes, 4 lanes (RFC 9106's second recommended option). Node's own
 * (OpenSSL) argon2 runs off the main thread and uses the lanes: 0.18 s on 12 MP's worth of
 * budget here, against 0.25 s single-lane in WebAssembly.
 */
const ARGON = { memory: 64 * 1024, passes: 3, parallelism: 4, tagLength: 32 };

export function locatorKey(passphrase: string, domain: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(passphrase.normalize('NFC'), 'utf8'), Buffer.alloc(0), `obscura/stego/locator/v1/${domain}`, 32));
}

export function sealKey(passphrase: string, salt: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2('argon2id', { message: Buffer.from(passphrase.normalize('NFC'), 'utf8'), nonce: salt, ...ARGON }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}
