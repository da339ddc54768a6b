/**
 * The warm-up's counterpart: a server at rest lets go of what only use needs. Once no request
 * has come for `afterMs` (FOLIO_REST_AFTER, five minutes by default), it saves and drops the
 * listings and search indexes (warmUp.ts `rest`), stops the worker threads when none is busy
 * (the heavy pool, the image thread, the checkpointer's, and the counting thread if it holds
 * nothing), and runs one full garbage collection, without which V8 keeps the freed heap (nothing
 * allocates at rest, so no collection would come). The next publish restores its listing from
 * the snapshot, the next query loads its index and the next heavy task starts the workers, each
 * as after a restart (docs/operations.md#memory). The remembered lists stay, so a restart still
 * warms the same blogs.
 */
import type { Logger } from '../lib/logger.js';
import type { RequestActivity } from './idleSteps.js';
import type { WarmUp } from './warmUp.js';

export interface RestDeps {
  activity: Pick<RequestActivity, 'quiet'>;
  /** Quiet time before resting; 0: never. */
  afterMs: number;
  warmUp: Pick<WarmUp, 'rest'>;
  /** Worker threads stopped when none is busy (the heavy pool, the image thread). */
  threads: { retireIdle(): boolean }[];
  /** What only writing needs (SQLite's write connection and its checkpointer's thread). */
  database: { rest(): Promise<void> };
  /** Reader analytics' counting thread, stopped if it holds nothing; null where no site is served. */
  counting: { retireIfEmpty(): Promise<boolean> } | null;
  /** One full garbage collection (runtime/collectGarbage.ts). */
  collect: () => void;
  logger: Logger;
}

/** Checks at most this often, so a rest comes at most this late. */
const MAX_CHECK_MS = 30_000;

export class Rest {
  private timer: NodeJS.Timeout | undefined;
  /** The activity's `since` when the server last rested: no request came since. */
  private restedAt = -1;
  private resting = false;

  constructor(private readonly deps: RestDeps) {}

  start(): void {
    if (this.deps.afterMs <= 0 || this.timer) return;
    const every = Math.max(1000, Math.min(MAX_CHECK_MS, this.deps.afterMs / 2));
    this.timer = setInterval(() => void this.check(), every).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Rests if the server has been quiet long enough and has not rested since its last request;
   * returns whether it let go of everything (busy workers are stopped at a later check).
   */
  async check(): Promise<boolean> {
    const { activity, afterMs, warmUp, threads, database, counting, collect, logger } = this.deps;
    const quiet = activity.quiet();
    if (this.resting || quiet.forMs < afterMs || quiet.since === this.restedAt) return false;
    this.resting = true;
    try {
      const released = await warmUp.rest();
      // Background work on the workers (a rebuild, cards) allocates, so V8 collects by itself
      // meanwhile; the forced collection, which holds the loop, waits until all is idle.
      // Every idle one is stopped now; a busy one keeps the rest for a later check.
      const retired = threads.map((pool) => pool.retireIdle());
      if (retired.includes(false)) return false;
      await database.rest();
      const countingStopped = counting ? await counting.retireIfEmpty() : false;
      const before = process.memoryUsage();
      collect();
      const after = process.memoryUsage();
      this.restedAt = quiet.since;
      logger.info(
        { ...released, countingStopped, rssMb: Math.round(after.rss / 1e6), heapFreedMb: Math.round((before.heapTotal - after.heapTotal) / 1e6) },
        'at rest: listings, search indexes and worker threads let go',
      );
      return true;
    } catch (err) {
      logger.warn({ err }, 'resting failed; the next quiet check tries again');
      return false;
    } finally {
      this.resting = false;
    }
  }
}
