/**
 * Sends due webhook deliveries (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature` made with the `standardwebhooks` package receivers verify with) and
 * retries failures with backoff for 24 hours. Sends run in the background: a change never waits
 * for them. Each webhook has at most one send in flight, each account at most `perAccount`, and
 * at most `maxInFlight` run at once; each send has one deadline over the whole exchange
 * (connect, headers, body), so no receiver, however slow or trickling, holds a slot longer.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook as Signer } from 'standardwebhooks';
import type { Clock } from '../lib/clock.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { Delivery, DueDelivery, WebhooksRepo } from '../db/webhooksRepo.js';
import type { Logger } from '../lib/logger.js';
import { resolveAllowed, type Lookup } from './addressGuard.js';

/** Waits after the 1st, 2nd, … failed attempt; the last repeats until 24 hours have passed. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];
export const GIVE_UP_AFTER_MS = 24 * 3600 * 1000;

export interface DeliveryLimits {
  /** The whole exchange of one send, from connecting to the answer's last byte. */
  timeoutMs: number;
  /** Sends in flight at once, all accounts together. */
  maxInFlight: number;
  /** Sends in flight at once for one account: the rest stay free for every other account. */
  perAccount: number;
  /** How long close() lets sends in flight finish before it cuts them off. */
  closeGraceMs: number;
}

export const DELIVERY_LIMITS: DeliveryLimits = { timeoutMs: 10_000, maxInFlight: 16, perAccount: 4, closeGraceMs: 1_000 };

export interface DispatcherDeps {
  sql: SqlClient;
  repo: WebhooksRepo;
  clock: Clock;
  logger: Logger;
  lookup: Lookup;
  allowPrivate: boolean;
  limits?: Partial<DeliveryLimits>;
}

/** A send cut off by close(): not the receiver's failure, so it is not recorded as an attempt. */
class StoppedError extends Error {}

/**
 * POSTs `body` to `url`, connecting to the checked `address`; resolves with the status code once
 * the whole answer has arrived (or its first 64 KB), rejects when `deadlineMs` passes first.
 */
function send(
  url: URL,
  address: { address: string; family: number },
  headers: Record<string, string>,
  body: string,
  deadlineMs: number,
  stop: AbortSignal,
): Promise<number> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: { status: number } | { error: Error }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      if ('status' in outcome) resolve(outcome.status);
      else reject(outcome.error);
      // Whatever is still open (a trickling answer, a connect in progress) goes now.
      req.destroy();
    };
    // One timer over the whole exchange: a socket timeout alone restarts with every byte, and a
    // receiver sending one byte every few seconds would hold the send for ever.
    const timer = setTimeout(() => settle({ error: new Error(`no complete answer within ${deadlineMs / 1000} s`) }), deadlineMs);
    const onStop = (): void => settle({ error: new StoppedError('the server is shutting down') });
    stop.addEventListener('abort', onStop);
    // agent: false: a connection per send, closed after it, never reused for another address.
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, agent: false },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed: read a little, then let it go.
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 64 * 1024) settle({ status });
        });
        res.on('end', () => settle({ status }));
        res.on('close', () => settle({ error: new Error(`answered ${status}, then the connection closed before the answer was complete`) }));
        res.on('error', () => undefined);
      },
    );
    req.on('error', (err) => settle({ error: err }));
    if (stop.aborted) onStop();
    else req.end(body);
  });
}

export class WebhookDispatcher {
  private readonly busyWebhooks = new Set<string>();
  /** Sends in flight per account. */
  private readonly perAccount = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private readonly limits: DeliveryLimits;
  private closed = false;
  /** The reading of due deliveries under way, if any (deliverDue). */
  private filling: Promise<void> | null = null;
  private fillAgain = false;

  constructor(private readonly deps: DispatcherDeps) {
    this.limits = { ...DELIVERY_LIMITS, ...deps.limits };
  }

