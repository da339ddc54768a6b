import type { Clock } from '../lib/clock.js';
import type { RateDecision } from './rateLimiter.js';
import type { RateWindowShare } from './rateWindowShare.js';

/** Addresses tracked per window; past this, new addresses share one budget (a flood of sources). */
const MAX_ADDRESSES = 10_000;
const OVERFLOW = '*';

/**
 * A budget per client address in fixed windows, for the routes that take no API key (the TLS
 * ask of GET /v1/tls/allowed). In memory, like the per-account limiter, and bounded: when a window
 * sees more than MAX_ADDRESSES sources, the rest are counted together. With a `share` (several
 * nodes on PostgreSQL, rateWindowSync.ts) the other nodes' counts as of the last sync are added;
 * compose gives one only where the key is not a client address (docs/operations.md says why).
 */
export class AddressRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly clock: Clock,
    readonly limit: number,
    readonly windowMs: number,
    private readonly share: RateWindowShare | null = null,
  ) {}

  hit(address: string): RateDecision {
    const now = this.clock.now().getTime();
    const start = now - (now % this.windowMs);
    let key = address;
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size >= MAX_ADDRESSES) this.forgetOldWindows(start);
      if (this.windows.size >= MAX_ADDRESSES) key = OVERFLOW;
      window = this.windows.get(key);
      if (!window || window.start !== start) {
        window = { start, count: 0 };
        this.windows.set(key, window);
      }
    }
    const reset = Math.ceil((start + this.windowMs) / 1000);
    const retryAfter = Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
    const used = window.count + (this.share?.others(key, start) ?? 0);
    if (used >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, reset, retryAfter };
    window.count += 1;
    this.share?.add(key, start, 1);
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, reset, retryAfter };
  }

  private forgetOldWindows(currentStart: number): void {
    for (const [address, window] of this.windows) if (window.start !== currentStart) this.windows.delete(address);
  }
}
