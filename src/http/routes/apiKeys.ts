import type { ApiKeysService, KeyRequest } from '../../services/apiKeys.js';
import { GRANTABLE_SCOPES, type GrantableScope } from '../../services/authContext.js';
import { requireTimestamp } from '../../services/timestamps.js';
import { presentKeyCreated, presentKeyListEntry } from '../presenters/apiKey.js';
import type { RouteDef } from '../routeDef.js';
import { authOf } from '../state.js';
import { dataListSchema, deletedSchema, nonBlank, nullableTimestamp, timestamp } from './schemaParts.js';

export const createKeyBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      pattern: nonBlank,
      'x-hint': 'must not be blank',
      description: 'A name to recognise the key by (at most 100 characters)',
    },
    // Typed items keep ajv's uniqueItems on its string path: for untyped items it deep-compares,
    // which throws on hostile objects such as {"valueOf": 1} (a 500 instead of a 400).
    scopes: {
      type: 'array',
      minItems: 1,
      maxItems: GRANTABLE_SCOPES.length,
      uniqueItems: true,
      description:
        'What the key may do (default `["*"]`, everything); `posts:*` is every posts scope, and so for each resource. Stored and answered as given. A key can only grant scopes it holds itself (a wildcard only if it holds that wildcard or `*`)',
      items: { type: 'string', enum: GRANTABLE_SCOPES },
    },
    expires_at: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: 64,
      description:
        'When the key stops working: ISO 8601 date-time with a time zone (`Z` or an offset), in the future and at most ten years ahead. `null` or absent: never. From then on the key answers 401',
    },
  },
} as const;

export interface CreateKeyBody {
  name?: string;
  scopes?: GrantableScope[];
  expires_at?: string | null;
}

/** The body with its defaults, `expires_at` parsed (its bounds are the service's). */
export function keyRequestOf(body: CreateKeyBody, defaultName: string): KeyRequest {
  const expiresAt = typeof body.expires_at === 'string' ? requireTimestamp('expires_at', body.expires_at) : null;
  return { name: body.name ?? defaultName, scopes: body.scopes ?? ['*'], expiresAt };
}

const expiresAt = { type: ['string', 'null'], description: 'When the key stops working (ISO 8601 UTC with milliseconds); null: never' } as const;

/** The creation answer: the only one with the full key. */
export const keyCreatedSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    key: { type: 'string' },
    prefix: { type: 'string' },
    created_at: timestamp,
    expires_at: expiresAt,
  },
} as const;

export const keyListEntrySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    key_prefix: { type: 'string' },
    last_used_at: nullableTimestamp,
    created_at: timestamp,
    expires_at: expiresAt,
  },
} as const;

export function apiKeyRoutes({ keys }: { keys: ApiKeysService }): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/blogs/:id/api-keys',
      operationId: 'createBlogKey',
      summary: 'Generate an API key bound to the blog (the full key is returned only here)',
      description:
        'A key that can act on this blog only, with the scopes asked for (default `*`) until `expires_at` (default never). The full key is in this answer and never again; store it now.',
      tag: 'api-keys',
      scope: 'keys:manage',
      body: createKeyBody,
      status: 201,
      response: keyCreatedSchema,
      secret: { field: 'key', resource: 'API key' },
      handler: async (ctx) => {
        const { key, secret } = await keys.create(authOf(ctx), ctx.params.id ?? '', keyRequestOf(ctx.state.body as CreateKeyBody, 'Default'));
        ctx.status = 201;
        ctx.body = presentKeyCreated(key, secret);
      },
    },
    {
      method: 'GET',
      path: '/blogs/:id/api-keys',
      operationId: 'listBlogKeys',
      summary: "List the blog's active keys",
      description:
        'Keys bound to the blog and not revoked, by prefix (never the full key), with when each was last used and when it expires (expired ones too, until revoked).',
      tag: 'api-keys',
      scope: 'keys:manage',
      status: 200,
      response: dataListSchema(keyListEntrySchema),
      handler: async (ctx) => {
        ctx.body = { data: (await keys.list(authOf(ctx), ctx.params.id ?? '')).map(presentKeyListEntry) };
      },
    },
    {
      method: 'DELETE',
      path: '/blogs/:id/api-keys/:keyId',
      operationId: 'revokeBlogKey',
      summary: 'Revoke a key; it stops working at once',
      description: 'The key stops working at once, for every request it would make.',
      tag: 'api-keys',
      scope: 'keys:manage',
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await keys.revoke(authOf(ctx), ctx.params.id ?? '', ctx.params.keyId ?? '');
        ctx.body = { deleted: true };
      },
    },
  ];
}
