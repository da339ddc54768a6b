import type { Account } from '../db/accountsRepo.js';
import type { ApiKey } from '../db/apiKeysRepo.js';
import type { Session } from '../db/sessionsRepo.js';

/**
 * Who is calling and how: an API key (`via: 'key'`), or a person signed in to the dashboard
 * (`via: 'session'`, the folio_session cookie), which acts with the account's full scope.
 * Services take this, never a request. What a caller may do is `grantOf`, who wrote something
 * is `actorOf`: code that needs the key itself (the MCP grants) narrows on `via` first.
 */
export type AuthContext = KeyAuth | SessionAuth;

export interface KeyAuth {
  via: 'key';
  account: Account;
  key: ApiKey;
}

export interface SessionAuth {
  via: 'session';
  account: Account;
  session: Session;
}

/** What a caller may do: its scopes and the blog it is bound to (null: any blog of the account). */
export interface Grant {
  scopes: readonly string[];
  blogId: string | null;
}

const SESSION_GRANT: Grant = Object.freeze({ scopes: Object.freeze(['*']), blogId: null });

export function grantOf(auth: AuthContext): Grant {
  return auth.via === 'key' ? auth.key : SESSION_GRANT;
}

/**
 * The id of the key or session that acts: what owns an Idempotency-Key record and whose edits a
 * post revision coalesces. Both are random UUIDs, so the two kinds never collide.
 */
export function actorOf(auth: AuthContext): string {
  return auth.via === 'key' ? auth.key.id : auth.session.id;
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

export function hasScope(key: { readonly scopes: readonly string[] }, scope: Scope): boolean {
  return key.scopes.includes('*') || key.scopes.includes(scope) || key.scopes.includes(wildcardOf(scope));
}

/**
 * Whether a key holding `held` may hand out `wanted`. A wildcard grows with its resource, so it
 * is handed out only by a key that holds it (or `*`), never by one holding today's scopes one by one.
 */
export function canGrant(held: { readonly scopes: readonly string[] }, wanted: GrantableScope): boolean {
  if (held.scopes.includes('*')) return true;
  if (wanted === '*') return false;
  if (wanted.endsWith(':*')) return held.scopes.includes(wanted);
  return hasScope(held, wanted as Scope);
}
