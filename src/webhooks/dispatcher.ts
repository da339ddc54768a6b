/**
 * Sends due webhook deliveries (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature` made with the `standardwebhooks` package receivers verify with) and
 * retries failures with backoff for 24 hours. Sends run in the background: a change never waits
 * for them. Each account has at most `perAccount` sends in flight on this node, and at most
 * `maxInFlight` run at once; each send has one deadline over the whole exchange (resolving,
 * connecting, headers, body), so no receiver, however slow or trickling, holds a slot longer.
 *
 * Several nodes may share the database (#32): a node claims a delivery before sending it
 * (WebhooksRepo.claim), so each send goes out from one node, and a webhook has at most one send
 * in flight across all nodes, which keeps its deliveries in order. A claim lasts the deadline
 * plus CLAIM_MARGIN_MS: a node that dies mid-send leaves the delivery due again after that, and
 * another node sends it again with the same `webhook-id` (at least once, as webhooks are anyway).
 */
import { Webhook as Signer } from 'standardwebhooks';
import type { Clock } from '../lib/clock.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { Delivery, DueDelivery, WebhooksRepo } from '../db/webhooksRepo.js';
import type { Logger } from '../lib/logger.js';
import type { Lookup } from './addressGuard.js';
import { sendDelivery, StoppedError } from './sendDelivery.js';

/** Waits after the 1st, 2nd, … failed attempt; the last repeats until 24 hours have passed. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];
export const GIVE_UP_AFTER_MS = 24 * 3600 * 1000;

export interface DeliveryLimits {
  /** The whole exchange of one send, from resolving the receiver's name to the answer's last byte. */
  timeoutMs: number;
  /** Sends in flight at once, all accounts together. */
  maxInFlight: number;
  /** Sends in flight at once for one account: the rest stay free for every other account. */
  perAccount: number;
  /** How long close() lets sends in flight finish before it cuts them off. */
  closeGraceMs: number;
}

export const DELIVERY_LIMITS: DeliveryLimits = { timeoutMs: 10_000, maxInFlight: 16, perAccount: 4, closeGraceMs: 1_000 };

/**
 * How long a claim outlasts its send's deadline: for the clocks of two nodes to differ a little
 * and a late timer to fire. Short, as a crashed node's deliveries wait this long after the deadline.
 */
export const CLAIM_MARGIN_MS = 2_000;

/** How long a node owns a delivery it claimed, by the clock the dispatcher is given. */
export function claimLeaseMs(limits: Pick<DeliveryLimits, 'timeoutMs'>): number {
  return limits.timeoutMs + CLAIM_MARGIN_MS;
}

export interface DispatcherDeps {
  sql: SqlClient;
  repo: WebhooksRepo;
  clock: Clock;
  logger: Logger;
  lookup: Lookup;
  allowPrivate: boolean;
  limits?: Partial<DeliveryLimits>;
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
      .catch((err: unknown) => this.deps.logger.warn({ err, delivery: delivery.id }, 'webhook delivery could not be claimed or recorded'))
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
    const { sql, repo, clock, logger } = this.deps;
    // The deadline runs from the claim, so the send ends (or is given up) before the claim does.
    const deadline = { at: performance.now() + this.limits.timeoutMs, totalMs: this.limits.timeoutMs };
    const claimedAt = clock.now();
    const claimedUntil = new Date(claimedAt.getTime() + claimLeaseMs(this.limits)).toISOString();
    // Not claimed: another node sends it, or has since, and the next reading shows what it did.
    if (!(await sql.transaction((tx) => repo.in(tx).claim(delivery, claimedAt.toISOString(), claimedUntil)))) return;
    const webhook = await repo.find(delivery.webhookId);
    if (!webhook) return;
    const started = performance.now();
    let responseCode: number | null = null;
    let error: string | null = null;
    try {
      // The signature's timestamp is the wall clock: receivers check it against theirs. One
      // reading serves both, or a second ticking over between two readings breaks the signature.
      const sentAt = Math.floor(Date.now() / 1000);
      const signature = new Signer(webhook.secret).sign(delivery.id, new Date(sentAt * 1000), delivery.payload);
      responseCode = await sendDelivery(
        { url: new URL(webhook.url), lookup: this.deps.lookup, allowPrivate: this.deps.allowPrivate },
        {
          'content-type': 'application/json',
          'user-agent': 'Folio-Webhooks/1',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(sentAt),
          'webhook-signature': signature,
        },
        delivery.payload,
        deadline,
        this.stop.signal,
      );
      if (responseCode < 200 || responseCode >= 300) error = `answered ${responseCode}`;
    } catch (err) {
      // Cut off by shutdown: due again at once, for the next start or another node.
      if (err instanceof StoppedError) {
        await repo.release(delivery.id, claimedUntil);
        return;
      }
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
    const recorded = await sql.transaction(async (tx) => {
      const mine = await repo.in(tx).release(delivery.id, claimedUntil);
      if (mine) await repo.in(tx).recordAttempt(delivery, { at: now.toISOString(), responseCode, durationMs, error }, next);
      return mine;
    });
    if (!recorded) logger.warn({ delivery: delivery.id, webhook: webhook.id }, 'webhook send outlived its claim; another node took the delivery over');
  }
}
