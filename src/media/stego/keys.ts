// Two keys from one passphrase. The locator key only decides where bits go: it is cheap
// (HKDF), since positions alone reveal nothing that can be tested. The seal key, which
// encrypts and authenticates, comes from argon2id with a random salt carried in the stream.
//
// Everything hide and reveal need from a passphrase is asked of a PassphraseKeys: made here
// from the passphrase itself (passphraseKeys), or, on a worker thread, from a port to the job
// runner that holds it (key-handoff.ts), so the passphrase never leaves the runner's thread.
import { argon2, hkdfSync, randomBytes } from 'node:crypto';

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

export interface Keys {
  locator: Buffer;
  header: Buffer;
  payload: Buffer;
}

/** Fresh keys for one hide: a random salt and what argon2id makes of it. */
export interface SealingKeys {
  salt: Buffer;
  keys: Keys;
}

/** The keys for one salt: argon2id, then HKDF for the header and payload keys. */
export async function deriveKeys(passphrase: string, salt: Uint8Array, domain: string): Promise<Keys> {
  const seal = await sealKey(passphrase, salt);
  return {
    locator: locatorKey(passphrase, domain),
    header: Buffer.from(hkdfSync('sha256', seal, Buffer.alloc(0), 'obscura/stego/header/v1', 32)),
    payload: Buffer.from(hkdfSync('sha256', seal, Buffer.alloc(0), 'obscura/stego/payload/v1', 32)),
  };
}

/** Starts the (slow) key derivation; callers may decode the cover meanwhile. */
export async function sealingKeys(passphrase: string, domain: string): Promise<SealingKeys> {
  const salt = randomBytes(SALT_BYTES);
  return { salt, keys: await deriveKeys(passphrase, salt, domain) };
}

/** What hide and reveal ask of a passphrase; never the passphrase itself. */
export interface PassphraseKeys {
  /** Hide: fresh keys (a new salt) for the domain the hide was set up with; the same ones however often asked. */
  sealing(): Promise<SealingKeys>;
  /** Reveal: where the header's bits are, before its salt is known. */
  locator(domain: string): Promise<Buffer>;
  /** Reveal: the keys for a salt read from a cover. */
  open(salt: Uint8Array, domain: string): Promise<Keys>;
}

/**
 * A passphrase's keys, derived on this thread (argon2id on libuv's pool). `hide` names the
 * domain a hide seals in: its argon2id starts now, so it runs while the cover is copied and
 * decoded; without it, sealing() fails.
 */
export function passphraseKeys(passphrase: string, opts: { hide?: string } = {}): PassphraseKeys {
  let fresh: Promise<SealingKeys> | undefined;
  const sealing = () => {
    fresh ??= opts.hide === undefined ? Promise.reject(new Error('not set up for a hide')) : sealingKeys(passphrase, opts.hide);
    return fresh;
  };
  if (opts.hide !== undefined) sealing().catch(() => {}); // started now; its failure reaches whoever asks
  return {
    sealing,
    locator: async (domain) => locatorKey(passphrase, domain),
    open: (salt, domain) => deriveKeys(passphrase, salt, domain),
  };
}

/** A PassphraseKeys as it is, or one made from a passphrase here. */
export function keysOf(p: string | PassphraseKeys): PassphraseKeys {
  return typeof p === 'string' ? passphraseKeys(p) : p;
}
