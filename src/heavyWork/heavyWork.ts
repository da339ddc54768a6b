/**
 * The one pool of worker threads for work whose cost grows with a post's size (heavyTasks.ts).
 * No request may hold the event loop for more than 100 ms, and the largest valid Markdown takes
 * seconds to render, its HTML a long time to turn into text, its words longer still to index.
 * Callers run small inputs in place (cheaper than a thread hop) and hand the rest here.
 *
 * One pool rather than one per kind, so the fair share per account (FairWorkerPool) covers all
 * heavy work together and the VM's cores are not oversubscribed.
 */
import { availableParallelism } from 'node:os';
import { compiledScript } from '../workers/compiledScript.js';
import { FairWorkerPool } from '../workers/fairWorkerPool.js';
import type { HeavyKind, HeavyRequest, HeavyResult, HeavyTasks } from './heavyTasks.js';

export interface HeavyWorkOptions {
  /** Worker threads; 0 leaves everything to the callers' in-place fallback. Default 2 to 4. */
  workers?: number;
  /** A task running longer is abandoned and fails with TaskTimeoutError. */
  timeoutMs?: number;
  /** Idle workers stop after this long (HEAVY_IDLE_MS unless set). */
  idleMs?: number;
}

/**
 * Workers with no task for this long stop (FairWorkerPool idleMs). Their heaps keep what the
 * last tasks grew, 10–25 MB each after index merges; a restart costs about 70 ms of a core.
 */
export const HEAVY_IDLE_MS = 30_000;

/**
 * Each worker's young generation. Under a burst of tasks (a search index merge rewrites
 * thousands of chunks) V8 grows it several times over and keeps it committed for a minute or
 * more after; the tasks keep little alive between them, so a small one costs a few more
 * scavenges, not promotions.
 */
export const HEAVY_YOUNG_GENERATION_MB = 8;

/** Well above what the slowest valid 1 MB input (a very wide table) takes to render on one core. */
export const HEAVY_TASK_TIMEOUT_MS = 60_000;

export class HeavyWork {
  private readonly pool: FairWorkerPool<HeavyRequest, HeavyResult> | null;

  constructor(options: HeavyWorkOptions = {}) {
    const script = compiledScript('heavyWork/heavyWorker');
    const size = options.workers ?? Math.min(4, Math.max(2, availableParallelism()));
    this.pool =
      script && size > 0
        ? new FairWorkerPool({
            script,
            size,
            timeoutMs: options.timeoutMs ?? HEAVY_TASK_TIMEOUT_MS,
            idleMs: options.idleMs ?? HEAVY_IDLE_MS,
            resourceLimits: { maxYoungGenerationSizeMb: HEAVY_YOUNG_GENERATION_MB },
          })
        : null;
  }

  /**
   * False when no compiled worker exists (vitest without `npm test`'s build): callers then do
   * the work in place, correct but blocking.
   */
  get available(): boolean {
    return this.pool !== null;
  }

  /** Runs the task for `tenant` (an account or blog: the unit of fairness). */
  async run<K extends HeavyKind>(tenant: string, kind: K, request: HeavyTasks[K]['request']): Promise<HeavyTasks[K]['result']> {
    if (!this.pool) throw new Error('no compiled heavy worker: run npm run build (npm test builds it)');
    return (await this.pool.run(tenant, { kind, request } as HeavyRequest)) as HeavyTasks[K]['result'];
  }

  /** Starts the workers ahead of the first task (the warm-up after a restart). */
  prestart(): void {
    this.pool?.prestart();
  }

  /** Stops the workers if none is busy (a server at rest); the next task starts them again. */
  retireIdle(): boolean {
    return this.pool?.retireIdle() ?? true;
  }

  /** Replaces the workers as they become idle (FairWorkerPool.recycle). */
  recycle(): void {
    this.pool?.recycle();
  }

  stats(): { waiting: number; running: number; workers: number } {
    return this.pool?.stats() ?? { waiting: 0, running: 0, workers: 0 };
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
