import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ApiKey, NewApiKey } from '../db/apiKeysRepo.js';

export const KEY_PREFIX = 'pk_live_';

/**
 * A key is `pk_live_` + at least 32 characters of a URL-safe alphabet from a cryptographic
 * source. 32 random bytes give 43 base64url characters (256 bits).
 */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Only this hash is stored. Keys carry 256 random bits, so a fast hash is enough. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The leading characters shown as `prefix` / `key_prefix`. */
export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}

/** A new key: the row to insert (it holds only the hash) and the secret to show once. */
export function mintKey(fields: Pick<ApiKey, 'accountId' | 'blogId' | 'name' | 'scopes' | 'createdAt' | 'expiresAt'>): {
  row: NewApiKey;
  key: ApiKey;
  secret: string;
} {
  const secret = generateKey();
  const key: ApiKey = { id: randomUUID(), ...fields, keyPrefix: keyPrefix(secret), lastUsedAt: null };
  return { row: { ...key, keyHash: hashKey(secret) }, key, secret };
}
