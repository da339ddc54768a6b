/**
 * The published posts of recently published blogs (summaries, oldest first), kept in memory so
 * that a publish in a blog of 10,000 posts does not re-read 10,000 rows. Each use replays the
 * post_changes log (migration 004: triggers record every change to a published post in the
 * same transaction) since the entry's last sequence number, re-reading only the posts it names.
 * Replaying is idempotent — an entry is made to match the row as it is now — so a change seen
 * twice, or a row read newer than its log entry, does no harm. When the log no longer reaches
 * back to an entry (pruned), the entry is loaded afresh: a page of rows per turn of the event
 * loop (50,000 summaries read at once held it for hundreds of milliseconds), then the changes
 * committed meanwhile are replayed, which also settles a post read twice or not at all because
 * it moved while the pages were read.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { compareOldestFirst, positionOf, type TagGroup } from './render/archive.js';
import { countText, emptyCounts, type TextCounts } from '../content/language.js';
import { tagSegment } from './render/renderPaths.js';
import type { SitePostSummary } from './render/siteTypes.js';

/** What the cache reads; SiteRepo provides it. */
export interface ListingSource {
  publishedSummariesAfter(blogId: string, after: { publishedAt: string; id: string } | null, limit: number): SitePostSummary[];
  publishedSummary(postId: string): SitePostSummary | null;
  latestChange(): number;
  oldestChange(): number | null;
  changesSince(blogId: string, seq: number): { seq: number; postId: string }[];
  pruneChanges(belowSeq: number): void;
}

export interface Listing {
  /** Every published post of the blog, oldest first. */
  readonly posts: readonly SitePostSummary[];
  /** Word counts of all titles together: they decide the blog-wide language. */
  readonly titleCounts: TextCounts;
  /** The same counts before this call brought the entry up to date; null on a fresh load. */
  readonly titleCountsBefore: TextCounts | null;
  /** The posts of one tag segment, oldest first (empty when none). */
  tagged(segment: string): readonly SitePostSummary[];
  /** Every tag with its posts, ordered by segment, as collectTags gives them. */
  tagGroups(): TagGroup<SitePostSummary>[];
}

export interface ListingCacheOptions {
  /** Summaries kept in memory over all blogs before least recently used blogs are dropped. */
  maxPosts?: number;
  /** Log entries kept when pruning. */
  keepChanges?: number;
  /** Rows read per turn of the event loop when a listing is loaded afresh (default 2,000). */
  loadPage?: number;
}

const EMPTY: readonly SitePostSummary[] = [];

const LOAD_PAGE = 2000;

function addCounts(target: TextCounts, counts: TextCounts, sign: 1 | -1): void {
  target.hangulWords += sign * counts.hangulWords;
  target.latinWords += sign * counts.latinWords;
  target.hangulChars += sign * counts.hangulChars;
  target.otherWords += sign * counts.otherWords;
}

function segmentsOf(post: SitePostSummary): Set<string> {
  return new Set(post.tags.map(tagSegment));
}

class BlogListing implements Listing {
  readonly posts: SitePostSummary[] = [];
  readonly titleCounts = emptyCounts();
  titleCountsBefore: TextCounts | null = null;
  /** Not yet handed out: its first replay reports no counts before (titleCountsBefore null). */
  fresh = true;
  private readonly byId = new Map<string, SitePostSummary>();
  private readonly tags = new Map<string, SitePostSummary[]>();

  constructor(public seq: number) {}

  /**
   * Adds a page of a fresh load. Pages come in (publishedAt, id) order (keyset paging), so the
   * lists stay sorted by appending; a post read twice (it moved while the pages were read) keeps
   * its first place until the replay settles it. Indexing a page at a time, between turns of the
   * event loop, keeps a 50,000-post load from holding the loop for the whole build (~90 ms).
   */
  addPage(posts: readonly SitePostSummary[]): void {
    for (const post of posts) {
      if (this.byId.has(post.id)) continue;
      this.posts.push(post);
      this.index(post);
    }
  }

  tagged(segment: string): readonly SitePostSummary[] {
    return this.tags.get(segment) ?? EMPTY;
  }

