import type { AttemptView, Webhook } from '../../db/webhooksRepo.js';
import type { WebhooksService } from '../../services/webhooks.js';
import { WEBHOOK_EVENTS } from '../../webhooks/webhookEvents.js';
import type { RouteDef } from '../routeDef.js';
import { authOf } from '../state.js';
import { dataListSchema, deletedSchema, timestamp } from './schemaParts.js';

export const createWebhookBody = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'events'],
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      pattern: '^https?://\\S+$',
      'x-hint': 'must be an http(s) URL',
      description: 'The http(s) URL that receives the signed POSTs',
    },
    // Typed items keep ajv's uniqueItems on its string path: for untyped items it deep-compares,
    // which throws on hostile objects such as {"valueOf": 1} (a 500 instead of a 400).
    events: {
      type: 'array',
      minItems: 1,
      maxItems: WEBHOOK_EVENTS.length,
      uniqueItems: true,
      description: 'The events to deliver',
      items: { type: 'string', enum: [...WEBHOOK_EVENTS] },
    },
  },
} as const;

interface CreateWebhookBody {
  url: string;
  events: string[];
}

const webhookSchema = {
  type: 'object',
  required: ['id', 'url', 'events', 'created_at'],
  properties: { id: { type: 'string' }, url: { type: 'string' }, events: { type: 'array', items: { enum: [...WEBHOOK_EVENTS] } }, created_at: timestamp },
} as const;

const createdSchema = {
  ...webhookSchema,
  required: [...webhookSchema.required, 'secret'],
  properties: { ...webhookSchema.properties, secret: { type: 'string', description: 'Standard Webhooks signing secret (whsec_…); shown only here' } },
} as const;

const attemptSchema = {
  type: 'object',
  required: ['delivery_id', 'event', 'delivery_status', 'attempt', 'at', 'response_code', 'duration_ms', 'error'],
  properties: {
    delivery_id: { type: 'string', description: 'The webhook-id header of the delivery (the same on every attempt)' },
    event: { enum: [...WEBHOOK_EVENTS] },
    delivery_status: { enum: ['pending', 'delivered', 'failed'] },
    attempt: { type: 'integer' },
    at: timestamp,
    response_code: { type: ['integer', 'null'] },
    duration_ms: { type: 'integer' },
    error: { type: ['string', 'null'] },
  },
} as const;

const presentWebhook = (w: Webhook) => ({ id: w.id, url: w.url, events: w.events, created_at: w.createdAt });
const presentAttempt = (a: AttemptView) => ({
  delivery_id: a.deliveryId,
  event: a.eventType,
  delivery_status: a.deliveryStatus,
  attempt: a.attempt,
  at: a.at,
  response_code: a.responseCode,
  duration_ms: a.durationMs,
  error: a.error,
});

export function webhookRoutes({ webhooks }: { webhooks: WebhooksService }): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/blogs/:id/webhooks',
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to events of the blog (deliveries signed per Standard Webhooks; the secret is returned only here)',
      description:
        'Deliveries are POSTs signed per Standard Webhooks with the secret returned here (and only here). Private addresses are refused unless the server allows them. Failed deliveries are retried with back-off.',
      tag: 'webhooks',
      scope: 'blogs:write',
      body: createWebhookBody,
      status: 201,
      response: createdSchema,
      secret: { field: 'secret', resource: 'webhook' },
      handler: async (ctx) => {
        const webhook = await webhooks.create(authOf(ctx), ctx.params.id ?? '', ctx.state.body as CreateWebhookBody);
        ctx.body = { ...presentWebhook(webhook), secret: webhook.secret };
      },
    },
    {
      method: 'GET',
      path: '/blogs/:id/webhooks',
      operationId: 'listWebhooks',
      summary: "The blog's webhooks",
      description: "The blog's webhook subscriptions, without their secrets.",
      tag: 'webhooks',
      scope: 'blogs:read',
      status: 200,
      response: dataListSchema(webhookSchema),
      handler: async (ctx) => {
        ctx.body = { data: (await webhooks.list(authOf(ctx), ctx.params.id ?? '')).map(presentWebhook) };
      },
    },
    {
      method: 'DELETE',
      path: '/blogs/:id/webhooks/:webhookId',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook (deliveries not yet made are dropped)',
      description: 'Stops deliveries to the URL at once; deliveries not yet made are dropped.',
      tag: 'webhooks',
      scope: 'blogs:write',
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await webhooks.delete(authOf(ctx), ctx.params.id ?? '', ctx.params.webhookId ?? '');
        ctx.body = { deleted: true };
      },
    },
    {
      method: 'GET',
      path: '/blogs/:id/webhooks/:webhookId/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The latest 100 delivery attempts, newest first, with response code and duration',
      description:
        "The latest 100 attempts to deliver events to this webhook, with the receiver's status code, the time taken and the error, to debug a receiver.",
      tag: 'webhooks',
      scope: 'blogs:read',
      status: 200,
      response: dataListSchema(attemptSchema),
      handler: async (ctx) => {
        ctx.body = { data: (await webhooks.attempts(authOf(ctx), ctx.params.id ?? '', ctx.params.webhookId ?? '')).map(presentAttempt) };
      },
    },
    {
      method: 'POST',
      path: '/blogs/:id/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
      operationId: 'redeliverWebhookDelivery',
      summary: 'Send a delivery again now (same body and webhook-id), whatever its state',
      description:
        'Makes the delivery (its `delivery_id` from the deliveries list) due at once, to resend an event after fixing a receiver: the same signed body and `webhook-id`, so a receiver that already took it can drop it. A failed delivery gets one attempt more, retried with back-off only within 24 hours of its event. Takes no request body.',
      tag: 'webhooks',
      scope: 'blogs:write',
      status: 200,
      response: {
        type: 'object',
        required: ['delivery_id', 'delivery_status'],
        properties: { delivery_id: { type: 'string' }, delivery_status: { const: 'pending' } },
      },
      handler: async (ctx) => {
        const { deliveryId } = await webhooks.redeliver(authOf(ctx), ctx.params.id ?? '', ctx.params.webhookId ?? '', ctx.params.deliveryId ?? '');
        ctx.body = { delivery_id: deliveryId, delivery_status: 'pending' };
      },
    },
  ];
}
