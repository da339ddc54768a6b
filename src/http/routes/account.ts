import { PLANS } from '../../domain/plans.js';
import type { AccountsService } from '../../services/accounts.js';
import { presentAccount } from '../presenters/account.js';
import type { RouteDef } from '../routeDef.js';
import { authOf } from '../state.js';
import { deletedSchema, timestamp } from './schemaParts.js';

const accountSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: ['string', 'null'] },
    plan: { type: 'string', enum: [...PLANS] },
    created_at: timestamp,
    limits: {
      type: 'object',
      properties: {
        blogs: { type: ['integer', 'null'], description: 'Most blogs the plan allows; null when it has no limit' },
        requests_per_hour: { type: 'integer' },
      },
    },
    usage: { type: 'object', properties: { blogs: { type: 'integer' } } },
  },
} as const;

const deleteAccountBody = {
  type: 'object',
  additionalProperties: false,
  required: ['confirm'],
  properties: { confirm: { type: 'string', maxLength: 100, description: "The account's id, repeated so a slip deletes nothing" } },
} as const;

/** The calling key's account (docs/api-behaviour.md "Account"). */
export function accountRoutes({ accounts }: { accounts: AccountsService }): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/account',
      operationId: 'getAccount',
      summary: "The key's account: its plan, the plan's limits and how many blogs it has",
      description: 'Any key with blogs:read (blog-bound keys too) sees the account it belongs to. A limit the plan does not have is null (enterprise blogs).',
      tag: 'account',
      scope: 'blogs:read',
      status: 200,
      response: accountSchema,
      handler: async (ctx) => {
        const { account } = authOf(ctx);
        ctx.body = presentAccount(account, await accounts.blogCount(account.id));
      },
    },
    {
      method: 'DELETE',
      path: '/account',
      operationId: 'deleteAccount',
      summary: 'Delete the account: its keys stop working and its blogs are gone at once; their sites are removed in the background',
      description:
        "Needs a key with the `*` scope and the account's id in `confirm` (else 400). On the answer every key of the account gets 401 and every blog 404; published pages, media and search indexes are removed in the background, as a blog delete does. Backups keep the data until they rotate out.",
      tag: 'account',
      scope: 'keys:manage',
      body: deleteAccountBody,
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await accounts.deleteOwn(authOf(ctx), (ctx.state.body as { confirm: string }).confirm);
        ctx.body = { deleted: true };
      },
    },
  ];
}
