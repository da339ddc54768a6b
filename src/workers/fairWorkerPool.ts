/**
 * A small pool of worker threads shared by every account, fair between them: work that would
 * block the event loop (rendering a megabyte of Markdown takes seconds) runs here instead, and one
 * account sending many heavy requests can never hold every worker.
 *
 * - Each account (tenant) may use at most `size - 1` workers at once (all of them when the pool
 *   has one), so with two workers another account always finds one free or about to be.
 * - Waiting tasks are taken round-robin between tenants (the one served longest ago first),
 *   oldest first within a tenant.
 * - A task running longer than `timeoutMs` is abandoned: its worker is terminated (the only way
 *   to stop synchronous work) and replaced on demand; the task fails with TaskTimeoutError. The
 *   time counts from when the worker has loaded its modules (it says so), not from its start.
 * - A worker that crashes fails its task and is replaced in the same way.
 *
 * The worker side is `serveTasks` (taskWorker.ts).
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { WORKER_READY, type TaskReply, type TaskRequest } from './taskWorker.js';

/**
 * A task handed to a worker that is still loading its modules waits this much longer: on a
 * loaded machine a cold start alone can outlast a short limit, and the limit is for the task.
 */
const START_ALLOWANCE_MS = 30_000;

export interface FairWorkerPoolOptions {
  script: URL;
  size: number;
  timeoutMs: number;
  resourceLimits?: ResourceLimits;
  /** Workers idle this long (no task running or waiting) are stopped; the next task starts them again. Unset: they stay. */
  idleMs?: number;
}

export class TaskTimeoutError extends Error {
  constructor(ms: number) {
    super(`worker task did not finish within ${ms} ms`);
    this.name = 'TaskTimeoutError';
  }
}

export class WorkerPoolClosedError extends Error {
  constructor() {
    super('worker pool is closed');
    this.name = 'WorkerPoolClosedError';
  }
}

interface Task<Req, Res> {
  id: number;
  tenant: string;
  request: Req;
  resolve: (result: Res) => void;
  reject: (error: Error) => void;
}

interface Slot<Req, Res> {
  worker: Worker;
  task: Task<Req, Res> | null;
  timer: NodeJS.Timeout | null;
  /** The worker said WORKER_READY: its modules are loaded. */
  ready: boolean;
  /** recycle() was asked while this worker ran a task: it stops when the task ends. */
  retireWhenDone: boolean;
}

