// Web passwords: argon2id (64 MiB, 3 passes, as the hide engine), run by Node's own argon2 off
// the main thread, stored as a PHC string. At most two hashes run at once: each holds 64 MiB,
// and a burst of sign-ins must not take the memory the media jobs need.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';

const PARAMS = { memory: 64 * 1024, passes: 3, parallelism: 1, tagLength: 32 };
const SALT_BYTES = 16;
const AT_ONCE = 2;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 1024;

let running = 0;
const waiting: (() => void)[] = [];

async function derive(password: string, salt: Buffer, p: typeof PARAMS): Promise<Buffer> {
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      argon2('argon2id', { message: Buffer.from(password.normalize('NFC'), 'utf8'), nonce: salt, ...p }, (err, key) => (err ? reject(err) : resolve(key))),
    );
  } finally {
    running--;
    waiting.shift()?.();
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const tag = await derive(password, salt, PARAMS);
  return `$argon2id$v=19$m=${PARAMS.memory},t=${PARAMS.passes},p=${PARAMS.parallelism}$${salt.toString('base64url')}$${tag.toString('base64url')}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{32,128})$/;

/** Whether the password matches the stored hash, with the parameters it was made with. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = PHC.exec(stored);
  if (!m) return false;
  const expected = Buffer.from(m[5], 'base64url');
  const tag = await derive(password, Buffer.from(m[4], 'base64url'), { memory: Number(m[1]), passes: Number(m[2]), parallelism: Number(m[3]), tagLength: expected.length });
  return timingSafeEqual(tag, expected);
}

/** A hash no password matches, verified against when the address is unknown: both answers take as long. */
export const NO_ACCOUNT_HASH = `$argon2id$v=19$m=${PARAMS.memory},t=${PARAMS.passes},p=${PARAMS.parallelism}$${Buffer.alloc(SALT_BYTES).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;
