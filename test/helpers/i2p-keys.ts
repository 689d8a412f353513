// I2P identities read from i2pd's files, computed here independently of deploy/i2p/run.sh.
// A destination (or a router identity) is a 256-byte public key, a 128-byte signing key and a
// certificate (1-byte type, 2-byte length, payload); a private-keys file and a router.info
// start with one. Its hash is SHA-256 of those bytes.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** I2P's base64: the standard alphabet with '-' and '~' for '+' and '/'. */
export const i2pBase64 = (b: Buffer) => b.toString('base64').replace(/\+/g, '-').replace(/\//g, '~');

export function destinationOf(file: Buffer): Buffer {
  const len = 387 + file.readUInt16BE(385);
  if (file.length < len) throw new Error(`${file.length} bytes: shorter than the ${len}-byte identity it announces`);
  return file.subarray(0, len);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();

const B32 = 'abcdefghijklmnopqrstuvwxyz234567';
function base32(b: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of b) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** Every way i2pd names a destination: what the X-I2P-Dest* headers carry, and more. */
export interface DestinationNames {
  b32: string; // 52 chars, without .b32.i2p
  b64: string; // the whole destination, I2P base64 (X-I2P-DestB64)
  hash: string; // I2P base64 of the hash (X-I2P-DestHash)
  hashHex: string;
  hashStd: string; // standard base64 of the hash
}

export function namesOf(keysFile: string): DestinationNames {
  const dest = destinationOf(readFileSync(keysFile));
  const h = sha256(dest);
  return { b32: base32(h), b64: i2pBase64(dest), hash: i2pBase64(h), hashHex: h.toString('hex'), hashStd: h.toString('base64') };
}

/** Copies a router's router.info into another's netDb, where i2pd would keep it after a reseed. */
export function addToNetDb(routerInfo: string, dataDir: string): string {
  const hash = i2pBase64(sha256(destinationOf(readFileSync(routerInfo))));
  const dir = path.join(dataDir, 'netDb', `r${hash[0]}`);
  mkdirSync(dir, { recursive: true });
  const to = path.join(dir, `routerInfo-${hash}.dat`);
  copyFileSync(routerInfo, to);
  return to;
}