export class FairWorkerPool<Req, Res> {
  private readonly slots = new Set<Slot<Req, Res>>();
  /** Waiting tasks per tenant, oldest first. */
  private readonly waiting = new Map<string, Task<Req, Res>[]>();
  private readonly running = new Map<string, number>();
  /** When each tenant last had a task started (a counter): the longest unserved goes first. */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private readonly perTenant: number;
  private nextId = 1;
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FairWorkerPoolOptions) {
    if (options.size < 1) throw new Error('a worker pool needs at least one worker');
    this.perTenant = Math.max(1, options.size - 1);
  }

  run(tenant: string, request: Req): Promise<Res> {
    if (this.closed) return Promise.reject(new WorkerPoolClosedError());
    return new Promise<Res>((resolve, reject) => {
      const task: Task<Req, Res> = { id: this.nextId++, tenant, request, resolve, reject };
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(task);
      else this.waiting.set(tenant, [task]);
      this.dispatch();
    });
  }

  /**
   * Starts every worker now rather than with the first tasks: a worker loads its modules (the
   * Markdown pipeline, the search indexer) when it starts, which the first publish after a
   * restart would otherwise wait for.
   */
  prestart(): void {
    while (!this.closed && this.slots.size < this.options.size) this.startWorker();
    this.watchIdle();
  }

  /**
   * Stops every worker when none has a task and none waits (a server at rest, warmup/rest.ts):
   * each holds its own V8 heap and loaded modules, ~10 MB, which a resting server does not use.
   * The next task starts them again. Returns whether the pool is empty now.
   */
  retireIdle(): boolean {
    if (this.waiting.size > 0) return false;
    for (const slot of this.slots) if (slot.task) return false;
    for (const slot of [...this.slots]) this.retire(slot);
    return true;
  }

  /**
   * Replaces every worker: an idle one stops now, a busy one when its task ends; the next task
   * starts fresh ones. A long run of tasks (a search index merge) grows a worker's heap, which
   * V8 keeps while tasks keep coming; this gives it back at once.
   */
  recycle(): void {
    for (const slot of [...this.slots]) {
      if (slot.task) slot.retireWhenDone = true;
      else this.retire(slot);
    }
  }

  /** Tasks waiting and running, for metrics and tests. */
  stats(): { waiting: number; running: number; workers: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    let running = 0;
    for (const n of this.running.values()) running += n;
    return { waiting, running, workers: this.slots.size };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    for (const queue of this.waiting.values()) for (const task of queue) task.reject(new WorkerPoolClosedError());
    this.waiting.clear();
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (!this.closed) {
      const task = this.nextTask();
      if (!task) break;
      const slot = this.idleSlot();
      if (!slot) break;
      this.take(task);
      this.assign(slot, task);
    }
    this.watchIdle();
  }

  /**
   * Counts `idleMs` from the moment the pool has nothing to do, and stops its workers when it
   * ends with still nothing to do: a worker's heap keeps what its last tasks grew (an index
   * merge, a card), so workers kept between rare tasks only hold memory.
   */
  private watchIdle(): void {
    const { idleMs } = this.options;
    if (idleMs === undefined) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.closed || this.slots.size === 0 || this.waiting.size > 0) return;
    for (const slot of this.slots) if (slot.task) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.retireIdle();
    }, idleMs).unref();
  }

  /**
   * The oldest task of the tenant below its share that was served longest ago (never served
   * first): round-robin between tenants, FIFO within one.
   */
  private nextTask(): Task<Req, Res> | null {
    let best: Task<Req, Res> | null = null;
    let bestServed = Infinity;
    for (const [tenant, queue] of this.waiting) {
      if ((this.running.get(tenant) ?? 0) >= this.perTenant) continue;
      const served = this.lastServed.get(tenant) ?? -1;
      if (served < bestServed) {
        best = queue[0] ?? null;
        bestServed = served;
      }
    }
    return best;
  }

  private take(task: Task<Req, Res>): void {
    const queue = this.waiting.get(task.tenant)!;
    queue.shift();
    if (queue.length === 0) this.waiting.delete(task.tenant);
    this.running.set(task.tenant, (this.running.get(task.tenant) ?? 0) + 1);
    this.lastServed.set(task.tenant, this.served++);
    // Forget tenants that neither wait nor run, so the map stays as small as the active set.
    if (this.lastServed.size > 10_000) {
      for (const tenant of this.lastServed.keys()) if (!this.waiting.has(tenant) && !this.running.has(tenant)) this.lastServed.delete(tenant);
    }
  }

  private idleSlot(): Slot<Req, Res> | null {
    // All workers start together, on first use and after one was replaced: a task handed to a
    // worker that is still starting would otherwise wait while another account's went first.
    while (this.slots.size < this.options.size) this.startWorker();
    for (const slot of this.slots) if (!slot.task) return slot;
    return null;
  }

  private assign(slot: Slot<Req, Res>, task: Task<Req, Res>): void {
    slot.task = task;
    slot.worker.ref();
    this.startTimer(slot, slot.ready ? this.options.timeoutMs : this.options.timeoutMs + START_ALLOWANCE_MS);
    const message: TaskRequest<Req> = { id: task.id, request: task.request };
    slot.worker.postMessage(message);
  }

  private startTimer(slot: Slot<Req, Res>, ms: number): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      this.finish(slot, (t) => t.reject(new TaskTimeoutError(this.options.timeoutMs)));
      this.retire(slot);
    }, ms);
  }

  /** Ends the slot's current task with `settle` and frees the tenant's share. */
  private finish(slot: Slot<Req, Res>, settle: (task: Task<Req, Res>) => void): void {
    const task = slot.task;
    if (!task) return;
    slot.task = null;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const left = (this.running.get(task.tenant) ?? 1) - 1;
    if (left > 0) this.running.set(task.tenant, left);
    else this.running.delete(task.tenant);
    // An idle worker must not keep a CLI process alive.
    slot.worker.unref();
    settle(task);
  }

  private retire(slot: Slot<Req, Res>): void {
    if (!this.slots.delete(slot)) return;
    // terminate() rejects only if the worker is already gone, which is the goal anyway.
    void slot.worker.terminate().catch(() => undefined);
    this.dispatch();
  }

  private startWorker(): Slot<Req, Res> {
    const worker = new Worker(this.options.script, this.options.resourceLimits ? { resourceLimits: this.options.resourceLimits } : {});
    worker.unref();
    const slot: Slot<Req, Res> = { worker, task: null, timer: null, ready: false, retireWhenDone: false };
    this.slots.add(slot);
    worker.on('message', (reply: TaskReply<Res> | typeof WORKER_READY) => {
      if (reply === WORKER_READY) {
        slot.ready = true;
        // The task handed over while the worker loaded gets its whole limit from now.
        if (slot.task) this.startTimer(slot, this.options.timeoutMs);
        return;
      }
      if (!slot.task || reply.id !== slot.task.id) return;
      if ('error' in reply) this.finish(slot, (task) => task.reject(new Error(`worker task failed: ${reply.error}`)));
      else this.finish(slot, (task) => task.resolve(reply.result));
      // retire() dispatches too, to a fresh worker.
      if (slot.retireWhenDone) this.retire(slot);
      else this.dispatch();
    });
    const fail = (error: Error): void => {
      this.finish(slot, (task) => task.reject(error));
      this.retire(slot);
    };
    worker.on('error', (error) => fail(error));
    worker.on('exit', (code) => fail(new Error(`worker exited (code ${code})`)));
    return slot;
  }
}
