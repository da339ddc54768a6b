import type { Account } from '../db/accountsRepo.js';
import type { ApiKey } from '../db/apiKeysRepo.js';

/** Who is calling: the key and the account it acts for. Services take this, never a request. */
export interface AuthContext {
  account: Account;
  key: ApiKey;
}

export const SCOPES = [
  'posts:read',
  'posts:write',
  'blogs:read',
  'blogs:write',
  'keys:manage',
  'domains:write',
  'search:read',
  'media:read',
  'media:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function hasScope(key: Pick<ApiKey, 'scopes'>, scope: Scope): boolean {
  return key.scopes.includes('*') || key.scopes.includes(scope);
}
