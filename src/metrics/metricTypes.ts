/** What the rest of the code hands to, or asks of, the metrics (src/metrics/metrics.ts). */
import type { JobKind } from '../db/jobsRepo.js';

export type JobOutcome = 'done' | 'failed';

/** What the gauges read at scrape time. */
export interface MetricsSources {
  pendingJobs: () => Promise<number>;
  searchCache: () => { bytes: number; blogs: readonly string[] };
  heavy: () => { waiting: number; running: number; workers: number };
}

/** What JobRunner reports (a subset, so it can be handed on without the rest). */
export interface JobMetrics {
  observeJob(kind: JobKind, outcome: JobOutcome, seconds: number): void;
}
