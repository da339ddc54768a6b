import { randomBytes } from 'node:crypto';
import { atomically, type SqlScope, type SqlTransaction } from './sql/sqlClient.js';

/** Queues webhook deliveries inside the transaction of the change they describe. */
export class WebhookQueueRepo {
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): WebhookQueueRepo {
    return new WebhookQueueRepo(tx);
  }

  /** Returns how many deliveries were queued (0 when no webhook of the blog wants the event). */
  async enqueue(blogId: string, type: string, payload: string, now: string): Promise<number> {
    // One delivery per webhook of the blog subscribed to the event, all with the same body. The
    // subscriptions are JSON lists, read here rather than in SQL (SQLite's json_each has no
    // PostgreSQL twin); a blog has a handful of webhooks.
    return atomically(this.sql, async (tx) => {
      const webhooks = await tx.all<{ id: string; events: string }>('SELECT id, events FROM webhooks WHERE blog_id = ? ORDER BY id', [blogId]);
      let queued = 0;
      for (const webhook of webhooks) {
        if (!(JSON.parse(webhook.events) as string[]).includes(type)) continue;
        await tx.run(
          `INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, status, attempts, next_attempt_at, created_at)
           VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
          [`msg_${randomBytes(16).toString('hex')}`, webhook.id, type, payload, now, now],
        );
        queued += 1;
      }
      return queued;
    });
  }
}
