/** The analytics part of the composition root (docs/analytics.md): counting, its flush and the API service. */
import { LocalCounting, type Counting } from '../analytics/counting.js';
import { CountingThread } from '../analytics/countingThread.js';
import { PageViews } from '../analytics/pageViews.js';
import { RecentTargets } from '../analytics/recentTargets.js';
import { prepareViewRules } from '../analytics/viewRules.js';
import { DailySalts } from '../analytics/visitorHash.js';
import type { Config } from '../config/config.js';
import { AnalyticsRepo } from '../db/analyticsRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { AnalyticsService } from '../services/analytics.js';
import { AnalyticsFlush } from '../services/analyticsFlush.js';
import { compiledScript } from '../workers/compiledScript.js';

/** At least this often the counts reach SQLite: the most a crash can lose. */
export const FLUSH_INTERVAL_MS = 5_000;

export interface Analytics {
  pageViews: PageViews;
  service: AnalyticsService;
  /** What the in-memory counter holds once the loads received are in it (bounded; tests check hostile hits add nothing). */
  pending(): Promise<{ rows: number; referrers: number; visitors: number }>;
  /** Writes the counts of the loads received so far (tests call it instead of waiting for the timer). */
  flush(): Promise<void>;
  /** Starts the counting thread and the view rules (a warm-up step), so the first beacon does not wait for them. */
  prestart(): void;
  /** Stops the counting thread if it holds nothing (a server at rest, warmup/rest.ts); the next beacon starts it. */
  retireIfEmpty(): Promise<boolean>;
  /** Starts the flush timer (the server; a CLI command counts nothing); `stop` flushes a last time. */
  start(): void;
  stop(): Promise<void>;
}

export function composeAnalytics(deps: { config: Config; sql: SqlClient; posts: PostsRepo; clock: Clock; logger: Logger; metrics: Metrics }): Analytics {
  const { sql, clock, logger } = deps;
  const repo = new AnalyticsRepo(sql);
  // Counted in a worker thread (analytics/countingThread.ts says why); in this one only where no
  // compiled worker exists (running from sources).
  const script = compiledScript('analytics/countingWorker');
  const counting: Counting = script ? new CountingThread(script, logger) : new LocalCounting();
  const pageViews = new PageViews({ targets: new RecentTargets(repo, clock), salts: new DailySalts(repo, clock), sink: counting, clock });
  const flusher = new AnalyticsFlush({
    sql,
    repo,
    counting,
    clock,
    logger,
    retentionDays: deps.config.analyticsRetentionDays,
    observe: (seconds) => deps.metrics.observeAnalyticsFlush(seconds),
  });
  let timer: NodeJS.Timeout | null = null;
  return {
    pageViews,
    service: new AnalyticsService({ analytics: repo, posts: deps.posts, clock }),
    pending: async () => {
      await pageViews.settled();
      return counting.sizes();
    },
    prestart() {
      prepareViewRules();
      counting.prestart();
    },
    retireIfEmpty: () => counting.retireIfEmpty(),
    flush: async () => {
      await pageViews.settled();
      await flusher.flush();
    },
    start() {
      // unref: the timer never keeps a process alive; shutdown flushes through stop().
      timer ??= setInterval(() => void flusher.flush(), FLUSH_INTERVAL_MS).unref();
    },
    async stop() {
      // A CLI command never started counting: its close() takes no write lock for nothing.
      if (!timer) return;
      clearInterval(timer);
      timer = null;
      await pageViews.settled();
      await flusher.flush();
      await counting.close();
    },
  };
}
