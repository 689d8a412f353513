import { randomBytes } from 'node:crypto';

/** Unguessable identifier with a readable type prefix, e.g. `acct_3q0...`. */
export function newId(prefix: string, bytes = 16): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}
