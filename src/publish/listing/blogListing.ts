/**
 * One blog's published posts in memory, oldest first, with its tag lists and title counts
 * (ListingCache keeps them current). Posts restored from a snapshot are LazySummary: their ids,
 * dates and tags come from the snapshot's bytes, their slugs and titles are read when a page
 * needs them, a run of neighbours per query.
 */
import { countText, emptyCounts, type TextCounts } from '../../domain/language.js';
import { indexOfPost, positionOf, type Ordered, type TagGroup } from '../render/archive.js';
import { tagSegment } from '../render/renderPaths.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import { LazySummary, type SummaryFiller } from './lazySummary.js';
import type { DecodedListing } from './listingSnapshot.js';

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
  /** Reads now the rows of these lists' posts that are not read yet (restored posts), newest first. */
  prefetch(lists: readonly (readonly SitePostSummary[])[]): void;
}

/**
 * What a listing reads summaries from when a restored post's fields are first needed, in the
 * middle of a render: synchronously, so only SQLite provides it (db/summaryReader.ts).
 */
export interface SummaryReader {
  /** Up to `limit` published summaries from `from` on (inclusive), oldest first. */
  publishedSummariesFrom(blogId: string, from: Ordered, limit: number): SitePostSummary[];
  /** The published summaries of these posts, found by their place, in any order. */
  publishedSummariesAt(blogId: string, posts: readonly Ordered[]): SitePostSummary[];
  /** The post's summary whatever its status now; null once the row is gone. */
  summaryOfAnyStatus(postId: string): SitePostSummary | null;
}

const EMPTY: readonly SitePostSummary[] = [];

/** Summaries read per query when restored posts are first needed: a list page's worth and more. */
const FILL_RUN = 128;

/** Posts read per query by prefetch. */
const PREFETCH_BATCH = 500;

function addCounts(target: TextCounts, counts: TextCounts, sign: 1 | -1): void {
  target.hangulWords += sign * counts.hangulWords;
  target.latinWords += sign * counts.latinWords;
  target.hangulChars += sign * counts.hangulChars;
  target.otherWords += sign * counts.otherWords;
}

function segmentsOf(post: SitePostSummary): Set<string> {
  return new Set(post.tags.map(tagSegment));
}

/** countText of a post's title; a restored post kept it from when it was saved. */
export function titleCountsOf(post: SitePostSummary): TextCounts {
  return post instanceof LazySummary ? post.titleCounts : countText(post.title, emptyCounts());
}

export class BlogListing implements Listing, SummaryFiller {
  readonly posts: SitePostSummary[] = [];
  readonly titleCounts = emptyCounts();
  titleCountsBefore: TextCounts | null = null;
  /** Not yet handed out: its first replay reports no counts before (titleCountsBefore null). */
  fresh = true;
  /** Changed since it was last saved (ListingCache.save). */
  dirty = true;
  /** Log position of the snapshot last saved or restored (0: none). */
  savedSeq = 0;
  /** The listed posts that were not restored from a snapshot, by id. */
  private readonly byId = new Map<string, SitePostSummary>();
  /**
   * The restored posts, by their index in the snapshot, and which of them left the listing since.
   * They are found by the snapshot's id column, so no map of 50,000 ids is ever built.
   */
  private saved: { decoded: DecodedListing; posts: LazySummary[]; removed: Uint8Array } | null = null;
  private readonly tags = new Map<string, SitePostSummary[]>();

  constructor(
    public seq: number,
    private readonly blogId: string,
    /** Only a restored listing reads: its posts' summaries, when first needed. */
    private readonly reader: SummaryReader | null = null,
  ) {}

  /** A listing restored from a decoded snapshot (listingSnapshot.ts). */
  static restore(seq: number, blogId: string, reader: SummaryReader, saved: DecodedListing): BlogListing {
    const listing = new BlogListing(seq, blogId, reader);
    const n = saved.ids.length;
    const { words, starts } = saved;
    const segmentOf = saved.tags.map(tagSegment);
    const lists = segmentOf.map((segment) => {
      let list = listing.tags.get(segment);
      if (!list) listing.tags.set(segment, (list = []));
      return list;
    });
    const restored: LazySummary[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const post = new LazySummary(saved, i, listing);
      restored[i] = post;
      listing.posts.push(post);
      const w = starts[i]!;
      const count = words[w]!;
      tagging: for (let t = 0; t < count; t++) {
        const index = words[w + 1 + t]!;
        // Two tags of one segment (`Go`, `go`) list the post once.
        for (let k = 0; k < t; k++) if (segmentOf[words[w + 1 + k]!] === segmentOf[index]) continue tagging;
        lists[index]!.push(post);
      }
    }
    for (const [segment, list] of listing.tags) if (list.length === 0) listing.tags.delete(segment);
    listing.saved = { decoded: saved, posts: restored, removed: new Uint8Array(n) };
    addCounts(listing.titleCounts, saved.titleCounts, 1);
    listing.dirty = false;
    listing.savedSeq = seq;
    // Its first use reports the counts as saved: a change since that tips the blog's language
    // is seen (a listing read from the rows already holds the change, and cannot tell).
    listing.fresh = false;
    return listing;
  }

