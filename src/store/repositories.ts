// The row seams. The domain sees only these interfaces; sqlite/ is the embedded backend,
// and a scale-out backend (PostgreSQL) would sit beside it with the same shapes.

export interface Account {
  id: string;
  email: string;
  verifiedAt: number | null;
  deactivatedAt: number | null;
  createdAt: number;
}

export interface AccountRepository {
  insert(account: Account): void;
  byEmail(email: string): Account | undefined;
  byId(id: string): Account | undefined;
  update(id: string, fields: Partial<Pick<Account, 'verifiedAt' | 'deactivatedAt'>>): void;
}

export interface ApiKeyRow {
  id: string;
  accountId: string;
  prefix: string;
  last4: string;
  /** HMAC-SHA256 of the whole key under the server pepper; the key itself is never stored. */
  digest: Buffer;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface ApiKeyRepository {
  insert(row: ApiKeyRow): void;
  byDigest(digest: Buffer): ApiKeyRow | undefined;
  byId(id: string): ApiKeyRow | undefined;
  listForAccount(accountId: string): ApiKeyRow[];
  revoke(id: string, at: number): boolean;
}

/** Wrapped per-object data keys. Deleting one destroys its object for good. */
export interface KeyRing {
  put(objectId: string, wrapped: Buffer): void;
  get(objectId: string): Buffer | undefined;
  delete(objectId: string): boolean;
}

export interface SettingsRepository {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
  delete(name: string): void;
}

export interface Repositories {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  keyRing: KeyRing;
  settings: SettingsRepository;
}