  tagGroups(): TagGroup<SitePostSummary>[] {
    const groups: TagGroup<SitePostSummary>[] = [];
    for (const [segment, posts] of this.tags) {
      const name = posts[posts.length - 1]!.tags.find((tag) => tagSegment(tag) === segment)!;
      groups.push({ name, segment, posts });
    }
    return groups.sort((a, b) => (a.segment < b.segment ? -1 : a.segment > b.segment ? 1 : 0));
  }

  /** Makes the entry for `postId` match `now` (null: the post is not published any more). */
  apply(postId: string, now: SitePostSummary | null): void {
    const old = this.byId.get(postId);
    if (old) {
      this.posts.splice(positionOf(this.posts, old), 1);
      for (const segment of segmentsOf(old)) {
        const list = this.tags.get(segment)!;
        list.splice(positionOf(list, old), 1);
        if (list.length === 0) this.tags.delete(segment);
      }
      this.byId.delete(postId);
      addCounts(this.titleCounts, countText(old.title, emptyCounts()), -1);
    }
    if (now) {
      this.posts.splice(positionOf(this.posts, now), 0, now);
      this.index(now, true);
    }
  }

  private index(post: SitePostSummary, sorted = false): void {
    this.byId.set(post.id, post);
    countText(post.title, this.titleCounts);
    for (const segment of segmentsOf(post)) {
      const list = this.tags.get(segment);
      if (!list) this.tags.set(segment, [post]);
      else if (sorted) list.splice(positionOf(list, post), 0, post);
      else list.push(post);
    }
  }
}

export class ListingCache {
  private readonly entries = new Map<string, BlogListing>();
  private readonly loading = new Map<string, Promise<BlogListing>>();
  private readonly maxPosts: number;
  private readonly keepChanges: number;
  private readonly loadPage: number;
  private uses = 0;

  constructor(
    private readonly source: ListingSource,
    options: ListingCacheOptions = {},
  ) {
    this.maxPosts = options.maxPosts ?? 200_000;
    this.keepChanges = options.keepChanges ?? 50_000;
    this.loadPage = options.loadPage ?? LOAD_PAGE;
  }

  /** The blog's published posts as the database holds them now. */
  async get(blogId: string): Promise<Listing> {
    const { source } = this;
    let entry = this.entries.get(blogId);
    const oldest = source.oldestChange();
    if (!entry || (oldest !== null && entry.seq < oldest - 1)) {
      entry = await this.load(blogId);
    }
    this.entries.delete(blogId);
    this.replay(blogId, entry);
    this.entries.set(blogId, entry);
    this.evict(blogId);
    if (++this.uses % 256 === 0) source.pruneChanges(source.latestChange() - this.keepChanges);
    return entry;
  }

  /** Blogs held, most recently used first. */
  recent(): string[] {
    return [...this.entries.keys()].reverse();
  }

  /** Drops a blog's entry (the blog was deleted). */
  forget(blogId: string): void {
    this.entries.delete(blogId);
  }

  private load(blogId: string): Promise<BlogListing> {
    let pending = this.loading.get(blogId);
    if (!pending) {
      pending = this.readAll(blogId).finally(() => this.loading.delete(blogId));
      this.loading.set(blogId, pending);
    }
    return pending;
  }

  private async readAll(blogId: string): Promise<BlogListing> {
    // The log's end before the first page: whatever is committed later is replayed.
    const listing = new BlogListing(this.source.latestChange());
    let after: { publishedAt: string; id: string } | null = null;
    for (;;) {
      const page = this.source.publishedSummariesAfter(blogId, after, this.loadPage);
      listing.addPage(page);
      if (page.length < this.loadPage) break;
      const last = page[page.length - 1]!;
      after = { publishedAt: last.publishedAt, id: last.id };
      await yieldToLoop();
    }
    return listing;
  }

  /** Brings the entry up to date with the change log. */
  private replay(blogId: string, entry: BlogListing): void {
    const { source } = this;
    // Read the log's end first: a change committed after it is replayed next time.
    const latest = source.latestChange();
    const changes = source.changesSince(blogId, entry.seq);
    entry.titleCountsBefore = entry.fresh ? null : { ...entry.titleCounts };
    entry.fresh = false;
    for (const postId of new Set(changes.map((change) => change.postId))) entry.apply(postId, source.publishedSummary(postId));
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
