/**
 * Moves the in-memory counts into SQLite (docs/analytics.md "Storage"): one write transaction per
 * flush, every few seconds and at shutdown, so a crash loses at most the counts since the last
 * one. Also the daily retention prune.
 */
import { performance } from 'node:perf_hooks';
import type { Counting } from '../analytics/counting.js';
import { dayBefore, utcDay } from '../analytics/visitorHash.js';
import type { AnalyticsRepo } from '../db/analyticsRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';

export interface AnalyticsFlushDeps {
  sql: SqlClient;
  repo: AnalyticsRepo;
  counting: Counting;
  clock: Clock;
  logger: Logger;
  retentionDays: number;
  /** How long each flush's transaction took (the analytics bench reads it). */
  observe?: (seconds: number) => void;
}

export class AnalyticsFlush {
  private running: Promise<void> = Promise.resolve();
  private prunedDay = '';

  constructor(private readonly deps: AnalyticsFlushDeps) {}

  /** Writes what was counted since the last flush; flushes never overlap. */
  flush(): Promise<void> {
    this.running = this.running.then(() => this.flushNow());
    return this.running;
  }

  /** Deletes the counts older than the retention, once per UTC day (the first flush of the day). */
  private async pruneOncePerDay(repo: AnalyticsRepo): Promise<void> {
    const today = utcDay(this.deps.clock.now());
    if (this.prunedDay === today) return;
    this.prunedDay = today;
    const deleted = await repo.pruneBefore(dayBefore(today, this.deps.retentionDays - 1));
    if (deleted > 0) this.deps.logger.info({ deleted, retentionDays: this.deps.retentionDays }, 'analytics older than the retention deleted');
  }

  private async flushNow(): Promise<void> {
    const { sql, repo, counting } = this.deps;
    let batch;
    try {
      batch = await counting.drain();
    } catch (err) {
      this.deps.logger.warn({ err }, 'analytics counts could not be taken from the counting thread');
      return;
    }
    // Nothing counted and today's prune done: no write lock taken for nothing.
    if (batch.days.length === 0 && this.prunedDay === utcDay(this.deps.clock.now())) return;
    try {
      const started = performance.now();
      await sql.transaction(async (tx) => {
        await repo.in(tx).add(batch);
        await this.pruneOncePerDay(repo.in(tx));
      });
      this.deps.observe?.((performance.now() - started) / 1000);
    } catch (err) {
      // Kept for the next flush (a busy or failing database), never lost silently.
      counting.restore(batch);
      this.deps.logger.warn({ err }, 'analytics flush failed; the counts stay in memory for the next one');
    }
  }
}
