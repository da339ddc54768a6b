import type { Clock } from '../lib/clock.js';
import { planLimits, type Plan } from '../domain/plans.js';
import type { RateWindowShare } from './rateWindowShare.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  reset: number;
  /** Whole seconds from now until `reset`, at least 1: the Retry-After of a refusal. */
  retryAfter: number;
}

export const ACCOUNT_WINDOW_MS = 60 * 60 * 1000;

/**
 * Per-account hourly budget in fixed windows aligned to the hour. Kept in memory, and a restart
 * forgetting the counts errs on the side of the customer. With a `share` (several nodes on
 * PostgreSQL, rateWindowSync.ts) the other nodes' counts as of the last sync are added.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly share: RateWindowShare | null = null,
  ) {}

  /** Counts `cost` requests (0: only checks) against the account's current window. */
  hit(accountId: string, plan: Plan, cost = 1): RateDecision {
    const now = this.clock.now().getTime();
    const start = now - (now % ACCOUNT_WINDOW_MS);
    const limit = planLimits(plan).requestsPerHour;
    let window = this.windows.get(accountId);
    if (!window || window.start !== start) {
      if (this.windows.size > 10_000) this.forgetOldWindows(start);
      window = { start, count: 0 };
      this.windows.set(accountId, window);
    }
    const reset = Math.ceil((start + ACCOUNT_WINDOW_MS) / 1000);
    const retryAfter = Math.max(1, Math.ceil((start + ACCOUNT_WINDOW_MS - now) / 1000));
    const used = window.count + (this.share?.others(accountId, start) ?? 0);
    if (used >= limit) return { allowed: false, limit, remaining: 0, reset, retryAfter };
    window.count += cost;
    this.share?.add(accountId, start, cost);
    return { allowed: true, limit, remaining: limit - used - cost, reset, retryAfter };
  }

  private forgetOldWindows(currentStart: number): void {
    for (const [account, window] of this.windows) if (window.start !== currentStart) this.windows.delete(account);
  }
}
