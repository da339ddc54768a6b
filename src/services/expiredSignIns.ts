import { isDatabaseBusy } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { LoginLinksService } from './loginLinks.js';
import type { SessionsService } from './sessions.js';

const PRUNE_INTERVAL_MS = 3600_000;

/**
 * Deletes the rows of sessions and sign-in links nobody can use any more, at most once an hour
 * from the scheduler's tick: they are refused anyway, this only keeps the tables small.
 */
export class ExpiredSignIns {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: { sessions: SessionsService; loginLinks: LoginLinksService; clock: Clock }) {}

  async prune(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (now - this.last < PRUNE_INTERVAL_MS) return;
    try {
      await this.deps.sessions.deleteExpired();
      await this.deps.loginLinks.deleteExpired();
      this.last = now;
    } catch (err) {
      // Housekeeping only: while the CLI holds the write lock, the next tick tries again.
      if (!isDatabaseBusy(err)) throw err;
    }
  }
}
