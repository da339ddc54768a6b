/**
 * The Prometheus series of one Folio (GET /metrics; docs/operations.md), kept with prom-client. Each
 * compose() gets its own registry (tests build many apps in one process). Only metrics.ts loads
 * this module, after start-up (see there); the rest of the code never sees prom-client.
 *
 * Labels are fixed, small vocabularies: route patterns (`/v1/posts/:slug`, never a raw path),
 * methods, status codes, job kinds, store operations. No label ever carries a blog slug, a
 * host, a key or an account id, so the output says nothing about any tenant.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobKind } from '../db/jobsRepo.js';
import type { JobOutcome, MetricsSources } from './metricTypes.js';

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const SEARCH_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Methods Node's parser accepts but the API never serves are counted together. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

let processRegistry: Registry | null = null;

/**
 * Process series (CPU, memory, GC, event loop lag, handles), once per process: prom-client's
 * collectors start an event-loop-delay monitor and a GC observer that cannot be stopped, so one
 * per compose() would pile up in a test process that builds hundreds of apps.
 */
function sharedProcessRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class Series {
  private readonly registry = new Registry();
  private readonly process = sharedProcessRegistry();
  private readonly requests = new Counter({
    name: 'folio_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern ("site" for published sites) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'folio_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status class (2xx, 4xx, ...).',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobSeconds = new Histogram({
    name: 'folio_publish_job_duration_seconds',
    help: 'Time a publish job ran (render, store writes, CDN purge), by kind and outcome (done, or failed and left for retry).',
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  private readonly storeErrors = new Counter({
    name: 'folio_store_errors_total',
    help: 'Site store operations that failed, by operation (put, get, size, delete, delete_many, list, flush).',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  private readonly purgeErrors = new Counter({
    name: 'folio_cdn_purge_errors_total',
    help: 'CDN purge calls that failed, by provider (the job stays pending and is retried).',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });
  private readonly searchSeconds = new Histogram({
    name: 'folio_search_duration_seconds',
    help: 'Time to answer a search query, index loading included.',
    buckets: SEARCH_BUCKETS,
    registers: [this.registry],
  });

  private readonly flushSeconds = new Histogram({
    name: 'folio_analytics_flush_duration_seconds',
    help: 'Time one analytics flush held the event loop (its SQLite write transaction).',
    buckets: SEARCH_BUCKETS,
    registers: [this.registry],
  });
  private longestFlush = 0;
  private readonly flushLongest = new Gauge({
    name: 'folio_analytics_flush_longest_seconds',
    help: 'The longest analytics flush since the process started.',
    registers: [this.registry],
  });

  /** Registers the gauges that read current state at each scrape. */
  watch(sources: MetricsSources): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: () => number | Promise<number>): void => {
      new Gauge({
        name,
        help,
        registers,
        // prom-client awaits a collect that answers a promise (the pending jobs are a query).
        async collect() {
          this.set(await read());
        },
      });
    };
    gauge('folio_publish_jobs_pending', 'Publish jobs not yet done: queued, running or waiting to be retried.', sources.pendingJobs);
    gauge('folio_search_index_cache_bytes', 'Estimated memory held by decoded search indexes.', () => sources.searchCache().bytes);
    gauge('folio_search_index_cache_blogs', 'Blogs whose search index is in memory.', () => sources.searchCache().blogs.length);
    gauge('folio_heavy_tasks_waiting', 'Heavy tasks (Markdown rendering, index building) waiting for a worker thread.', () => sources.heavy().waiting);
    gauge('folio_heavy_tasks_running', 'Heavy tasks running on worker threads.', () => sources.heavy().running);
    gauge('folio_heavy_workers', 'Worker threads of the heavy-work pool.', () => sources.heavy().workers);
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'other';
    this.requests.inc({ method: m, route, status: String(status) });
    this.requestSeconds.observe({ method: m, route, status_class: `${Math.floor(status / 100)}xx` }, seconds);
  }

  observeJob(kind: JobKind, outcome: JobOutcome, seconds: number): void {
    this.jobSeconds.observe({ kind, outcome }, seconds);
  }

  countStoreError(operation: string): void {
    this.storeErrors.inc({ operation });
  }

  /** For the CDN purger: one call per purge step that failed. */
  countPurgeError(provider: string): void {
    this.purgeErrors.inc({ provider });
  }

  observeSearch(seconds: number): void {
    this.searchSeconds.observe(seconds);
  }

  observeAnalyticsFlush(seconds: number): void {
    this.flushSeconds.observe(seconds);
    this.longestFlush = Math.max(this.longestFlush, seconds);
    this.flushLongest.set(this.longestFlush);
  }

  /** The text exposition format: this app's series, then the process's. */
  async render(): Promise<{ contentType: string; text: string }> {
    const own = await this.registry.metrics();
    return { contentType: this.registry.contentType, text: `${own}\n${await this.process.metrics()}` };
  }
}
