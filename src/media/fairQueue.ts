/**
 * Runs work a few at a time, fair between tenants (accounts): waiting work is taken round-robin,
 * the tenant served longest ago first, so one account's queue of uploads delays another
 * account's by at most the images already running. Each tenant may have `perTenantWaiting`
 * items waiting; past that only that tenant is refused (ServiceUnavailableError), never another.
 * `totalWaiting` bounds the memory all waiting uploads hold together.
 */
import { ServiceUnavailableError } from '../domain/errors.js';

export interface FairQueueOptions {
  concurrency: number;
  perTenantWaiting: number;
  totalWaiting: number;
}

interface Waiter {
  start: () => void;
}

export class FairQueue {
  private running = 0;
  private waitingCount = 0;
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly lastServed = new Map<string, number>();
  private served = 0;

  constructor(private readonly options: FairQueueOptions) {}

  async run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    if (this.running < this.options.concurrency && this.waitingCount === 0) {
      this.running++;
      this.lastServed.set(tenant, this.served++);
    } else {
      const queue = this.waiting.get(tenant) ?? [];
      if (queue.length >= this.options.perTenantWaiting) {
        throw new ServiceUnavailableError(`this account already has ${queue.length} images waiting to be processed; try again shortly`, { retryAfter: 5 });
      }
      if (this.waitingCount >= this.options.totalWaiting)
        throw new ServiceUnavailableError('too many images are being processed; try again shortly', { retryAfter: 5 });
      // A finishing item hands its slot straight to the next tenant in turn.
      await new Promise<void>((start) => {
        queue.push({ start });
        this.waiting.set(tenant, queue);
        this.waitingCount++;
      });
    }
    try {
      return await work();
    } finally {
      this.next();
    }
  }

  /** Items waiting and running, for tests and metrics. */
  stats(): { waiting: number; running: number } {
    return { waiting: this.waitingCount, running: this.running };
  }

  private next(): void {
    let tenant: string | null = null;
    let oldest = Infinity;
    for (const candidate of this.waiting.keys()) {
      const served = this.lastServed.get(candidate) ?? -1;
      if (served < oldest) {
        oldest = served;
        tenant = candidate;
      }
    }
    if (tenant === null) {
      this.running--;
      // Forget tenants that neither wait nor run, so the map stays as small as the active set.
      if (this.running === 0) this.lastServed.clear();
      return;
    }
    const queue = this.waiting.get(tenant)!;
    const waiter = queue.shift()!;
    if (queue.length === 0) this.waiting.delete(tenant);
    this.waitingCount--;
    this.lastServed.set(tenant, this.served++);
    waiter.start();
  }
}