  /**
   * Adds a page of a fresh load. Pages come in (publishedAt, id) order (keyset paging), so the
   * lists stay sorted by appending; a post read twice (it moved while the pages were read) keeps
   * its first place until the replay settles it. Indexing a page at a time, between turns of the
   * event loop, keeps a large blog's load from holding the loop for the whole build.
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
    const old = this.find(postId);
    if (old) {
      this.posts.splice(positionOf(this.posts, old), 1);
      for (const segment of segmentsOf(old)) {
        const list = this.tags.get(segment)!;
        list.splice(positionOf(list, old), 1);
        if (list.length === 0) this.tags.delete(segment);
      }
      if (old instanceof LazySummary && this.saved?.posts[old.index] === old) this.saved.removed[old.index] = 1;
      else this.byId.delete(postId);
      addCounts(this.titleCounts, titleCountsOf(old), -1);
      this.dirty = true;
    }
    if (now) {
      this.posts.splice(positionOf(this.posts, now), 0, now);
      this.index(now, true);
      this.dirty = true;
    }
  }

  /**
   * Reads the summaries of a restored post and of the posts around it that are not read yet, up
   * to FILL_RUN in one query: a page lists its posts newest first (home, month) or oldest first
   * (sitemap), so the run reaches on from this post in the direction the page goes, until it meets
   * a post read already. A post whose row moved or went since the listing was brought up to date
   * is read on its own, as it is now; the change's own job renders its pages again.
   */
  fill(post: LazySummary): void {
    const { posts } = this;
    const at = indexOfPost(posts, post);
    if (at >= 0) {
      const read = (i: number): boolean => {
        const listed = posts[i]!;
        return !(listed instanceof LazySummary) || listed.loaded;
      };
      // Newest first: the next one needed is older. Oldest first: newer. A first read: both ways.
      const back = at + 1 < posts.length && read(at + 1) ? FILL_RUN - 1 : at > 0 && read(at - 1) ? 0 : FILL_RUN / 2;
      let from = at;
      while (from > 0 && at - from < back && !read(from - 1)) from--;
      let to = at + 1;
      while (to < posts.length && to - from < FILL_RUN && !read(to)) to++;
      const rows = this.reader!.publishedSummariesFrom(this.blogId, posts[from]!, to - from);
      for (let k = 0; k < rows.length; k++) {
        const listed = posts[from + k];
        if (listed?.id !== rows[k]!.id) break;
        if (listed instanceof LazySummary) listed.provide(rows[k]!);
      }
    }
    if (!post.loaded) post.provide(this.reader!.summaryOfAnyStatus(post.id) ?? gone(post));
  }

  /**
   * By their places in the summary index, PREFETCH_BATCH at a time: a tag's newest posts are
   * scattered over the blog, and runs around each (fill) read many rows no page lists.
   */
  prefetch(lists: readonly (readonly SitePostSummary[])[]): void {
    const unread = new Map<string, LazySummary>();
    for (const list of lists) for (const post of list) if (post instanceof LazySummary && !post.loaded) unread.set(post.id, post);
    const posts = [...unread.values()];
    for (let at = 0; at < posts.length; at += PREFETCH_BATCH) {
      for (const row of this.reader!.publishedSummariesAt(this.blogId, posts.slice(at, at + PREFETCH_BATCH))) unread.get(row.id)?.provide(row);
    }
  }

  /** The listed post with this id. */
  private find(postId: string): SitePostSummary | undefined {
    const post = this.byId.get(postId);
    if (post || !this.saved) return post;
    const at = this.saved.decoded.ids.indexOf(postId);
    return at >= 0 && this.saved.removed[at] === 0 ? this.saved.posts[at] : undefined;
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

/** A post deleted between the listing's update and its page's render: its delete job follows. */
function gone(post: LazySummary): SitePostSummary {
  return {
    id: post.id,
    slug: '',
    title: '',
    metaDescription: '',
    ogImageUrl: null,
    tags: post.tags,
    publishedAt: post.publishedAt,
    createdAt: post.publishedAt,
    updatedAt: post.updatedAt,
  };
}
