import type { Db } from './database.js';

/**
 * Queues webhook deliveries inside the transaction of the change they describe. It stays on
 * better-sqlite3's statements until the posts' repositories move onto the query seam with it
 * (docs/architecture.md#the-query-seam-srcdbsql): those transactions are still synchronous.
 */
export class WebhookQueueRepo {
  private readonly enqueueStmt;

  constructor(db: Db) {
    // One delivery per webhook of the blog subscribed to the event, all with the same body.
    this.enqueueStmt = db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, status, attempts, next_attempt_at, created_at)
       SELECT 'msg_' || lower(hex(randomblob(16))), w.id, @type, @payload, 'pending', 0, @now, @now
         FROM webhooks w WHERE w.blog_id = @blogId AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = @type)`,
    );
  }

  /** Returns how many deliveries were queued (0 when no webhook of the blog wants the event). */
  enqueue(blogId: string, type: string, payload: string, now: string): number {
    return this.enqueueStmt.run({ blogId, type, payload, now }).changes;
  }
}
