/**
 * Every object of one store put into another with its content type, cache headers and redirect
 * (`folio site migrate-store`): pages, images, search indexes and backups alike, so nothing the
 * database names is left behind in the old store.
 */
import { forEachConcurrently } from '../lib/concurrently.js';
import { StorageError } from '../domain/errors.js';
import type { SiteStore } from './siteStore.js';

/** Copies in flight: enough to keep S3's sockets busy without holding many bodies in memory. */
const CONCURRENCY = 8;

export interface StoreCopy {
  objects: number;
  bytes: number;
}

export async function copyStore(from: SiteStore, to: SiteStore, onProgress?: (done: number, total: number) => void): Promise<StoreCopy> {
  const keys = await from.list('');
  let done = 0;
  let bytes = 0;
  onProgress?.(0, keys.length);
  await forEachConcurrently(keys, CONCURRENCY, async (key) => {
    const object = await from.get(key);
    // Removed since the listing (a server still running): nothing to copy.
    if (object) {
      await to.put(key, object.body, {
        contentType: object.contentType,
        cacheControl: object.cacheControl,
        deferSync: true,
        ...(object.redirectTo === undefined ? {} : { redirectTo: object.redirectTo }),
      });
      bytes += object.body.length;
    }
    onProgress?.(++done, keys.length);
  });
  await to.flush();
  // Read back: a store that accepted puts but lists fewer keys (a wrong prefix, a policy) is found now, not by readers.
  const present = new Set(await to.list(''));
  const missing = keys.filter((key) => !present.has(key));
  if (missing.length > 0) {
    throw new StorageError(`${missing.length} of ${keys.length} copied objects are not listed by the new store (first: ${missing.slice(0, 3).join(', ')})`);
  }
  return { objects: keys.length, bytes };
}