  /**
   * Starts sends for every due delivery it has room for; returns at once. Calls while the due
   * deliveries are being read run once more after it, so no wake-up is lost.
   */
  deliverDue(): void {
    if (this.filling) {
      this.fillAgain = true;
      return;
    }
    this.fillAgain = false;
    this.filling = this.fill().finally(() => {
      this.filling = null;
      if (this.fillAgain && !this.closed) this.deliverDue();
    });
  }

  private async fill(): Promise<void> {
    const { maxInFlight, perAccount } = this.limits;
    while (!this.closed && this.running.size < maxInFlight) {
      let due: DueDelivery[];
      try {
        // Busy webhooks and accounts at their share are left out by the query itself: however
        // many deliveries they have waiting, the next ones of every other account are found.
        const full = [...this.perAccount].filter(([, n]) => n >= perAccount).map(([account]) => account);
        due = await this.deps.repo.due(this.deps.clock.now().toISOString(), { skipWebhooks: [...this.busyWebhooks], skipAccounts: full }, 50);
      } catch (err) {
        this.deps.logger.warn({ err }, 'webhook deliveries could not be read; trying again at the next tick');
        return;
      }
      let started = 0;
      for (const delivery of due) {
        if (this.running.size >= maxInFlight) break;
        if (this.busyWebhooks.has(delivery.webhookId) || (this.perAccount.get(delivery.accountId) ?? 0) >= perAccount) continue;
        this.start(delivery);
        started++;
      }
      // Nothing startable in this batch (only later deliveries of webhooks it just started):
      // the next finished send calls again.
      if (started === 0 || due.length < 50) return;
    }
  }

  private start(delivery: DueDelivery): void {
    this.busyWebhooks.add(delivery.webhookId);
    this.perAccount.set(delivery.accountId, (this.perAccount.get(delivery.accountId) ?? 0) + 1);
    const sending: Promise<void> = this.attempt(delivery)
      .catch((err: unknown) => this.deps.logger.warn({ err, delivery: delivery.id }, 'webhook delivery could not be recorded'))
      .finally(() => {
        this.busyWebhooks.delete(delivery.webhookId);
        const left = (this.perAccount.get(delivery.accountId) ?? 1) - 1;
        if (left > 0) this.perAccount.set(delivery.accountId, left);
        else this.perAccount.delete(delivery.accountId);
        this.running.delete(sending);
        // A webhook's next delivery may be waiting behind this one.
        if (!this.closed) setImmediate(() => this.deliverDue());
      });
    this.running.add(sending);
  }

  /**
   * Resolves when no send is running, including the next delivery of a webhook that a finished
   * send wakes on the following turn of the event loop.
   */
  async idle(): Promise<void> {
    for (;;) {
      if (this.filling) {
        await this.filling;
        continue;
      }
      if (this.running.size === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.running.size === 0 && !this.filling) return;
        continue;
      }
      await Promise.allSettled([...this.running]);
    }
  }

  /**
   * Starts nothing more, lets sends in flight finish for `closeGraceMs`, then cuts off the rest:
   * those deliveries stay pending and the next start sends them again (same `webhook-id`).
   */
  async close(): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.limits.closeGraceMs);
    });
    await Promise.race([this.idle(), grace]);
    clearTimeout(timer);
    this.stop.abort();
    await this.idle();
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const { repo, clock, logger } = this.deps;
    const webhook = await repo.find(delivery.webhookId);
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
      responseCode = await send(
        url,
        address,
        {
          'content-type': 'application/json',
          'user-agent': 'Folio-Webhooks/1',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(sentAt),
          'webhook-signature': signature,
        },
        delivery.payload,
        this.limits.timeoutMs,
        this.stop.signal,
      );
      if (responseCode < 200 || responseCode >= 300) error = `answered ${responseCode}`;
    } catch (err) {
      if (err instanceof StoppedError) return;
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
    await this.deps.sql.transaction((tx) => repo.in(tx).recordAttempt(delivery, { at: now.toISOString(), responseCode, durationMs, error }, next));
  }
}
