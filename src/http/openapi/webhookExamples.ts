/**
 * The examples of the webhook operations (create, list, delete, deliveries, redeliver), a part of
 * OPERATION_EXAMPLES (examples.ts) kept apart so that file stays readable.
 */
import { deleted, PUBLISHED, UPDATED, webhook } from './exampleValues.js';

export const WEBHOOK_EXAMPLES = {
  createWebhook: { request: { url: webhook.url, events: webhook.events }, response: { ...webhook, secret: 'whsec_CCDlBjnMuqpUnrIeYwPIlVvVffgv2+Ax' } },
  listWebhooks: { response: { data: [webhook] } },
  deleteWebhook: { response: deleted },
  listWebhookDeliveries: {
    response: {
      data: [
        {
          delivery_id: 'msg_9b1f3c07a2d84e6f8c5b0a1d2e3f4a5b',
          event: 'post.published',
          delivery_status: 'delivered',
          attempt: 2,
          at: UPDATED,
          response_code: 204,
          duration_ms: 38,
          error: null,
        },
        {
          delivery_id: 'msg_9b1f3c07a2d84e6f8c5b0a1d2e3f4a5b',
          event: 'post.published',
          delivery_status: 'delivered',
          attempt: 1,
          at: PUBLISHED,
          response_code: 503,
          duration_ms: 12,
          error: 'answered 503',
        },
      ],
    },
  },
  redeliverWebhookDelivery: { response: { delivery_id: 'msg_9b1f3c07a2d84e6f8c5b0a1d2e3f4a5b', delivery_status: 'pending' } },
};
