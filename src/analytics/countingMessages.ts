/** What the main thread and the counting thread (countingWorker.ts) say to each other. */
import type { ViewBatch } from './viewCounter.js';
import type { CountSizes, ViewLoad } from './viewTally.js';

export type CountingRequest =
  | { type: 'loads'; loads: ViewLoad[] }
  | { type: 'restore'; batch: ViewBatch }
  | { type: 'drain'; id: number }
  | { type: 'sizes'; id: number }
  | { type: 'holdsNothing'; id: number };

export type CountingReply =
  | { type: 'drained'; id: number; batch: ViewBatch }
  | { type: 'sizes'; id: number; sizes: CountSizes }
  | { type: 'holdsNothing'; id: number; empty: boolean };

/**
 * The counting thread's nice value (Linux): counting is background work, so where it and the API
 * want the same core, the API goes first.
 */
export const COUNTING_NICE = 10;
