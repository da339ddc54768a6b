/**
 * The published posts of recently published blogs (summaries, oldest first), kept in memory so
 * that a publish does not re-read every row of its blog. Each use replays the post_changes log
 * (migration 004: triggers record every change to a published post in the same transaction)
 * since the entry's last sequence number, re-reading only the posts it names. Replaying is
 * idempotent — an entry is made to match the row as it is now — so a change seen twice, or a
 * row read newer than its log entry, does no harm.
 *
 * A blog not in memory (after a restart, or evicted) is restored from its saved snapshot
 * (migration 014, listingSnapshot.ts): ids, dates, tags and title counts, much cheaper to read
 * than the rows, then the log since the snapshot's position is replayed. Only without a usable
 * snapshot — none yet, another format, or the log pruned past it — are the rows read: a page per
 * turn of the event loop, so a large blog's load does not hold it for other requests. The
 * changes committed meanwhile are then replayed, which also settles a post read twice or not at
 * all because it moved while the pages were read. `save` writes the snapshots of listings that
 * changed (the server calls it every minute and at shutdown).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { SingleFlight } from '../../lib/singleFlight.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import { BlogListing, titleCountsOf, type Listing, type SummaryReader } from './blogListing.js';
import { decodeListing, encodeListing } from './listingSnapshot.js';

export type { Listing };

/** What the cache reads; SiteRepo provides it. */
export interface ListingSource {
  publishedSummariesAfter(blogId: string, after: { publishedAt: string; id: string } | null, limit: number): Promise<SitePostSummary[]>;
  publishedSummary(postId: string): Promise<SitePostSummary | null>;
  latestChange(): Promise<number>;
  oldestChange(): Promise<number | null>;
  changesSince(blogId: string, seq: number): Promise<{ seq: number; postId: string }[]>;
  pruneChanges(belowSeq: number): Promise<void>;
}

/** Where snapshots are kept (ListingSnapshotsRepo). */
export interface SnapshotStore {
  get(blogId: string): Promise<{ seq: number; data: Uint8Array } | null>;
  put(blogId: string, seq: number, data: Buffer, now: string): Promise<void>;
  delete(blogId: string): Promise<void>;
}

export interface ListingCacheOptions {
  /** Summaries kept in memory over all blogs before least recently used blogs are dropped. */
  maxPosts?: number;
  /** Log entries kept when pruning. */
  keepChanges?: number;
  /** Rows read per turn of the event loop when a listing is loaded afresh (default 2,000). */
  loadPage?: number;
  /** Saved listings; without it every blog's first use reads its rows. */
  snapshots?: SnapshotStore;
  /**
   * What a restored listing reads its posts' summaries from when a page first needs them. Without
   * it (PostgreSQL cannot answer synchronously) snapshots are saved but never restored.
   */
  lazy?: SummaryReader;
}

const LOAD_PAGE = 2000;

/** Changes to replay over a snapshot before reading the rows is cheaper (each change is a read). */
const MAX_REPLAY = 5000;

export class ListingCache {
  private readonly entries = new Map<string, BlogListing>();
  private readonly loading = new SingleFlight<string, BlogListing>();
  private readonly maxPosts: number;
  private readonly keepChanges: number;
  private readonly loadPage: number;
  private readonly snapshots: SnapshotStore | undefined;
  private readonly lazy: SummaryReader | undefined;
  /** Each blog's last use, so that one blog's uses replay its log one after the other. */
  private readonly turns = new Map<string, Promise<unknown>>();
  private uses = 0;

  constructor(
    private readonly source: ListingSource,
    options: ListingCacheOptions = {},
  ) {
    this.maxPosts = options.maxPosts ?? 200_000;
    this.keepChanges = options.keepChanges ?? 50_000;
    this.loadPage = options.loadPage ?? LOAD_PAGE;
    this.snapshots = options.snapshots;
    this.lazy = options.lazy;
  }

  /** The blog's published posts as the database holds them now. */
  get(blogId: string): Promise<Listing> {
    const before = this.turns.get(blogId) ?? Promise.resolve();
    const use = before.then(
      () => this.use(blogId),
      () => this.use(blogId),
    );
    this.turns.set(blogId, use);
    const forget = () => {
      if (this.turns.get(blogId) === use) this.turns.delete(blogId);
    };
    use.then(forget, forget);
    return use;
  }

  private async use(blogId: string): Promise<Listing> {
    const { source } = this;
    let entry = this.entries.get(blogId);
    if (!entry || !(await this.reaches(entry.seq))) {
      entry = await this.load(blogId);
    }
    await this.replay(blogId, entry);
    this.entries.delete(blogId);
    this.entries.set(blogId, entry);
    this.evict(blogId);
    if (++this.uses % 256 === 0) await source.pruneChanges((await source.latestChange()) - this.keepChanges);
    return entry;
  }

  /** Blogs held, most recently used first. */
  recent(): string[] {
    return [...this.entries.keys()].reverse();
  }

  /**
   * Drops every entry, keeping the snapshots (a server at rest, after `save`); returns how many
   * blogs were held. A blog's next publish restores its listing from its snapshot.
   */
  release(): number {
    const held = this.entries.size;
    this.entries.clear();
    return held;
  }

