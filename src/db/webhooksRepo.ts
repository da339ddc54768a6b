import type { SqlWriter } from './sql/sqlClient.js';

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

interface AttemptRow {
  delivery_id: string;
  event_type: string;
  status: Delivery['status'];
  attempt: number;
  at: string;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** `column NOT IN (?, ?, …)` for a list of values, or nothing for none (SQL has no empty list). */
function notIn(column: string, values: readonly string[]): string {
  return values.length === 0 ? '' : ` AND ${column} NOT IN (${values.map(() => '?').join(', ')})`;
}

/** The webhook tables (migrations 011 and 027); deliveries are queued by webhookQueueRepo.ts. */
export class WebhooksRepo {
  constructor(private readonly sql: SqlWriter) {}

  /** The same queries inside a transaction. */
  in(tx: SqlWriter): WebhooksRepo {
    return new WebhooksRepo(tx);
  }

  async insert(webhook: Webhook): Promise<void> {
    await this.sql.run('INSERT INTO webhooks (id, blog_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      webhook.id,
      webhook.blogId,
      webhook.url,
      JSON.stringify(webhook.events),
      webhook.secret,
      webhook.createdAt,
    ]);
  }

  async listByBlog(blogId: string): Promise<Webhook[]> {
    return (await this.sql.all<WebhookRow>('SELECT * FROM webhooks WHERE blog_id = ? ORDER BY created_at, id', [blogId])).map(toWebhook);
  }

  async find(id: string): Promise<Webhook | null> {
    const row = await this.sql.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [id]);
    return row ? toWebhook(row) : null;
  }

  async delete(id: string): Promise<void> {
    await this.sql.run('DELETE FROM webhooks WHERE id = ?', [id]);
  }

  /**
   * The oldest due deliveries, leaving out the webhooks and accounts named in `skip`, and every
   * webhook with a send in flight on any node (a claim not yet expired): its next delivery waits.
   */
  async due(now: string, skip: { skipWebhooks: string[]; skipAccounts: string[] }, limit: number): Promise<DueDelivery[]> {
    const rows = await this.sql.all<DeliveryRow & { account_id: string }>(
      `SELECT d.*, b.account_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN blogs b ON b.id = w.blog_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= ?${notIn('d.webhook_id', skip.skipWebhooks)}${notIn('b.account_id', skip.skipAccounts)}
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries c WHERE c.webhook_id = d.webhook_id AND c.claimed_until > ?)
        ORDER BY d.next_attempt_at, d.created_at LIMIT ?`,
      [now, ...skip.skipWebhooks, ...skip.skipAccounts, now, limit],
    );
    return rows.map((row) => ({ ...toDelivery(row), accountId: row.account_id }));
  }

  /**
   * Makes this node the delivery's one sender until `until` (migration 027): true when the
   * delivery is still as `due()` read it and no delivery of its webhook is claimed by anyone.
   * Call inside a transaction: on PostgreSQL only SERIALIZABLE keeps two nodes from claiming two
   * deliveries of one webhook at once (each would miss the other's claim).
   */
  async claim(delivery: Delivery, now: string, until: string): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE webhook_deliveries SET claimed_until = ?
        WHERE id = ? AND status = 'pending' AND attempts = ? AND next_attempt_at <= ?
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries c WHERE c.webhook_id = ? AND c.claimed_until > ?)`,
      [until, delivery.id, delivery.attempts, now, delivery.webhookId, now],
    );
    return changes === 1;
  }

  /**
   * Ends the claim if it is still this node's (the one ending at `claimedUntil`): true then.
   * False when it outlived its lease and another node took the delivery over: that node's send
   * is the one to record.
   */
  async release(deliveryId: string, claimedUntil: string): Promise<boolean> {
    const { changes } = await this.sql.run('UPDATE webhook_deliveries SET claimed_until = NULL WHERE id = ? AND claimed_until = ?', [deliveryId, claimedUntil]);
    return changes === 1;
  }

  /**
   * Ends every claim: at the start of the one server a SQLite data dir has, whose claims can only
   * be a dead process's. The delivery is then sent at once instead of after the claim's lease.
   */
  async releaseAll(): Promise<number> {
    return (await this.sql.run('UPDATE webhook_deliveries SET claimed_until = NULL WHERE claimed_until IS NOT NULL')).changes;
  }

  /** Records an attempt and the delivery's next state; call inside a transaction, so they go together. */
  async recordAttempt(
    delivery: Delivery,
    attempt: { at: string; responseCode: number | null; durationMs: number; error: string | null },
    next: { status: Delivery['status']; nextAttemptAt: string },
  ): Promise<void> {
    const number = delivery.attempts + 1;
    await this.sql.run(
      `INSERT INTO webhook_attempts (delivery_id, attempt, at, response_code, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = excluded.at, response_code = excluded.response_code, duration_ms = excluded.duration_ms, error = excluded.error`,
      [delivery.id, number, attempt.at, attempt.responseCode, attempt.durationMs, attempt.error],
    );
    await this.sql.run('UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ? WHERE id = ?', [
      next.status,
      number,
      next.nextAttemptAt,
      delivery.id,
    ]);
  }

  /** The webhook's delivery with this id (its `webhook-id`), or null. */
  async findDelivery(webhookId: string, deliveryId: string): Promise<{ id: string; status: Delivery['status'] } | null> {
    return (
      (await this.sql.get<{ id: string; status: Delivery['status'] }>('SELECT id, status FROM webhook_deliveries WHERE id = ? AND webhook_id = ?', [
        deliveryId,
        webhookId,
      ])) ?? null
    );
  }

  /**
   * Makes the delivery due now, whatever its state: the same body and `webhook-id` (so a
   * receiver that already took it can drop it), one attempt more in its history. Asked
   * while a send of it is in flight, that send is the answer: its claim holds and its outcome stands.
   */
  async redeliver(deliveryId: string, now: string): Promise<void> {
    await this.sql.run("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ? WHERE id = ?", [now, deliveryId]);
  }

  async attempts(webhookId: string, limit: number): Promise<AttemptView[]> {
    const rows = await this.sql.all<AttemptRow>(
      `SELECT a.delivery_id, d.event_type, d.status, a.attempt, a.at, a.response_code, a.duration_ms, a.error
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE d.webhook_id = ? ORDER BY a.at DESC, a.attempt DESC LIMIT ?`,
      [webhookId, limit],
    );
    return rows.map((row) => ({
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
