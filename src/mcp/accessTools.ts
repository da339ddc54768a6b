/** The MCP tools of API keys and webhooks (toolKit.ts for the parts, tools.ts for the list). */
import type { KeyInput, WebhookInput } from '../client/folioClient.js';
import { createKeyBody } from '../http/routes/apiKeys.js';
import { createWebhookBody } from '../http/routes/webhooks.js';
import { annotations, blogPathArg, blogPathOf, idempotencyKeyArg, idsOnly, input, str, without, writeOf, type FolioTool } from './toolKit.js';

const keyBlog = { type: 'string', description: 'The blog a key is bound to; without it, the account keys (bound to no blog) are meant' } as const;
const keyId = { type: 'string', description: 'The id of the key (list_api_keys gives them)' } as const;
const webhookId = { type: 'string', description: 'The id of the webhook (list_webhooks gives them)' } as const;
const blogKey = (args: Record<string, unknown>): string | undefined => (typeof args.blog_id === 'string' ? args.blog_id : undefined);

export const ACCESS_TOOLS: readonly FolioTool[] = [
  {
    name: 'get_account',
    description: "Shows the key's account: id, email, plan, the plan's limits (null where it has none) and how many blogs it has.",
    inputSchema: idsOnly({}),
    annotations: annotations('Get the account', 'read'),
    run: (client) => client.getAccount(),
  },
  {
    name: 'create_api_key',
    description:
      'Creates an API key: bound to the blog given as blog_id, else an account key. The full key is in this answer only. A key can only grant scopes this key holds. expires_at (ISO 8601 with a time zone, at most ten years ahead) makes it stop working then; default never.',
    inputSchema: input(createKeyBody, { blog_id: keyBlog, idempotency_key: idempotencyKeyArg }),
    annotations: annotations('Create an API key', 'write'),
    run: (client, args) => {
      const body = without(args, 'blog_id', 'idempotency_key') as KeyInput;
      const blog = blogKey(args);
      return blog ? client.createBlogKey(blog, body, writeOf(args)) : client.createAccountKey(body, writeOf(args));
    },
  },
  {
    name: 'list_api_keys',
    description:
      "Lists keys not revoked by prefix (never the full key) with their last use and expires_at: the blog's keys with blog_id, else the account keys.",
    inputSchema: idsOnly({ blog_id: keyBlog }),
    annotations: annotations('List API keys', 'read'),
    run: (client, args) => {
      const blog = blogKey(args);
      return blog ? client.listBlogKeys(blog) : client.listAccountKeys();
    },
  },
  {
    name: 'revoke_api_key',
    description: "Revokes a key; it stops working at once. Give blog_id for a blog's key. The account's last account key cannot be revoked.",
    inputSchema: idsOnly({ blog_id: keyBlog, key_id: keyId }, ['key_id']),
    annotations: annotations('Revoke an API key', 'destructive'),
    run: (client, args) => {
      const blog = blogKey(args);
      return blog ? client.revokeBlogKey(blog, str(args, 'key_id')) : client.revokeAccountKey(str(args, 'key_id'));
    },
  },
  {
    name: 'create_webhook',
    description:
      "Subscribes a URL to the blog's events (post.published and others); deliveries are signed per Standard Webhooks with the secret in this answer only.",
    inputSchema: input(createWebhookBody, { blog_id: blogPathArg, idempotency_key: idempotencyKeyArg }),
    annotations: annotations('Create a webhook', 'write'),
    run: (client, args) => client.createWebhook(blogPathOf(client, args), without(args, 'blog_id', 'idempotency_key') as WebhookInput, writeOf(args)),
  },
  {
    name: 'list_webhooks',
    description: "Lists the blog's webhooks (without their secrets).",
    inputSchema: idsOnly({ blog_id: blogPathArg }),
    annotations: annotations('List webhooks', 'read'),
    run: (client, args) => client.listWebhooks(blogPathOf(client, args)),
  },
  {
    name: 'delete_webhook',
    description: 'Deletes a webhook; deliveries not yet made are dropped.',
    inputSchema: idsOnly({ blog_id: blogPathArg, webhook_id: webhookId }, ['webhook_id']),
    annotations: annotations('Delete a webhook', 'destructive'),
    run: (client, args) => client.deleteWebhook(blogPathOf(client, args), str(args, 'webhook_id')),
  },
  {
    name: 'list_webhook_deliveries',
    description: "Lists a webhook's latest 100 delivery attempts with the receiver's status code, duration and error, to debug a receiver.",
    inputSchema: idsOnly({ blog_id: blogPathArg, webhook_id: webhookId }, ['webhook_id']),
    annotations: annotations('Webhook deliveries', 'read'),
    run: (client, args) => client.listWebhookDeliveries(blogPathOf(client, args), str(args, 'webhook_id')),
  },
  {
    name: 'redeliver_webhook_delivery',
    description:
      'Sends a delivery again now, with the same body and webhook-id (the delivery_id from list_webhook_deliveries), to resend an event after fixing a receiver.',
    inputSchema: idsOnly(
      {
        blog_id: blogPathArg,
        webhook_id: webhookId,
        delivery_id: { type: 'string', description: 'The delivery_id of an attempt (list_webhook_deliveries gives them)' },
      },
      ['webhook_id', 'delivery_id'],
    ),
    annotations: annotations('Redeliver a webhook delivery', 'write', true),
    run: (client, args) => client.redeliverWebhookDelivery(blogPathOf(client, args), str(args, 'webhook_id'), str(args, 'delivery_id')),
  },
];
