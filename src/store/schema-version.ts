// A database written by a newer release than this one: its rows may mean what this code does not
// know, so it is refused before anything is written. Releases cannot be downgraded.

export class NewerSchemaError extends Error {
  override name = 'NewerSchemaError';
}

/** Throws when the database carries a migration this release does not have. */
export function refuseNewerSchema(applied: Iterable<number>, known: readonly { version: number }[]): void {
  const latest = Math.max(...known.map((m) => m.version));
  const newest = Math.max(0, ...applied);
  if (newest > latest) {
    throw new NewerSchemaError(
      `the database is at schema version ${newest}, newer than this release knows (${latest}): a newer release of Obscura has upgraded it. ` +
        'Downgrades are not supported: run that release again, or restore the backup taken before the upgrade',
    );
  }
}
