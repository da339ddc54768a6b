import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ObjectHashesRepo } from '../db/objectHashesRepo.js';
import type { SiteObject, SiteStore } from '../storage/siteStore.js';

/**
 * Concurrent puts are bounded: a burst of thousands of writes helps neither disk nor S3. 32
 * keeps the file system's thread pool (src/threadPool.ts) busy while each write waits for its
 * flush, and stays within the S3 client's socket pool.
 */
const CONCURRENCY = 32;
const RECORD_BATCH = 1000;

export interface WriteResult {
  written: number;
  unchanged: number;
  deleted: number;
  /** Keys written or deleted (not the unchanged ones): what a CDN must be told about. */
  changedKeys: string[];
}

export function objectHash(object: SiteObject): string {
  return hashWithBody(object, object.body);
}

/** objectHash over the body already encoded, so a string body is encoded once per write, not twice. */
function hashWithBody(object: SiteObject, body: Buffer | string): string {
  return createHash('sha256')
    .update(object.contentType)
    .update('\0')
    .update(object.cacheControl)
    .update('\0')
    .update(object.redirectTo ?? '')
    .update('\0')
    .update(body)
    .digest('base64url');
}

async function inPool<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

/**
 * Applies rendered objects and deletions to the store. Objects whose content hash matches what
 * was last written are skipped; hashes are recorded only after the store accepted the write,
 * so a failed run is simply repeated. Idempotent.
 */
export async function writeSite(
  store: SiteStore,
  hashes: ObjectHashesRepo,
  blogId: string,
  objects: readonly SiteObject[],
  deletions: readonly string[] = [],
  options: { force?: boolean; onProgress?: (done: number, total: number) => void } = {},
): Promise<WriteResult> {
  const result: WriteResult = { written: 0, unchanged: 0, deleted: 0, changedKeys: [] };
  // A bulk write (a rebuild) lets the store skip its per-object flush and flushes once at the
  // end; hashes are recorded only after that flush, so an object lost to a power cut before it
  // is never taken for written.
  const bulk = objects.length > 64;
  const known = bulk ? hashes.all(blogId) : null;
  // Accepted writes whose hash is not recorded yet; a crash before they are recorded only
  // means those objects are written again next time.
  let accepted: [string, string][] = [];
  const record = async (): Promise<void> => {
    if (accepted.length === 0) return;
    const batch = accepted;
    accepted = [];
    if (bulk) await store.flush();
    // In transactions of RECORD_BATCH rows with a turn of the event loop between them: one
    // transaction for a rebuild's 12,000 hashes held every request for a third of a second.
    for (let start = 0; start < batch.length; start += RECORD_BATCH) {
      if (start > 0) await yieldToLoop();
      hashes.setMany(blogId, batch.slice(start, start + RECORD_BATCH));
    }
  };
  let done = 0;
  try {
    await inPool(objects, async (object) => {
      done += 1;
      if (options.onProgress && (done % 100 === 0 || done === objects.length)) options.onProgress(done, objects.length);
      const body = typeof object.body === 'string' ? Buffer.from(object.body, 'utf8') : object.body;
      const hash = hashWithBody(object, body);
      const previous = known ? (known.get(object.key) ?? null) : hashes.get(blogId, object.key);
      if (previous === hash && !options.force) {
        result.unchanged += 1;
        return;
      }
      await store.put(object.key, body, {
        contentType: object.contentType,
        cacheControl: object.cacheControl,
        ...(object.redirectTo ? { redirectTo: object.redirectTo } : {}),
        ...(bulk ? { deferSync: true } : {}),
      });
      accepted.push([object.key, hash]);
      result.changedKeys.push(object.key);
      result.written += 1;
    });
  } finally {
    // Also after a failed put: the writes the store did accept need not be repeated.
    await record();
  }
  const rendered = new Set(objects.map((o) => o.key));
  const toDelete = [...new Set(deletions)].filter((key) => !rendered.has(key));
  if (toDelete.length > 0) {
    await store.deleteMany(toDelete);
    hashes.deleteMany(blogId, toDelete);
    result.deleted = toDelete.length;
    result.changedKeys.push(...toDelete);
  }
  return result;
}
