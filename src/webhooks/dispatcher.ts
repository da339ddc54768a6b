/**
 * Sends due webhook deliveries (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature` made with the `standardwebhooks` package receivers verify with) and
 * retries failures with backoff for 24 hours. Sends run in the background: a change never waits
 * for them, each webhook has at most one send in flight (a slow receiver holds only its own
 * queue) and at most MAX_IN_FLIGHT run at once, each cut off after TIMEOUT_MS.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook as Signer } from 'standardwebhooks';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Delivery, WebhooksRepo } from '../db/webhooksRepo.js';
import { writeTransaction } from '../db/writeTransaction.js';
import type { Logger } from '../logger.js';
import { resolveAllowed, type Lookup } from './addressGuard.js';

/** Waits after the 1st, 2nd, … failed attempt; the last repeats until 24 hours have passed. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];
export const GIVE_UP_AFTER_MS = 24 * 3600 * 1000;
export const TIMEOUT_MS = 10_000;
const MAX_IN_FLIGHT = 16;

export interface DispatcherDeps {
  db: Db;
  repo: WebhooksRepo;
  clock: Clock;
  logger: Logger;
  lookup: Lookup;
  allowPrivate: boolean;
  timeoutMs?: number;
}

/** POSTs `body` to `url`, connecting to the checked `address`; resolves with the status code. */
function send(url: URL, address: { address: string; family: number }, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, timeout: timeoutMs }, (res: IncomingMessage) => {
      // The answer's body is not needed: read a little, then let it go.
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > 64 * 1024) res.destroy();
      });
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('close', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

export class WebhookDispatcher {
  private readonly busyWebhooks = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly deps: DispatcherDeps) {}

  /** Starts sends for every due delivery it has room for; returns at once. */
  deliverDue(): void {
    if (this.closed || this.running.size >= MAX_IN_FLIGHT) return;
    let due: Delivery[];
    try {
      due = this.deps.repo.due(this.deps.clock.now().toISOString(), 200);
    } catch (err) {
      this.deps.logger.warn({ err }, 'webhook deliveries could not be read; trying again at the next tick');
      return;
    }
    for (const delivery of due) {
      if (this.running.size >= MAX_IN_FLIGHT) break;
      if (this.busyWebhooks.has(delivery.webhookId)) continue;
      this.busyWebhooks.add(delivery.webhookId);
      const sending: Promise<void> = this.attempt(delivery)
        .catch((err: unknown) => this.deps.logger.warn({ err, delivery: delivery.id }, 'webhook delivery could not be recorded'))
        .finally(() => {
          this.busyWebhooks.delete(delivery.webhookId);
          this.running.delete(sending);
          // A webhook's next delivery may be waiting behind this one.
          if (!this.closed) setImmediate(() => this.deliverDue());
        });
      this.running.add(sending);
    }
  }

  /**
   * Resolves when no send is running, including the next delivery of a webhook that a finished
   * send wakes on the following turn of the event loop.
   */
  async idle(): Promise<void> {
    for (;;) {
      if (this.running.size === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.running.size === 0) return;
      }
      await Promise.allSettled([...this.running]);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { repo, clock, logger } = this.deps;
    const webhook = repo.find(delivery.webhookId);
    if (!webhook) return;
    const started = performance.now();
    let responseCode: number | null = null;
    let error: string | null = null;
    try {
      const url = new URL(webhook.url);
      const address = await resolveAllowed(url, { lookup: this.deps.lookup, allowPrivate: this.deps.allowPrivate });
      // The signature's timestamp is the wall clock: receivers check it against theirs.
      const signature = new Signer(webhook.secret).sign(delivery.id, new Date(), delivery.payload);
      const sentAt = Math.floor(Date.now() / 1000);
      responseCode = await send(url, address, {
        'content-type': 'application/json',
        'user-agent': 'Folio-Webhooks/1',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(sentAt),
        'webhook-signature': signature,
      }, delivery.payload, this.deps.timeoutMs ?? TIMEOUT_MS);
      if (responseCode < 200 || responseCode >= 300) error = `answered ${responseCode}`;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const durationMs = Math.round(performance.now() - started);
    const now = clock.now();
    let next: { status: Delivery['status']; nextAttemptAt: string };
    if (error === null) next = { status: 'delivered', nextAttemptAt: now.toISOString() };
    else {
      const retryAt = now.getTime() + RETRY_DELAYS_MS[Math.min(delivery.attempts, RETRY_DELAYS_MS.length - 1)]!;
      const gaveUp = retryAt - Date.parse(delivery.createdAt) > GIVE_UP_AFTER_MS;
      next = { status: gaveUp ? 'failed' : 'pending', nextAttemptAt: new Date(retryAt).toISOString() };
      if (gaveUp) logger.warn({ delivery: delivery.id, webhook: webhook.id, error }, 'webhook delivery failed for 24 hours; giving up');
    }
    await writeTransaction(this.deps.db, () => repo.recordAttempt(delivery, { at: now.toISOString(), responseCode, durationMs, error }, next));
  }
}
