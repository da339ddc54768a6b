/**
 * Long pure computations written once as generators that `yield` every so often (no value): run
 * to the end at once where blocking is fine (a worker thread), or in slices on the server's
 * event loop, which gets a turn whenever a slice has run SLICE_MS, so requests of every other
 * blog keep being answered while a 50,000-post index is joined or encoded.
 */
import { TimeSlice } from './timeSlice.js';

const SLICE_MS = 10;

export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export async function runStepsCooperatively<T>(steps: Generator<void, T>): Promise<T> {
  const slice = new TimeSlice(SLICE_MS);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slice.over) await slice.next();
  }
}
