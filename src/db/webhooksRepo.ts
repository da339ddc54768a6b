import type { Db } from './database.js';

export interface Webhook {
  id: string;
  blogId: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: string;
}

export interface Delivery {
  id: string;
  webhookId: string;
  eventType: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string;
  createdAt: string;
}

/** A due delivery with the account it belongs to (the dispatcher shares its slots by account). */
export interface DueDelivery extends Delivery {
  accountId: string;
}

export interface AttemptView {
  deliveryId: string;
  eventType: string;
  deliveryStatus: Delivery['status'];
  attempt: number;
  at: string;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

interface WebhookRow {
  id: string;
  blog_id: string;
  url: string;
  events: string;
  secret: string;
  created_at: string;
}

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  blogId: row.blog_id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  secret: row.secret,
  createdAt: row.created_at,
});

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_type: string;
  payload: string;
  status: Delivery['status'];
  attempts: number;
  next_attempt_at: string;
  created_at: string;
}

const toDelivery = (row: DeliveryRow): Delivery => ({
  id: row.id,
  webhookId: row.webhook_id,
  eventType: row.event_type,
  payload: row.payload,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
});

/** The webhook tables (migration 011). */
export class WebhooksRepo {
  private readonly insertStmt;
  private readonly byBlogStmt;
  private readonly byIdStmt;
  private readonly deleteStmt;
  private readonly enqueueStmt;
  private readonly dueStmt;
  private readonly recordAttemptStmt;
  private readonly finishStmt;
  private readonly attemptsStmt;
  private readonly deliveryStmt;
  private readonly redeliverStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO webhooks (id, blog_id, url, events, secret, created_at) VALUES (@id, @blogId, @url, @events, @secret, @createdAt)',
    );
    this.byBlogStmt = db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE blog_id = ? ORDER BY created_at, id');
    this.byIdStmt = db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE id = ?');
    this.deleteStmt = db.prepare('DELETE FROM webhooks WHERE id = ?');
    // One delivery per webhook of the blog subscribed to the event, all with the same body.
    this.enqueueStmt = db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, status, attempts, next_attempt_at, created_at)
       SELECT 'msg_' || lower(hex(randomblob(16))), w.id, @type, @payload, 'pending', 0, @now, @now
         FROM webhooks w WHERE w.blog_id = @blogId AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = @type)`,
    );
    this.dueStmt = db.prepare<{ now: string; skipWebhooks: string; skipAccounts: string; limit: number }, DeliveryRow & { account_id: string }>(
      `SELECT d.*, b.account_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN blogs b ON b.id = w.blog_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= @now
          AND d.webhook_id NOT IN (SELECT value FROM json_each(@skipWebhooks))
          AND b.account_id NOT IN (SELECT value FROM json_each(@skipAccounts))
        ORDER BY d.next_attempt_at, d.created_at LIMIT @limit`,
    );
    this.recordAttemptStmt = db.prepare(
      'INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, at, response_code, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.finishStmt = db.prepare('UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ? WHERE id = ?');
    this.attemptsStmt = db.prepare<
      [string, number],
      {
        delivery_id: string;
        event_type: string;
        status: Delivery['status'];
        attempt: number;
        at: string;
        response_code: number | null;
        duration_ms: number;
        error: string | null;
      }
    >(
      `SELECT a.delivery_id, d.event_type, d.status, a.attempt, a.at, a.response_code, a.duration_ms, a.error
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE d.webhook_id = ? ORDER BY a.at DESC, a.attempt DESC LIMIT ?`,
    );
    this.deliveryStmt = db.prepare<[string, string], { id: string; status: Delivery['status'] }>(
      'SELECT id, status FROM webhook_deliveries WHERE id = ? AND webhook_id = ?',
    );
    this.redeliverStmt = db.prepare("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ? WHERE id = ?");
  }

  insert(webhook: Webhook): void {
    this.insertStmt.run({ ...webhook, events: JSON.stringify(webhook.events) });
  }

  listByBlog(blogId: string): Webhook[] {
    return this.byBlogStmt.all(blogId).map(toWebhook);
  }

  find(id: string): Webhook | null {
    const row = this.byIdStmt.get(id);
    return row ? toWebhook(row) : null;
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  /** Inside the change's transaction: a delivery for every webhook of the blog that wants `type`. */
  /** Returns how many deliveries were queued (0 when no webhook of the blog wants the event). */
  enqueue(blogId: string, type: string, payload: string, now: string): number {
    return this.enqueueStmt.run({ blogId, type, payload, now }).changes;
  }

  /** The oldest due deliveries, leaving out the webhooks and accounts named in `skip`. */
  due(now: string, skip: { skipWebhooks: string[]; skipAccounts: string[] }, limit: number): DueDelivery[] {
    return this.dueStmt
      .all({ now, skipWebhooks: JSON.stringify(skip.skipWebhooks), skipAccounts: JSON.stringify(skip.skipAccounts), limit })
      .map((row) => ({ ...toDelivery(row), accountId: row.account_id }));
  }

  /** Records an attempt and the delivery's next state, together. */
  recordAttempt(
    delivery: Delivery,
    attempt: { at: string; responseCode: number | null; durationMs: number; error: string | null },
    next: { status: Delivery['status']; nextAttemptAt: string },
  ): void {
    const number = delivery.attempts + 1;
    this.recordAttemptStmt.run(delivery.id, number, attempt.at, attempt.responseCode, attempt.durationMs, attempt.error);
    this.finishStmt.run(next.status, number, next.nextAttemptAt, delivery.id);
  }

  /** The webhook's delivery with this id (its `webhook-id`), or null. */
  findDelivery(webhookId: string, deliveryId: string): { id: string; status: Delivery['status'] } | null {
    return this.deliveryStmt.get(deliveryId, webhookId) ?? null;
  }

  /**
   * Makes the delivery due now, whatever its state: the same body and `webhook-id` (so a
   * receiver that already took it can drop it), one attempt more in its history.
   */
  redeliver(deliveryId: string, now: string): void {
    this.redeliverStmt.run(now, deliveryId);
  }

  attempts(webhookId: string, limit: number): AttemptView[] {
    return this.attemptsStmt.all(webhookId, limit).map((row) => ({
      deliveryId: row.delivery_id,
      eventType: row.event_type,
      deliveryStatus: row.status,
      attempt: row.attempt,
      at: row.at,
      responseCode: row.response_code,
      durationMs: row.duration_ms,
      error: row.error,
    }));
  }
}
