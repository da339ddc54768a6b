/**
 * Work that must keep getting turns while a caller waits on something else (a full render
 * waiting for the store's listing lets its blog's waiting publishes in).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** How often `work` runs while the wait lasts. */
const EVERY_MS = 50;

/** Runs `work` now and every EVERY_MS until `promise` settles; never rejects for `promise` (await it yourself). */
export async function whileWaiting(promise: Promise<unknown>, work: () => Promise<void>): Promise<void> {
  let settled = false;
  const done = promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  while (!settled) {
    await work();
    await Promise.race([done, sleep(EVERY_MS)]);
  }
}
