/**
 * Rate limits counted across nodes on PostgreSQL (issue #32). Limiters keep deciding from memory,
 * synchronously; about once a second this adds each share's new increments to `rate_windows` and
 * takes back the totals (read back too for keys counted in the last minute with nothing new), so
 * a node decides on "total at the last sync + its own increments since".
 * Nodes can therefore admit about one interval of traffic more than a budget between them
 * (docs/operations.md). A database that cannot be reached fails no request: the node counts on
 * its own, logs it once, and sends what it counted when the database is back.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { MAX_ROWS_PER_ADD, type RateWindowCount, type RateWindowsRepo } from '../db/rateWindowsRepo.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { RateWindowShare, type WindowIncrement } from './rateWindowShare.js';

export interface RateWindowSyncDeps {
  repo: RateWindowsRepo;
  clock: Clock;
  logger: Logger;
  /** Between the timer's syncs (start()); default 1 s. */
  intervalMs?: number;
}

interface Taken {
  share: RateWindowShare;
  increment: WindowIncrement;
}

export class RateWindowSync {
  private readonly shares = new Map<string, RateWindowShare>();
  private hashKey: string | null = null;
  private running: Promise<boolean> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failing = false;

  constructor(private readonly deps: RateWindowSyncDeps) {}

  /** The share of the limiter named `scope` (the same name on every node). */
  share(scope: string, windowMs: number): RateWindowShare {
    if (this.shares.has(scope)) throw new Error(`rate window scope ${scope} is shared twice`);
    const share = new RateWindowShare(scope, windowMs);
    this.shares.set(scope, share);
    return share;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      // sync() settles every failure itself (logged once); a round still running is not doubled.
      if (!this.running) void this.sync();
    }, this.deps.intervalMs ?? 1_000);
    this.timer.unref();
  }

  /** Stops the timer and waits for a round under way, so that the database can close after it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round that starts after the call: resolves true when the database took it, false when not. */
  async sync(): Promise<boolean> {
    while (this.running) await this.running;
    const round = this.round();
    this.running = round;
    try {
      return await round;
    } finally {
      if (this.running === round) this.running = null;
    }
  }

  private async round(): Promise<boolean> {
    const now = this.deps.clock.now().getTime();
    // Taken before the first await: a hit after this call goes with the next round.
    const taken = [...this.shares.values()].map((share) => ({ share, ...share.take(now) }));
    let pending: Taken[] = taken.flatMap(({ share, increments }) => increments.map((increment) => ({ share, increment })));
    const refresh: Taken[] = taken.flatMap(({ share, refresh }) => refresh.map((increment) => ({ share, increment })));
    try {
      // Asked for (and recorded by a database's first node) only with something to send: an idle node writes nothing.
      const hashKey = pending.length + refresh.length > 0 ? await this.key(now) : '';
      while (pending.length > 0) {
        const batch = pending.slice(0, MAX_ROWS_PER_ADD);
        const totals = await this.deps.repo.add(batch.map(({ share, increment }) => row(hashKey, share, increment)));
        batch.forEach(({ share, increment }, i) => {
          share.settled(increment, totals[i] ?? increment.count);
        });
        pending = pending.slice(batch.length);
      }
      for (let i = 0; i < refresh.length; i += MAX_ROWS_PER_ADD) {
        const batch = refresh.slice(i, i + MAX_ROWS_PER_ADD);
        const totals = await this.deps.repo.totals(batch.map(({ share, increment }) => row(hashKey, share, increment)));
        batch.forEach(({ share, increment }, j) => {
          const total = totals[j];
          if (total !== undefined) share.settled(increment, total);
        });
      }
      await this.deps.repo.deleteEnded(now);
      if (this.failing) this.deps.logger.info('rate limits: the database answers again; counting across nodes');
      this.failing = false;
      return true;
    } catch (err) {
      for (const { share, increment } of pending) share.returned(increment);
      if (!this.failing) this.deps.logger.warn({ err }, 'rate limits: cannot sync with the database; this node counts on its own until it can');
      this.failing = true;
      return false;
    }
  }

  /** The key all nodes hash with, asked of the database once. */
  private async key(now: number): Promise<string> {
    return (this.hashKey ??= await this.deps.repo.hashKey(randomBytes(32).toString('base64url'), new Date(now).toISOString()));
  }
}

/** Keyed, and with the window in it: the table links no key to an account, email or address, nor windows to each other. */
function row(hashKey: string, share: RateWindowShare, increment: WindowIncrement): RateWindowCount {
  const key = createHmac('sha256', hashKey).update(`${share.scope}\n${increment.start}\n${increment.key}`).digest('base64url');
  return { scope: share.scope, key, windowStart: increment.start, windowEnd: increment.start + share.windowMs, count: increment.count };
}
