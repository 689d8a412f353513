// Two keys from one passphrase. The locator key only decides where bits go: it is cheap
// (HKDF), since positions alone reveal nothing that can be tested. The seal key, which
// encrypts and authenticates, comes from argon2id with a random salt carried in the stream.
import { hkdfSync } from 'node:crypto';
import { argon2id } from 'hash-wasm';

export const SALT_BYTES = 16;

/** argon2id parameters: 64 MiB, 3 passes (RFC 9106's second recommended option). */
const ARGON = { memorySize: 64 * 1024, iterations: 3, parallelism: 1, hashLength: 32 };

export function locatorKey(passphrase: string, domain: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(passphrase.normalize('NFC'), 'utf8'), Buffer.alloc(0), `obscura/stego/locator/v1/${domain}`, 32));
}

export async function sealKey(passphrase: string, salt: Uint8Array): Promise<Buffer> {
  const out = await argon2id({ password: passphrase.normalize('NFC'), salt, ...ARGON, outputType: 'binary' });
  return Buffer.from(out);
}
