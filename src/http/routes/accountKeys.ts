import { ACCOUNT_KEY_NAME } from '../../services/accounts.js';
import type { ApiKeysService } from '../../services/apiKeys.js';
import { presentAccountKeyCreated, presentAccountKeyListEntry } from '../presenters/apiKey.js';
import type { RouteDef } from '../routeDef.js';
import { authOf } from '../state.js';
import { createKeyBody, keyCreatedSchema, keyListEntrySchema, keyRequestOf, type CreateKeyBody } from './apiKeys.js';
import { dataListSchema, deletedSchema } from './schemaParts.js';

const scopes = { type: 'array', items: { type: 'string' } } as const;
const accountKeyCreatedSchema = { type: 'object', properties: { ...keyCreatedSchema.properties, scopes } } as const;
const accountKeyListEntrySchema = { type: 'object', properties: { ...keyListEntrySchema.properties, scopes } } as const;

/**
 * Account keys (bound to no blog), so a leaked bootstrap key can be replaced and revoked. Same
 * body, validation and scope rule as the blog key routes.
 */
export function accountKeyRoutes({ keys }: { keys: ApiKeysService }): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/account/api-keys',
      operationId: 'createAccountKey',
      summary: 'Generate an account key, bound to no blog (the full key is returned only here)',
      description:
        'A key that can act on every blog of the account, with the scopes asked for (default `*`) until `expires_at` (default never). The full key is in this answer and never again.',
      tag: 'api-keys',
      scope: 'keys:manage',
      body: createKeyBody,
      status: 201,
      response: accountKeyCreatedSchema,
      secret: { field: 'key', resource: 'API key' },
      handler: async (ctx) => {
        const { key, secret } = await keys.createAccountKey(authOf(ctx), keyRequestOf(ctx.state.body as CreateKeyBody, ACCOUNT_KEY_NAME));
        ctx.status = 201;
        ctx.body = presentAccountKeyCreated(key, secret);
      },
    },
    {
      method: 'GET',
      path: '/account/api-keys',
      operationId: 'listAccountKeys',
      summary: "List the account's active account keys, newest first (blog-bound keys are listed per blog)",
      description:
        'Account keys not revoked, by prefix (never the full key), with their scopes, when each was last used and when it expires (expired ones too, until revoked).',
      tag: 'api-keys',
      scope: 'keys:manage',
      status: 200,
      response: dataListSchema(accountKeyListEntrySchema),
      handler: async (ctx) => {
        ctx.body = { data: (await keys.listAccountKeys(authOf(ctx))).map(presentAccountKeyListEntry) };
      },
    },
    {
      method: 'DELETE',
      path: '/account/api-keys/:keyId',
      operationId: 'revokeAccountKey',
      summary: "Revoke an account key, the calling key included; it stops working at once. The account's last account key is refused (409)",
      description: "The key stops working at once. The account's last account key cannot be revoked (409), so the account never locks itself out.",
      tag: 'api-keys',
      scope: 'keys:manage',
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await keys.revokeAccountKey(authOf(ctx), ctx.params.keyId ?? '');
        ctx.body = { deleted: true };
      },
    },
  ];
}
