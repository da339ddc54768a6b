/**
 * Many objects into a store at once: a bounded number of puts in flight, each without its own
 * flush, then one flush, so that a caller may commit (write what names these objects) only once
 * they are all durable. Putting thousands of files one at a time, each flushed, would make a
 * reindex wait on the disk; S3 gains as much from the puts in flight.
 */
import type { PutOptions, SiteStore } from './siteStore.js';
import { forEachConcurrently } from '../lib/concurrently.js';

/** Puts in flight: enough to keep the file system's thread pool or S3's sockets busy. */
const CONCURRENCY = 16;

export async function putMany(
  store: SiteStore,
  objects: Iterable<{ key: string; body: string | Buffer }>,
  options: Omit<PutOptions, 'deferSync'>,
): Promise<void> {
  // After a failure no new put starts, and the puts in flight end before the caller hears of it.
  await forEachConcurrently(objects, CONCURRENCY, (object) => store.put(object.key, object.body, { ...options, deferSync: true }));
  await store.flush();
}
