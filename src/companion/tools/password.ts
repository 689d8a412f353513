import { CompanionError } from '../errors.ts';

/** Checked before any network call; the passphrase itself is never repeated in a message. */
export function checkPassword(password: string): void {
  if (password.length === 0) throw new CompanionError('empty_password', 'password is empty; give the passphrase (for hide_file, choose a long one).', { argument: 'password' });
}
