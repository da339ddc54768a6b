import type { ApiKeysService } from '../../services/apiKeys.js';
import { SCOPES, type Scope } from '../../services/authContext.js';
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
      maxItems: SCOPES.length + 1,
      uniqueItems: true,
      description: 'What the key may do (default `["*"]`, everything); a key can only grant scopes it holds itself',
      items: { type: 'string', enum: ['*', ...SCOPES] },
    },
  },
} as const;

export interface CreateKeyBody {
  name?: string;
  scopes?: Scope[] | ['*'];
}

/** The creation answer: the only one with the full key. */
export const keyCreatedSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, key: { type: 'string' }, prefix: { type: 'string' }, created_at: timestamp },
} as const;

export const keyListEntrySchema = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, key_prefix: { type: 'string' }, last_used_at: nullableTimestamp, created_at: timestamp },
} as const;

export function apiKeyRoutes({ keys }: { keys: ApiKeysService }): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/blogs/:id/api-keys',
      operationId: 'createBlogKey',
      summary: 'Generate an API key bound to the blog (the full key is returned only here)',
      description:
        'A key that can act on this blog only, with the scopes asked for (default `*`). The full key is in this answer and never again; store it now.',
      tag: 'api-keys',
      scope: 'keys:manage',
      body: createKeyBody,
      status: 201,
      response: keyCreatedSchema,
      secret: { field: 'key', resource: 'API key' },
      handler: (ctx) => {
        const body = ctx.state.body as CreateKeyBody;
        const { key, secret } = keys.create(authOf(ctx), ctx.params.id ?? '', { name: body.name ?? 'Default', scopes: body.scopes ?? ['*'] });
        ctx.status = 201;
        ctx.body = presentKeyCreated(key, secret);
      },
    },
    {
      method: 'GET',
      path: '/blogs/:id/api-keys',
      operationId: 'listBlogKeys',
      summary: "List the blog's active keys",
      description: 'Active keys bound to the blog, by prefix (never the full key), with when each was last used.',
      tag: 'api-keys',
      scope: 'keys:manage',
      status: 200,
      response: dataListSchema(keyListEntrySchema),
      handler: (ctx) => {
        ctx.body = { data: keys.list(authOf(ctx), ctx.params.id ?? '').map(presentKeyListEntry) };
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
      handler: (ctx) => {
        keys.revoke(authOf(ctx), ctx.params.id ?? '', ctx.params.keyId ?? '');
        ctx.body = { deleted: true };
      },
    },
  ];
}
