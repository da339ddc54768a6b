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
  'analytics:read',
] as const;
export type Scope = (typeof SCOPES)[number];

type ResourceOf<S> = S extends `${infer R}:${string}` ? R : never;
/** `posts:*`: every scope of one resource, today's and any added later (docs/api-behaviour.md). */
export type ScopeWildcard = `${ResourceOf<Scope>}:*`;

export const SCOPE_WILDCARDS = [...new Set(SCOPES.map((scope) => `${scope.slice(0, scope.indexOf(':'))}:*`))] as ScopeWildcard[];

/** What a key may be given at creation: `*`, a scope, or a resource's wildcard. Stored as given. */
export type GrantableScope = '*' | Scope | ScopeWildcard;
export const GRANTABLE_SCOPES: readonly GrantableScope[] = ['*', ...SCOPES, ...SCOPE_WILDCARDS];

const wildcardOf = (scope: Scope): ScopeWildcard => `${scope.slice(0, scope.indexOf(':'))}:*` as ScopeWildcard;

export function hasScope(key: Pick<ApiKey, 'scopes'>, scope: Scope): boolean {
  return key.scopes.includes('*') || key.scopes.includes(scope) || key.scopes.includes(wildcardOf(scope));
}

/**
 * Whether a key holding `held` may hand out `wanted`. A wildcard grows with its resource, so it
 * is handed out only by a key that holds it (or `*`), never by one holding today's scopes one by one.
 */
export function canGrant(held: Pick<ApiKey, 'scopes'>, wanted: GrantableScope): boolean {
  if (held.scopes.includes('*')) return true;
  if (wanted === '*') return false;
  if (wanted.endsWith(':*')) return held.scopes.includes(wanted);
  return hasScope(held, wanted as Scope);
}
