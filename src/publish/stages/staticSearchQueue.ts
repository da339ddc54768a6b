/**
 * The static search index's writes of post changes, after the publish has answered: one blog's
 * pending changes are folded into one write (the newest document of each post wins), and writes
 * that follow each other are WRITE_GAP_MS apart, so a burst costs a delta write per half second,
 * not per batch, and a delta merge (seconds at 10,000 posts)
 * holds the index, never a publish. The API's index, which `GET /v1/search` reads, stays in the
 * publish. A durable mark (`behind`) is set before the publish's jobs are marked done and cleared
 * once the blog's queue is empty: a process stopped in between leaves it, and the next process
 * lays the index out afresh from the database at its start (`resume`) instead of trusting it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SearchDocument } from '../../search/searchTypes.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import { holdNothing, type HoldBlog } from '../../lib/holdBlog.js';

/** Durable marks of blogs whose static index may lack changes (settings rows in the server). */
export interface StaticSearchMarks {
  get(blogId: string): Promise<boolean>;
  set(blogId: string, behind: boolean): Promise<void>;
  /** Every blog marked now: at start, those a stopped process left behind. */
  marked(): Promise<string[]>;
}

/** Marks kept in memory only: a stopped process forgets them (tests, and Publishing without durable marks). */
export function inMemoryMarks(): StaticSearchMarks {
  const marked = new Set<string>();
  return {
    get: async (blogId) => marked.has(blogId),
    set: async (blogId, behind) => void (behind ? marked.add(blogId) : marked.delete(blogId)),
    marked: async () => [...marked],
  };
}

export interface StaticSearchQueueDeps {
  /** One write of the blog's folded changes (StaticSearchSync.postsChanged): the keys it changed. */
  write: (blog: BlogWithDomain, docs: readonly SearchDocument[], gone: readonly string[]) => Promise<string[]>;
  /** Lays the blog's index out afresh from the database (StaticSearchSync.rebuild): the keys it changed. */
  rebuild: (blog: BlogWithDomain) => Promise<string[]>;
  /** Whether the blog is still there (a deleted blog's queued changes are dropped with it). */
  exists: (blogId: string) => Promise<boolean>;
  /** The durable mark: whether the blog's index may lack changes, and setting it. */
  behind: StaticSearchMarks;
  /** The keys a background write changed: the purge stage's turn. */
  onChange: (blog: BlogWithDomain, changedKeys: readonly string[]) => Promise<void>;
  onError: (err: unknown, blogSlug: string) => void;
  /** What each write runs inside: with several nodes, holding the blog (publish/jobs/blogLeases.ts). */
  hold?: HoldBlog | undefined;
  /** The pause between two writes of a blog (WRITE_GAP_MS unless set). */
  gapMs?: number;
}

/**
 * The pause before a blog's next write when changes arrived during the last one. Under a burst,
 * each write then folds the changes of half a second (rewriting the delta costs its size, a few
 * hundred kilobytes at a 10,000-post blog, however few changes it adds); the `/search/` page
 * follows the answers by that much more.
 */
export const WRITE_GAP_MS = 500;

interface Pending {
  blog: BlogWithDomain;
  /** Post id → its document now, or null when it left the site. */
  changes: Map<string, SearchDocument | null>;
  /** The mark was left by an earlier process: lay out afresh before anything else. */
  rebuild: boolean;
}

export class StaticSearchQueue {
  private readonly pending = new Map<string, Pending>();
  private readonly draining = new Map<string, Promise<void>>();
  /** Blogs whose mark this process has read (or set) already. */
  private readonly seen = new Set<string>();

  constructor(private readonly deps: StaticSearchQueueDeps) {}

