/**
 * Long loops on the server's event loop in slices: work until the slice has run its length, then
 * give waiting requests a turn. `if (slice.over) await slice.next();` inside the loop.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';

export class TimeSlice {
  private start = performance.now();

  constructor(private readonly ms: number) {}

  /** True once this slice has run `ms` milliseconds. */
  get over(): boolean {
    return performance.now() - this.start > this.ms;
  }

  /** Gives the event loop a turn, then starts a new slice. */
  async next(): Promise<void> {
    await yieldToLoop();
    this.start = performance.now();
  }
}
