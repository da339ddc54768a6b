/**
 * The write stage: applies rendered objects and deletions to the SiteStore, skipping objects
 * whose content hash matches what was last written (object_hashes).
 */
import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ObjectHashesRepo } from '../../db/objectHashesRepo.js';
import type { SiteObject, SiteStore } from '../../storage/siteStore.js';
import { forEachConcurrently } from '../../lib/concurrently.js';

/**
 * Concurrent puts are bounded: a burst of thousands of writes helps neither disk nor S3. 32
 * keeps the file system's thread pool (src/runtime/threadPool.ts) busy while each write waits for its
 * flush, and stays within the S3 client's socket pool.
 */
const CONCURRENCY = 32;
const RECORD_BATCH = 1000;
/** Recorded hashes read per turn of the event loop: a big blog's all at once would hold it. */
const KNOWN_PAGE = 5000;

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

export interface WriteOptions {
  /** Uploads even objects whose hash matches what was last written. */
  force?: boolean;
  onProgress?: (done: number, total: number) => void;
}

/** Every hash recorded for the blog, KNOWN_PAGE rows per turn of the event loop. */
export async function recordedHashes(hashes: ObjectHashesRepo, blogId: string): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  for (let after = ''; ; await yieldToLoop()) {
    const page = await hashes.page(blogId, after, KNOWN_PAGE);
    for (const [key, hash] of page) known.set(key, hash);
    if (page.length < KNOWN_PAGE) return known;
    after = page[page.length - 1]![0];
  }
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
  options: WriteOptions = {},
): Promise<WriteResult> {
  // A post change's batch looks its objects' hashes up one by one: reading every hash the blog
  // has (tens of thousands at 10,000 posts) would make each batch cost the blog's size.
  const writer = new SiteWriter(store, hashes, blogId, { ...options, bulk: objects.length > 64, readAllHashes: false, total: objects.length });
  try {
    await writer.write(objects);
  } catch (err) {
    // The writes the store did accept need not be repeated.
    await writer.settle();
    throw err;
  }
  return writer.finish(deletions);
}

/**
 * writeSite for objects that come a chunk at a time (a full render of a big blog, whose objects
 * never exist all at once): `write` each chunk, then `finish` with the deletions, or `settle`
 * after a failure.
 */
export class SiteWriter {
  private readonly result: WriteResult = { written: 0, unchanged: 0, deleted: 0, changedKeys: [] };
  /** The blog's recorded hashes, read once (by the first write) for a bulk write instead of once per object. */
  private known: Promise<Map<string, string>> | null = null;
  /** Accepted writes whose hash is not recorded yet; a crash before they are recorded only means those objects are written again next time. */
  private accepted: [string, string][] = [];
  /** Accepted writes settle is recording, not yet recorded. */
  private recording: [string, string][] = [];
  private readonly written = new Set<string>();
  private done = 0;

  /**
   * A bulk write (a rebuild) lets the store skip its per-object flush and flushes once at the
   * end; hashes are recorded only after that flush, so an object lost to a power cut before it
   * is never taken for written. `total` is what progress counts up to.
   */
  constructor(
    private readonly store: SiteStore,
    private readonly hashes: ObjectHashesRepo,
    private readonly blogId: string,
    private readonly options: WriteOptions & { bulk: boolean; total: number; readAllHashes?: boolean },
  ) {}

  /** Keys of every object handed to `write` so far. */
  get keys(): ReadonlySet<string> {
    return this.written;
  }

  /** `force` writes these objects even where the recorded hash matches (a drawn card the store lost). */
  async write(objects: readonly SiteObject[], force = false): Promise<void> {
    const { store, options } = this;
    for (const object of objects) this.written.add(object.key);
    if (options.bulk && options.readAllHashes !== false) this.known ??= recordedHashes(this.hashes, this.blogId);
    const known = await this.known;
    await forEachConcurrently(objects, CONCURRENCY, async (object) => {
      this.count();
      const body = typeof object.body === 'string' ? Buffer.from(object.body, 'utf8') : object.body;
      const hash = hashWithBody(object, body);
      const previous = known ? (known.get(object.key) ?? null) : await this.hashes.get(this.blogId, object.key);
      if (previous === hash && !options.force && !force) {
        this.result.unchanged += 1;
        return;
      }
      await store.put(object.key, body, {
        contentType: object.contentType,
        cacheControl: object.cacheControl,
        ...(object.redirectTo ? { redirectTo: object.redirectTo } : {}),
        ...(options.bulk ? { deferSync: true } : {}),
      });
      this.accepted.push([object.key, hash]);
      this.result.changedKeys.push(object.key);
      this.result.written += 1;
    });
  }

  /**
   * Keys the store holds already and the render names without handing over their bodies (the
   * drawn cards, stages/drawCards.ts): part of the site, so never stale.
   */
  keep(keys: readonly string[]): void {
    for (const key of keys) {
      this.written.add(key);
      this.count();
    }
  }

  /**
   * Keys another writer (a post job run between two chunks) wrote or deleted: part of the site
   * as that writer left them, so never stale, and their hashes are that writer's to record. Not
   * counted: the render's own objects are.
   */
  leave(keys: readonly string[]): void {
    if (keys.length === 0) return;
    for (const key of keys) this.written.add(key);
    // The other writer recorded its own hashes after this one's write: this one's must not follow them.
    const theirs = new Set(keys);
    this.accepted = this.accepted.filter(([key]) => !theirs.has(key));
    this.recording = this.recording.filter(([key]) => !theirs.has(key));
  }

  /** Counts `count` objects the render named but leaves to a later job (cards), for progress only. */
  passOver(count: number): void {
    for (let i = 0; i < count; i++) this.count();
  }

  private count(): void {
    const { options } = this;
    this.done += 1;
    if (options.onProgress && (this.done % 100 === 0 || this.done === options.total)) options.onProgress(this.done, options.total);
  }

  /**
   * Records the hashes of the writes the store accepted (also after a failed write). `letIn`
   * runs between two transactions (a big rebuild records for a second or more): it may `leave`
   * keys, whose hashes are then not recorded here.
   */
  async settle(letIn?: () => Promise<void>): Promise<void> {
    if (this.accepted.length === 0) return;
    this.recording = this.accepted;
    this.accepted = [];
    if (this.options.bulk) await this.store.flush();
    // In transactions of RECORD_BATCH rows with a turn of the event loop between them: one
    // transaction for a whole rebuild's hashes would hold every request meanwhile.
    for (let first = true; this.recording.length > 0; first = false) {
      if (!first) {
        await yieldToLoop();
        await letIn?.();
      }
      await this.hashes.setMany(this.blogId, this.recording.splice(0, RECORD_BATCH));
    }
  }

  /** Records the hashes, then deletes `deletions` (but any key written): the result of the whole write. */
  async finish(deletions: readonly string[] = [], letIn?: () => Promise<void>): Promise<WriteResult> {
    await this.settle(letIn);
    const toDelete = [...new Set(deletions)].filter((key) => !this.written.has(key));
    if (toDelete.length > 0) {
      await this.store.deleteMany(toDelete);
      await this.hashes.deleteMany(this.blogId, toDelete);
      this.result.deleted = toDelete.length;
      this.result.changedKeys.push(...toDelete);
    }
    return this.result;
  }
}
