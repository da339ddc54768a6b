import type { ApiKey } from '../../db/apiKeysRepo.js';

/** The full key appears only in the creation response; only its hash is stored. */
export function presentKeyCreated(key: ApiKey, secret: string) {
  return { id: key.id, name: key.name, key: secret, prefix: key.keyPrefix, created_at: key.createdAt, expires_at: key.expiresAt };
}

export function presentKeyListEntry(key: ApiKey) {
  return { id: key.id, name: key.name, key_prefix: key.keyPrefix, last_used_at: key.lastUsedAt, created_at: key.createdAt, expires_at: key.expiresAt };
}

/**
 * Account keys also show their scopes: they act for the whole account, so whoever decides
 * which one to revoke needs to see which of them hold `*`.
 */
export function presentAccountKeyCreated(key: ApiKey, secret: string) {
  return { id: key.id, name: key.name, key: secret, prefix: key.keyPrefix, scopes: key.scopes, created_at: key.createdAt, expires_at: key.expiresAt };
}

export function presentAccountKeyListEntry(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    scopes: key.scopes,
    last_used_at: key.lastUsedAt,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
  };
}
