/** Async work over many items with a bound on how many run at once. */

/**
 * Runs `work` over the items, `concurrency` at a time. After a failure no new item starts, and
 * the run settles only once the items in flight have ended (their effects are then known, and
 * none is still running when the caller retries); it then rejects with the first failure.
 */
export async function forEachConcurrently<T>(items: Iterable<T>, concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let failed = false;
  const worker = async (): Promise<void> => {
    for (let next = iterator.next(); !next.done && !failed; next = failed ? next : iterator.next()) {
      try {
        await work(next.value);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: concurrency }, worker));
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) throw failure.reason;
}
