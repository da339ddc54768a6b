/**
 * The worker threads of one full render (renderSiteInChunks.ts): each loads the theme once and
 * renders the chunks of post pages it is handed, one at a time. A chunk waits for a free worker.
 * A worker that fails or exits breaks the pool: the chunks it holds and every chunk after fail.
 */
import { Worker } from 'node:worker_threads';
import type { RenderedPage, RenderReply, RenderRequest, RenderWorkerData } from './renderWorker.js';
import { bodyTransfers } from './chunkPosts.js';

/**
 * Each worker's old generation is capped: left alone, V8 lets a worker's heap grow with the
 * garbage of every chunk it renders (a few hundred MB each at 50,000 posts, all of it in the
 * process's RSS), while what a chunk keeps alive is bounded by its body bytes
 * (renderSiteInChunks.ts, DEFAULT_CHUNK_BYTES), a small part of this.
 */
export const RENDER_WORKER_OLD_GENERATION_MB = 128;

interface Pending {
  resolve: (pages: RenderedPage[]) => void;
  reject: (err: Error) => void;
}

export class RenderPool {
  private readonly idle: Worker[] = [];
  private readonly waiting: { resolve: (worker: Worker) => void; reject: (err: Error) => void }[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly workers: Worker[];
  private broken: Error | null = null;

  constructor(script: URL, data: RenderWorkerData, count: number) {
    this.workers = Array.from({ length: Math.max(1, count) }, () => {
      const worker = new Worker(script, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: RENDER_WORKER_OLD_GENERATION_MB } });
      worker.on('message', (reply: RenderReply) => this.answer(worker, reply));
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', (code) => this.fail(new Error(`render worker exited early (code ${code})`)));
      return worker;
    });
    this.idle.push(...this.workers);
  }

  get size(): number {
    return this.workers.length;
  }

  async render(request: RenderRequest): Promise<RenderedPage[]> {
    const worker = await this.acquire();
    return new Promise<RenderedPage[]>((resolve, reject) => {
      this.busy.set(worker, { resolve, reject });
      // The request's byte bodies are moved to the worker, not copied: the caller is done with them.
      worker.postMessage(request, bodyTransfers(request.posts));
    });
  }

  async close(): Promise<void> {
    this.fail(new Error('render pool closed'));
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private answer(worker: Worker, reply: RenderReply): void {
    const pending = this.busy.get(worker);
    if (!pending) return;
    this.busy.delete(worker);
    if ('error' in reply) pending.reject(new Error(`render worker failed on chunk ${reply.chunk}: ${reply.error}`));
    else pending.resolve(reply.pages);
    this.release(worker);
  }

  /** The first failure breaks the pool for good; later ones (the exits of `close`) change nothing. */
  private fail(err: Error): void {
    this.broken ??= err;
    for (const pending of this.busy.values()) pending.reject(this.broken);
    this.busy.clear();
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.broken);
  }

  private acquire(): Promise<Worker> {
    if (this.broken) return Promise.reject(this.broken);
    const worker = this.idle.pop();
    if (worker) return Promise.resolve(worker);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(worker: Worker): void {
    if (this.broken) return;
    const next = this.waiting.shift();
    if (next) next.resolve(worker);
    else this.idle.push(worker);
  }
}
