/**
 * The Prometheus series of one Folio (GET /metrics; docs/operations.md), recorded through the small
 * methods below so that the rest of the code never sees prom-client.
 *
 * prom-client is loaded after start-up, not with the server: with its OpenTelemetry dependency
 * it is a large part of what a cold start would parse, and nothing needs it before the first scrape.
 * Until `load()` has run (main.ts's warm-up does it after the first answer; a scrape does it
 * first) observations wait in a queue and are replayed in order, so no count is lost.
 *
 * Labels are fixed, small vocabularies: route patterns (`/v1/posts/:slug`, never a raw path),
 * methods, status codes, job kinds, store operations. No label ever carries a blog slug, a
 * host, a key or an account id, so the output says nothing about any tenant.
 */
import type { JobKind } from '../db/jobsRepo.js';
import type { JobMetrics, JobOutcome, MetricsSources } from './metricTypes.js';
import type { Series } from './series.js';

export type { JobMetrics, JobOutcome, MetricsSources } from './metricTypes.js';

/**
 * Observations kept before the series exist (a closure of ~100 bytes each). The server loads
 * them first thing after its first answer, within seconds even under load (each warm-up step
 * waits at most 2 s for a pause); a process that never loads them (a CLI command runs jobs and
 * exits) keeps at most this many, and later ones are dropped, not accumulated.
 */
const MAX_QUEUED = 50_000;

export class Metrics implements JobMetrics {
  private series: Series | null = null;
  private loading: Promise<Series> | null = null;
  private queued: ((series: Series) => void)[] = [];
  private sources: MetricsSources | null = null;

  /**
   * Loads prom-client and creates the series, once; replays what was observed meanwhile. A load
   * that failed is tried again by the next call.
   */
  load(): Promise<Series> {
    this.loading ??= import('./series.js').then(
      ({ Series }) => {
        const series = new Series();
        if (this.sources) series.watch(this.sources);
        for (const record of this.queued) record(series);
        this.queued = [];
        this.series = series;
        return series;
      },
      (err: unknown) => {
        this.loading = null;
        throw err;
      },
    );
    return this.loading;
  }

  /** Registers the gauges that read current state at each scrape. */
  watch(sources: MetricsSources): void {
    this.sources = sources;
    this.series?.watch(sources);
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.record((series) => series.observeRequest(method, route, status, seconds));
  }

  observeJob(kind: JobKind, outcome: JobOutcome, seconds: number): void {
    this.record((series) => series.observeJob(kind, outcome, seconds));
  }

  countStoreError(operation: string): void {
    this.record((series) => series.countStoreError(operation));
  }

  /** For the CDN purger: one call per purge step that failed. */
  countPurgeError(provider: string): void {
    this.record((series) => series.countPurgeError(provider));
  }

  observeSearch(seconds: number): void {
    this.record((series) => series.observeSearch(seconds));
  }

  observeAnalyticsFlush(seconds: number): void {
    this.record((series) => series.observeAnalyticsFlush(seconds));
  }

  /** The text exposition format and its media type: this app's series, then the process's. */
  async render(): Promise<{ contentType: string; text: string }> {
    return (await this.load()).render();
  }

  private record(observe: (series: Series) => void): void {
    if (this.series) observe(this.series);
    else if (this.queued.length < MAX_QUEUED) this.queued.push(observe);
  }
}
