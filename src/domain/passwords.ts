// Web passwords: argon2id (64 MiB, 3 passes, as the hide engine), run by Node's own argon2 off
// the main thread, stored as a PHC string. At most two hashes run at once: each holds 64 MiB,
// and a burst of sign-ins must not take the memory the media jobs need.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { AppError } from './errors.ts';

const PARAMS = { memory: 64 * 1024, passes: 3, parallelism: 1, tagLength: 32 };
const SALT_BYTES = 16;
const AT_ONCE = 2;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 1024;
/**
 * zxcvbn's score a new password needs: 3 is "guessed in no fewer than 10^8 tries", past what the
 * sign-in brake lets anyone try online and costly offline against argon2id. Below it are the common
 * passwords (some 40 000 of them, bundled), their small variations, repeats, sequences, keyboard rows.
 */
const MIN_SCORE = 3;

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

// Built on the first check (about 50 ms): the common-password list and the keyboard layouts.
// The check runs on the event loop before any brake, so its cost is bounded: zxcvbn's matching
// grows with the square of the length and with l33t variants (1 s for 1024 characters with its
// defaults, here 5-7 ms): it judges the first 40 characters (a longer password whose start is
// weak is refused for it) and at most 4 l33t substitutions ("p@ssw0rd" is still found).
let estimator: ZxcvbnFactory | undefined;
const JUDGED_LENGTH = 40;
const L33T_SUBSTITUTIONS = 4;

/** Why a guessable password is refused, by zxcvbn's warning (its translation key: no translations are loaded), in the users' words. */
const REASONS: Record<string, string> = {
  topTen: 'This password is among the ten most common passwords',
  topHundred: 'This password is among the hundred most common passwords',
  common: 'This password is among the most common passwords',
  similarToCommon: 'This password is a common password with small changes (a capital, a digit, a year)',
  wordByItself: 'A single word is easy to guess',
  straightRow: 'This password is a row of keys on the keyboard',
  keyPattern: 'This password is a pattern of keys on the keyboard',
  simpleRepeat: 'This password repeats a character (like "aaaa" or "1111")',
  extendedRepeat: 'This password repeats a group of characters (like "abcabc")',
  sequences: 'This password is a sequence (like "abcd" or "1234")',
  recentYears: 'Recent years are easy to guess',
  dates: 'Dates are easy to guess',
  userInputs: 'This password contains your e-mail address or the name of this service',
};
const ADVICE = 'choose another; a few unrelated words make a good one.';

/**
 * A new password, checked: long enough, not too long, and not easy to guess (the message says why).
 * `about` is what the person's password must not be made of: their e-mail address.
 */
export function checkedPassword(raw: unknown, about: string[] = []): string {
  if (typeof raw !== 'string' || raw.length < PASSWORD_MIN) {
    throw new AppError('weak_password', `The password must be at least ${PASSWORD_MIN} characters long; a few unrelated words make a good one.`);
  }
  if (raw.length > PASSWORD_MAX) throw new AppError('weak_password', `The password is longer than ${PASSWORD_MAX} characters.`);
  estimator ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs, maxLength: JUDGED_LENGTH, l33tMaxSubstitutions: L33T_SUBSTITUTIONS });
  const words = about.flatMap((a) => [a, ...a.split(/[@.+_-]/).filter((w) => w.length >= 3)]);
  const { score, feedback } = estimator.check(raw, ['obscura', ...words]);
  if (score < MIN_SCORE) {
    const reason = (feedback.warning && REASONS[feedback.warning]) ?? 'This password is easy to guess';
    throw new AppError('weak_password', `${reason}: ${ADVICE}`);
  }
  return raw;
}