  /** Queues the changes and resolves without waiting for the write; the mark is durable when it resolves. */
  async add(blog: BlogWithDomain, docs: readonly SearchDocument[], gone: readonly string[]): Promise<void> {
    if (docs.length === 0 && gone.length === 0) return;
    // The mark is read before the queue is touched, so the queue changes in one synchronous step.
    const firstSeen = !this.seen.has(blog.id);
    if (firstSeen) this.seen.add(blog.id);
    const behind = firstSeen && (await this.deps.behind.get(blog.id));
    let entry = this.pending.get(blog.id);
    if (!entry) {
      entry = { blog, changes: new Map(), rebuild: false };
      this.pending.set(blog.id, entry);
    }
    entry.blog = blog;
    if (behind) entry.rebuild = true;
    for (const id of gone) entry.changes.set(id, null);
    for (const doc of docs) entry.changes.set(doc.id, doc);
    if (this.draining.has(blog.id)) return;
    const marked = this.deps.behind.set(blog.id, true);
    // The drain starts once the mark is written; a mark that could not be written still drains.
    const run: Promise<void> = marked
      .then(
        () => this.drain(blog.id),
        () => this.drain(blog.id),
      )
      .finally(() => this.forget(blog.id, run));
    this.draining.set(blog.id, run);
    await marked;
  }

  /**
   * Lays out afresh the index of a blog a stopped process left marked (called at start), so it
   * never waits for the blog's next change; a change queued meanwhile is folded into it.
   */
  resume(blog: BlogWithDomain): void {
    if (this.seen.has(blog.id)) return;
    this.seen.add(blog.id);
    const entry = this.pending.get(blog.id) ?? { blog, changes: new Map(), rebuild: true };
    entry.rebuild = true;
    this.pending.set(blog.id, entry);
    if (!this.draining.has(blog.id)) {
      const run: Promise<void> = this.drain(blog.id).finally(() => this.forget(blog.id, run));
      this.draining.set(blog.id, run);
    }
  }

  /** A drain that failed before its end leaves the blog; one that ended left already (drain). */
  private forget(blogId: string, run: Promise<void>): void {
    if (this.draining.get(blogId) === run) this.draining.delete(blogId);
  }

  /** Resolves once every queued change is written (or has failed and been reported). */
  async idle(): Promise<void> {
    while (this.draining.size > 0) await Promise.all([...this.draining.values()]);
  }

  private async drain(blogId: string): Promise<void> {
    // A turn of the event loop first: the publish that queued this answers before it starts.
    await Promise.resolve();
    for (;;) {
      await this.writeAll(blogId);
      // A change queued while the mark was cleared found this drain running and left its write
      // to it: it is written now, under the mark again. Checked and left in one synchronous
      // step, so a change queued after this drain left starts a drain of its own.
      if (!this.pending.has(blogId)) {
        this.draining.delete(blogId);
        return;
      }
      await this.deps.behind.set(blogId, true).catch(() => undefined);
    }
  }

  /** Writes the blog's queued changes until none is left, then clears its mark (or forgets a failed one). */
  private async writeAll(blogId: string): Promise<void> {
    let failed = false;
    for (let writes = 0; this.pending.has(blogId); writes++) {
      // Changes that keep coming gather for a moment: a write costs the delta's size, not its changes'.
      if (writes > 0) await sleep(this.deps.gapMs ?? WRITE_GAP_MS);
      const entry = this.pending.get(blogId)!;
      this.pending.delete(blogId);
      const { blog } = entry;
      if (!(await this.deps.exists(blogId))) continue;
      try {
        const docs = [...entry.changes.values()].filter((doc): doc is SearchDocument => doc !== null);
        const gone = [...entry.changes].filter(([, doc]) => doc === null).map(([id]) => id);
        // Laid out afresh, the index holds every change the database has, these included.
        const hold = this.deps.hold ?? holdNothing;
        const keys = await hold(blog.slug, () => (entry.rebuild ? this.deps.rebuild(blog) : this.deps.write(blog, docs, gone)));
        await this.deps.onChange(blog, keys);
      } catch (err) {
        failed = true;
        this.deps.onError(err, blog.slug);
      }
    }
    // A failed write leaves the mark, and the blog's next change reads it again: it lays the
    // index out afresh from the database, in this process or the next.
    if (failed) this.seen.delete(blogId);
    else await this.clearMark(blogId);
  }

  /** A mark left set only costs the blog's next change a fresh layout. */
  private async clearMark(blogId: string): Promise<void> {
    try {
      if (await this.deps.exists(blogId)) await this.deps.behind.set(blogId, false);
    } catch (err) {
      this.deps.onError(err, blogId);
    }
  }
}