  /** Drops a blog's entry and its snapshot (the blog was deleted). */
  async forget(blogId: string): Promise<void> {
    this.entries.delete(blogId);
    await this.snapshots?.delete(blogId);
  }

  /**
   * Saves the snapshot of every listing that changed since it was last saved; returns how many.
   * A large listing is slow to encode, so one listing is saved per turn of the event loop.
   */
  async save(now: string): Promise<number> {
    let saved = 0;
    for (const [blogId, entry] of [...this.entries]) {
      if (saved > 0) await yieldToLoop();
      if (await this.saveEntry(blogId, entry, now)) saved += 1;
    }
    return saved;
  }

  /**
   * Saves the blog's snapshot when due and drops its entry, after the blog's use in progress:
   * whole-blog work that reads no listing (a reindex after a full render) then runs without
   * holding it (about 100 MB at 100,000 posts). Its next use restores it from the snapshot.
   */
  async setAside(blogId: string, now: string): Promise<void> {
    await this.turns.get(blogId)?.catch(() => undefined);
    const entry = this.entries.get(blogId);
    if (!entry) return;
    await this.saveEntry(blogId, entry, now);
    if (this.entries.get(blogId) === entry) this.entries.delete(blogId);
  }

  /** Writes the entry's snapshot unless it is up to date; whether it wrote one. */
  private async saveEntry(blogId: string, entry: BlogListing, now: string): Promise<boolean> {
    if (!this.snapshots) return false;
    // Unchanged, but saved long ago: the log is pruned past old positions, and a snapshot it
    // does not reach back to is of no use.
    if (!entry.dirty && entry.seq - entry.savedSeq <= this.keepChanges / 2) return false;
    // The encode yields to the event loop, and publishes meanwhile change the entry: it encodes
    // the posts as of `seq`, and a change meanwhile marks the entry dirty again.
    const seq = entry.seq;
    const posts = entry.posts.slice();
    const titleCounts = { ...entry.titleCounts };
    entry.dirty = false;
    try {
      await this.snapshots.put(blogId, seq, await encodeListing(posts, titleCounts, titleCountsOf), now);
    } catch {
      // A snapshot is a cache: one that cannot be written now (another process held SQLite's
      // write lock too long) stays due and is tried again at the next save.
      entry.dirty = true;
      return false;
    }
    entry.savedSeq = Math.max(entry.savedSeq, seq);
    return true;
  }

  /** Whether the change log still holds every change after `seq`. */
  private async reaches(seq: number): Promise<boolean> {
    const oldest = await this.source.oldestChange();
    return oldest === null || seq >= oldest - 1;
  }

  private load(blogId: string): Promise<BlogListing> {
    return this.loading.load(blogId, async () => (await this.restore(blogId)) ?? this.readAll(blogId));
  }

  /** The blog's saved listing when the log reaches back to it and replaying it is cheap. */
  private async restore(blogId: string): Promise<BlogListing | null> {
    if (!this.lazy) return null;
    const saved = await this.snapshots?.get(blogId);
    if (!saved || !(await this.reaches(saved.seq))) return null;
    if ((await this.source.changesSince(blogId, saved.seq)).length > MAX_REPLAY) return null;
    const decoded = await decodeListing(saved.data);
    return decoded && BlogListing.restore(saved.seq, blogId, this.lazy, decoded);
  }

  private async readAll(blogId: string): Promise<BlogListing> {
    // The log's end before the first page: whatever is committed later is replayed.
    const listing = new BlogListing(await this.source.latestChange(), blogId);
    let after: { publishedAt: string; id: string } | null = null;
    for (;;) {
      const page = await this.source.publishedSummariesAfter(blogId, after, this.loadPage);
      listing.addPage(page);
      if (page.length < this.loadPage) break;
      const last = page[page.length - 1]!;
      after = { publishedAt: last.publishedAt, id: last.id };
      await yieldToLoop();
    }
    return listing;
  }

  /** Brings the entry up to date with the change log. */
  private async replay(blogId: string, entry: BlogListing): Promise<void> {
    const { source } = this;
    // Read the log's end first: a change committed after it is replayed next time.
    const latest = await source.latestChange();
    const changes = await source.changesSince(blogId, entry.seq);
    const postIds = [...new Set(changes.map((change) => change.postId))];
    const now = await Promise.all(postIds.map((postId) => source.publishedSummary(postId)));
    entry.titleCountsBefore = entry.fresh ? null : { ...entry.titleCounts };
    entry.fresh = false;
    for (const [i, postId] of postIds.entries()) entry.apply(postId, now[i]!);
    entry.seq = Math.max(latest, changes[changes.length - 1]?.seq ?? 0);
  }

  private evict(keep: string): void {
    let total = 0;
    for (const entry of this.entries.values()) total += entry.posts.length;
    for (const [blogId, entry] of this.entries) {
      if (total <= this.maxPosts) return;
      if (blogId === keep) continue;
      this.entries.delete(blogId);
      total -= entry.posts.length;
    }
  }
}
