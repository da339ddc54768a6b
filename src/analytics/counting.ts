/**
 * Where counted loads wait for the flush: a ViewTally in the counting thread (countingThread.ts)
 * or, where no compiled worker exists, in this thread. The flush drains either the same way.
 */
import type { ViewSink } from './pageViews.js';
import type { ViewBatch } from './viewCounter.js';
import { ViewTally, type CountSizes } from './viewTally.js';

export interface Counting extends ViewSink {
  /** Takes everything counted so far (loads handed in before the call included). */
  drain(): Promise<ViewBatch>;
  /** Puts a batch back (its write failed): the next flush tries again. */
  restore(batch: ViewBatch): void;
  /** Sizes of the in-memory maps, for tests and /metrics. */
  sizes(): Promise<CountSizes>;
  /** Stops counting; what was not drained is lost (the flush at shutdown drains first). */
  close(): Promise<void>;
  /** Starts what counting runs on, so the first reader's load does not wait for it. */
  prestart(): void;
  /**
   * Stops what counting runs on if it holds nothing (a server at rest, warmup/rest.ts): no
   * count, no visitor of the day, no page waiting for its beacon. Returns whether it stopped;
   * the next load starts it again.
   */
  retireIfEmpty(): Promise<boolean>;
}

/** Counting on the calling thread. */
export class LocalCounting implements Counting {
  constructor(private readonly tally = new ViewTally()) {}

  add(load: Parameters<ViewSink['add']>[0]): void {
    this.tally.add(load);
  }

  async drain(): Promise<ViewBatch> {
    return this.tally.drain();
  }

  restore(batch: ViewBatch): void {
    this.tally.restore(batch);
  }

  async sizes(): Promise<CountSizes> {
    return this.tally.sizes();
  }

  async close(): Promise<void> {}

  prestart(): void {}

  async retireIfEmpty(): Promise<boolean> {
    return false;
  }
}
